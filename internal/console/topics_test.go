package console

import (
	"net/url"
	"testing"
)

// The page links of a list paged by number keep the page's other
// parameters and stop at the ends.
func TestPagerOf(t *testing.T) {
	keep := url.Values{"status": {"ACTIVE"}}
	for _, c := range []struct {
		p          pagination
		prev, next string
	}{
		{pagination{Page: 1, TotalPages: 1}, "", ""},
		{pagination{Page: 1, TotalPages: 0}, "", ""},
		{pagination{Page: 1, TotalPages: 3}, "", "/topics?page=2&status=ACTIVE"},
		{pagination{Page: 2, TotalPages: 3}, "/topics?page=1&status=ACTIVE", "/topics?page=3&status=ACTIVE"},
		{pagination{Page: 3, TotalPages: 3}, "/topics?page=2&status=ACTIVE", ""},
	} {
		got := pagerOf(c.p, "/topics", keep)
		if got.Prev != c.prev || got.Next != c.next {
			t.Errorf("page %d of %d: prev %q next %q; want %q %q", c.p.Page, c.p.TotalPages, got.Prev, got.Next, c.prev, c.next)
		}
	}
	if len(keep) != 1 || keep.Get("page") != "" {
		t.Errorf("pagerOf changed the kept parameters: %v", keep)
	}
}

// A list input's items: commas and lines separate them, blanks go.
func TestSplitList(t *testing.T) {
	got := splitList(" sales ,revops\n\nsales ops,, \r\n")
	want := []string{"sales", "revops", "sales ops"}
	if len(got) != len(want) {
		t.Fatalf("splitList = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("splitList = %q, want %q", got, want)
		}
	}
}

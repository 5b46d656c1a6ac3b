package sandbox

import (
	"strconv"
	"testing"
	"time"
)

// TestPronetPostByURN finds every post a roster person's and a roster page's feed shows, and
// public-stream posts, by id alone.
func TestPronetPostByURN(t *testing.T) {
	s := newTest(t, 4, testNow)
	w := s.World()
	from := testNow.Add(-14 * 24 * time.Hour)
	var all []PronetPost
	all = append(all, w.ProfilePosts(w.Roster()[9], from, testNow)...)
	all = append(all, w.CompanyPosts(w.Companies()[9], from, testNow)...)
	all = append(all, w.PublicPronetPost(testNow.UnixMilli()/hourMS-3, 2))
	if len(all) < 5 {
		t.Fatalf("only %d posts", len(all))
	}
	for _, p := range all {
		got, ok := w.PronetPostByURN(p.URN)
		if !ok || got.URN != p.URN || got.Text != p.Text || !got.Time.Equal(p.Time) {
			t.Fatalf("post %d: got %+v, %v", p.URN, got.URN, ok)
		}
		if _, ok := w.PronetPostByURN(p.URN + 1); ok {
			t.Errorf("post %d + 1 found", p.URN)
		}
	}
}

func TestPronetPostEndpointAndLimits(t *testing.T) {
	s := newTest(t, 4, testNow)
	h := s.Handler()
	p := s.World().CompanyPosts(s.World().Companies()[2], testNow.Add(-14*24*time.Hour), testNow)[0]
	urn := strconv.FormatUint(p.URN, 10)
	v := getJSON(t, h, "/pronet/post?urn=urn:li:activity:"+urn, 200)
	if rec := obj(v["data"]); rec["urn"] != urn || rec["text"] != p.Text {
		t.Fatalf("post = %v", v)
	}
	getJSON(t, h, "/pronet/post?urn="+strconv.FormatUint(p.URN+1, 10), 404)
	getJSON(t, h, "/pronet/post?urn=missing-1", 404)
	getJSON(t, h, "/pronet/post?urn=error-1", 500)
	getJSON(t, h, "/pronet/post", 400)
	c := getJSON(t, h, "/pronet/post/comments?urn="+urn+"&limit=1", 200)
	if d := obj(c["data"]); len(list(d["comments"])) > 1 || d["totalPage"] != d["total"] {
		t.Errorf("comments limit 1 = %v", d)
	}
	r := getJSON(t, h, "/pronet/post/reactions?urn="+urn+"&limit=2&page=1", 200)
	if d := obj(r["data"]); len(list(d["items"])) > 2 {
		t.Errorf("reactions limit 2 = %v", d)
	}
	for _, bad := range []string{"limit=0", "limit=101", "limit=x"} {
		getJSON(t, h, "/pronet/post/comments?urn="+urn+"&"+bad, 400)
		getJSON(t, h, "/pronet/post/reactions?urn="+urn+"&"+bad, 400)
	}
}

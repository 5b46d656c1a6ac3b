package sandbox

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

func searchItems(t *testing.T, s *Sandbox, q url.Values, wantStatus int) ([]any, map[string]any) {
	t.Helper()
	v := getJSON(t, s.Handler(), "/pronet/posts/search?"+q.Encode(), wantStatus)
	return list(obj(v["data"])["items"]), v
}

func TestPronetSearchMentionsMember(t *testing.T) {
	s := newTest(t, 1, testNow)
	m := s.World().MostMentioned()[0]
	q := url.Values{"mentionsMember": {m.PronetURN()}, "datePosted": {"past-week"}, "sortBy": {"date_posted"}}
	items, v := searchItems(t, s, q, 200)
	if len(items) == 0 {
		t.Fatalf("no post of the last week mentions %s, one of the most mentioned", m.PronetURN())
	}
	for _, it := range items {
		if !strings.Contains(obj(it)["text"].(string), m.FullName()) {
			t.Fatalf("post %v mentions %s without naming them", obj(it)["urn"], m.FullName())
		}
	}
	// Keywords narrow a mention search further; another member's URN adds posts (OR).
	q.Set("keywords", "NOT zzzunlikely")
	if k, _ := searchItems(t, s, q, 200); len(k) != len(items) {
		t.Fatalf("a keyword every post satisfies changed the page: %d then %d", len(items), len(k))
	}
	q.Del("keywords")
	q.Set("mentionsMember", m.PronetURN()+","+s.World().MostMentioned()[1].PronetURN())
	_, both := searchItems(t, s, q, 200)
	if obj(both["data"])["total"].(float64) <= obj(v["data"])["total"].(float64) {
		t.Fatalf("two members found %v posts, one found %v", obj(both["data"])["total"], obj(v["data"])["total"])
	}
	// A member nobody mentions: an empty page, not an error.
	q.Set("mentionsMember", "urn:li:member:1")
	if k, _ := searchItems(t, s, q, 200); len(k) != 0 {
		t.Fatalf("urn:li:member:1 is mentioned in %d posts", len(k))
	}
}

func TestPronetSearchMentionsOrganizationAndAuthorTitle(t *testing.T) {
	s := newTest(t, 1, testNow)
	w := s.World()
	// The employer named in the newest post that names one.
	var c *Company
	for b := testNow.UnixMilli() / hourMS; c == nil; b-- {
		for i := 0; i < pronetPerHour && c == nil; i++ {
			if p := w.PublicPronetPost(b, i); p.MentionsCompany != nil && !p.Time.After(testNow) {
				c = p.MentionsCompany
			}
		}
	}
	items, _ := searchItems(t, s, url.Values{"mentionsOrganization": {fmt.Sprint(c.ID)}, "datePosted": {"past-24h"}}, 200)
	if len(items) == 0 {
		t.Fatalf("no post mentions company %d", c.ID)
	}
	for _, it := range items {
		if !strings.Contains(obj(it)["text"].(string), " at "+c.Name+",") {
			t.Fatalf("post %v does not name %s", obj(it)["urn"], c.Name)
		}
	}

	items, _ = searchItems(t, s, url.Values{"keywords": {"crm OR sales OR hiring"}, "authorTitle": {"SALES"}}, 200)
	if len(items) == 0 {
		t.Fatal("no post by anyone with sales in their title")
	}
	for _, it := range items {
		a := obj(obj(it)["author"])
		p, err := w.PersonByPronet(a["username"].(string))
		if err != nil || !strings.Contains(strings.ToLower(p.Title), "sales") {
			t.Fatalf("author %v (%q) does not hold a sales title", a["username"], p.Title)
		}
	}
}

func TestPronetSearchRejectsBadFilters(t *testing.T) {
	s := newTest(t, 1, testNow)
	for _, q := range []url.Values{
		{},
		{"authorTitle": {"CEO"}},
		{"mentionsMember": {"jane-doe"}},
		{"mentionsMember": {"urn:li:member:12,"}},
		{"mentionsMember": {"urn:li:fsd_profile:ACoAAB"}},
		{"mentionsOrganization": {"acme"}},
		{"mentionsOrganization": {"urn:li:company:12"}},
		{"keywords": {"crm"}, "contentType": {"podcasts"}},
		{"keywords": {"crm"}, "authorTitle": {strings.Repeat("x", 201)}},
	} {
		_, v := searchItems(t, s, q, 400)
		if v["success"] != false || v["message"] == "" || v["data"] != nil {
			t.Errorf("%v: error body %v", q, v)
		}
	}
}

func TestPronetProfilePostsAfter(t *testing.T) {
	s := newTest(t, 6, testNow)
	h := s.Handler()
	p := s.World().Roster()[3]
	all := list(getJSON(t, h, "/pronet/profile/posts?username="+p.PronetUsername, 200)["data"])
	cut := int64(obj(all[4])["postedDateTimestamp"].(float64))
	after := time.UnixMilli(cut).UTC().Format("2006-01-02T15:04:05.000Z07:00")
	v := getJSON(t, h, "/pronet/profile/posts?username="+p.PronetUsername+"&after="+url.QueryEscape(after), 200)
	got := list(v["data"])
	if len(got) != 4 || v["paginationToken"] != nil {
		t.Fatalf("after the 5th post: %d posts, token %v; want the 4 newer ones and no token", len(got), v["paginationToken"])
	}
	for i, g := range got {
		if obj(g)["urn"] != obj(all[i])["urn"] {
			t.Fatalf("post %d after the cut is %v, want %v", i, obj(g)["urn"], obj(all[i])["urn"])
		}
	}
	v = getJSON(t, h, "/pronet/profile/posts?username="+p.PronetUsername+"&after=yesterday", 400)
	if v["success"] != false {
		t.Fatalf("malformed after: %v", v)
	}
}

// FuzzPronetSearchFilters: whatever the filter parameters say, the search answers 200 or a
// 400 in the provider's error shape, never anything else.
func FuzzPronetSearchFilters(f *testing.F) {
	for _, s := range [][3]string{{"urn:li:member:1", "", ""}, {"", "1441,22", "sales"}, {"urn:li:member:0,", "x", ""}} {
		f.Add(s[0], s[1], s[2])
	}
	s := newTest(f, 1, testNow)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, members, companies, title string) {
		q := url.Values{"datePosted": {"past-24h"}, "mentionsMember": {members}, "mentionsOrganization": {companies}, "authorTitle": {title}}
		code, body := get(t, h, "/pronet/posts/search?"+q.Encode())
		if code != 200 && (code != 400 || !strings.Contains(string(body), `"success":false`)) {
			t.Fatalf("%v: %d %s", q, code, body)
		}
	})
}

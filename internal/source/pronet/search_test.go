package pronet_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

func TestSearchPostsFilters(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, `{"success":true,"message":"","data":{"items":[],"total":0,"totalPage":0,"currentPage":1}}`)
	})
	c, _ := newClient(t, srv)
	_, err := c.SearchPosts(context.Background(), pronet.SearchParams{AuthorTitle: " VP Sales ",
		MentionsMember: []string{"urn:li:member:1", "urn:li:member:22"}, MentionsOrganization: []string{"1441"}})
	if err != nil {
		t.Fatal(err)
	}
	q := srv.Requests()[0].Query
	if q.Has("keywords") || q.Get("authorTitle") != "VP Sales" || q.Get("mentionsMember") != "urn:li:member:1,urn:li:member:22" ||
		q.Get("mentionsOrganization") != "1441" {
		t.Errorf("search query = %v", q)
	}
	for _, p := range []pronet.SearchParams{
		{},                   // neither keywords nor mentions
		{AuthorTitle: "CEO"}, // a title alone is no query
		{Keywords: "x", ContentType: "podcasts"},
		{MentionsMember: []string{"jane-doe"}},
		{MentionsOrganization: []string{"acme"}},
	} {
		if _, err := c.SearchPosts(context.Background(), p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("invalid searches reached the provider: %d requests", len(srv.Requests()))
	}
}

func TestProfilePostsAfter(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, `{"success":true,"message":"","data":[],"paginationToken":null}`)
	})
	c, _ := newClient(t, srv)
	after := time.Date(2026, 3, 1, 10, 0, 0, 123e6, time.FixedZone("x", 3600))
	if _, next, err := c.ProfilePosts(context.Background(), pronet.ProfilePostsParams{Username: "jane-doe", After: after, PaginationToken: "t"}); err != nil || next != "" {
		t.Fatal(next, err)
	}
	q := srv.Requests()[0].Query
	if q.Get("after") != "2026-03-01T09:00:00.123Z" || q.Get("paginationToken") != "t" || q.Get("username") != "jane-doe" {
		t.Errorf("profile posts query = %v", q)
	}
}

func TestPostItem(t *testing.T) {
	var p pronet.Post
	if err := json.Unmarshal([]byte(postRecord), &p); err != nil {
		t.Fatal(err)
	}
	p.Author.URL += "/"
	p.Author.ProfilePictures = append(p.Author.ProfilePictures, pronet.Picture{Width: 400, Height: 400, URL: "https://media.licdn.com/p400.jpg"})
	p.Video = []pronet.Video{{URL: "https://v.mp4", Poster: "https://v.jpg", Duration: 30}}
	it := p.Item(now)
	if it.ID != "7301234567890123456" || it.Source != "pronet" || it.Author.Name != "Jane Doe" || it.Author.Username != "jane-doe" ||
		it.Author.ProfileURL != "https://www.linkedin.com/in/jane-doe" || it.Author.Avatar != "https://media.licdn.com/p400.jpg" ||
		it.Author.Followers != nil || it.Content.URL != p.PostURL || it.Engagement.Likes != 12 || it.Engagement.Comments != 4 ||
		it.Engagement.Shares == nil || *it.Engagement.Shares != 2 || !it.PublishedAt.Equal(time.UnixMilli(1772964000000)) || !it.CollectedAt.Equal(now) {
		t.Fatalf("item = %+v", it)
	}
	var kinds []string
	for _, m := range it.Content.Media {
		kinds = append(kinds, m.Type+" "+m.URL+" "+m.PreviewURL)
	}
	if got := strings.Join(kinds, "|"); got != "photo https://media.licdn.com/img.jpg |video https://v.mp4 https://v.jpg|document https://d/t https://d/c1.jpg" {
		t.Fatalf("media = %s", got)
	}
	// Without a timestamp, the activity id says when.
	p.PostedDateTimestamp, p.PostedDate = 0, ""
	if got := p.Item(now).PublishedAt; !got.Equal(time.UnixMilli(7301234567890123456 >> 22)) {
		t.Fatalf("published from the id = %v", got)
	}
}

func TestBooleanQuery(t *testing.T) {
	for _, tc := range []struct {
		anyOf, allOf, noneOf []string
		want                 string
	}{
		{[]string{"crm"}, nil, nil, `"crm"`},
		{[]string{"revops", "sales  ops"}, []string{"crm"}, []string{"hiring"}, `("revops" OR "sales ops") AND "crm" NOT "hiring"`},
		{nil, []string{`say "hi"`}, nil, `"say hi"`},
		{nil, nil, []string{"jobs"}, `NOT "jobs"`},
	} {
		if got := pronet.BooleanQuery(tc.anyOf, tc.allOf, tc.noneOf); got != tc.want {
			t.Errorf("BooleanQuery(%v, %v, %v) = %s, want %s", tc.anyOf, tc.allOf, tc.noneOf, got, tc.want)
		}
	}
}

func TestParseMemberURNAndCompanyID(t *testing.T) {
	for in, want := range map[string]string{"urn:li:member:123": "urn:li:member:123", " URN:LI:MEMBER:007 ": "urn:li:member:7"} {
		if got, err := pronet.ParseMemberURN(in); err != nil || got != want {
			t.Errorf("ParseMemberURN(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "123", "urn:li:member:", "urn:li:member:0", "urn:li:member:12a", "urn:li:fsd_profile:ACoAAB", "urn:li:member:12345678901234567890"} {
		if _, err := pronet.ParseMemberURN(in); err == nil {
			t.Errorf("ParseMemberURN(%q) accepted", in)
		}
	}
	for in, want := range map[string]string{"1441": "1441", "urn:li:company:1441": "1441", "urn:li:organization:01441": "1441"} {
		if got, err := pronet.ParseCompanyID(in); err != nil || got != want {
			t.Errorf("ParseCompanyID(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "acme", "0", "-1", "urn:li:company:", "https://www.linkedin.com/company/1441"} {
		if _, err := pronet.ParseCompanyID(in); err == nil {
			t.Errorf("ParseCompanyID(%q) accepted", in)
		}
	}
}

func FuzzParseMemberURN(f *testing.F) {
	for _, s := range []string{"urn:li:member:123", "URN:LI:MEMBER:0001", "urn:li:member:", "123"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		urn, err := pronet.ParseMemberURN(raw)
		if err != nil {
			return
		}
		if again, err := pronet.ParseMemberURN(urn); err != nil || again != urn {
			t.Fatalf("%q → %q, re-parse → %q, %v", raw, urn, again, err)
		}
	})
}

func FuzzParseCompanyID(f *testing.F) {
	for _, s := range []string{"1441", "urn:li:company:1441", "urn:li:organization:7", "acme"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		id, err := pronet.ParseCompanyID(raw)
		if err != nil {
			return
		}
		for _, form := range []string{id, "urn:li:company:" + id} {
			if again, err := pronet.ParseCompanyID(form); err != nil || again != id {
				t.Fatalf("%q → %q, but %q → %q, %v", raw, id, form, again, err)
			}
		}
	})
}

package harvestapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/harvestapi"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

func metered() (context.Context, *source.Meter) {
	m := &source.Meter{}
	return source.WithMeter(context.Background(), m), m
}

func TestProfilePostsPaging(t *testing.T) {
	t1, t2 := now.Add(-time.Hour), now.Add(-48*time.Hour)
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Query().Get("page") {
		case "1":
			sourcetest.JSON(w, 200, listBody([]string{postItem(idAt(t1), t1), postItem(idAt(t2), t2)}, pag(1, 0, 0, 20, "tok-2")))
		default:
			sourcetest.JSON(w, 200, listBody(nil, pag(2, 0, 0, 20, "")))
		}
	})
	c, _ := newClient(t, srv)
	ctx, m := metered()
	posts, next, err := c.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: "nickbennett05"})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Path != "/linkedin/profile-posts" || req.Query.Get("profilePublicIdentifier") != "nickbennett05" || req.Query.Get("page") != "1" ||
		req.Query.Has("paginationToken") || req.Query.Has("scrapePostedLimit") {
		t.Errorf("request = %s %v", req.Path, req.Query)
	}
	if req.Header.Get("X-API-KEY") != key {
		t.Errorf("X-API-KEY = %q", req.Header.Get("X-API-KEY"))
	}
	if len(posts) != 2 || next != "2:tok-2" {
		t.Fatalf("posts = %d, next = %q", len(posts), next)
	}
	if m.Calls() != 1 || m.Total() != 4000 {
		t.Errorf("meter = %d calls, %s", m.Calls(), m.Total().USD())
	}
	posts, next, err = c.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: "nickbennett05", PaginationToken: next})
	if err != nil || len(posts) != 0 || posts == nil || next != "" {
		t.Fatalf("last page: %v %q %v", posts, next, err)
	}
	if q := srv.Requests()[1].Query; q.Get("page") != "2" || q.Get("paginationToken") != "tok-2" {
		t.Errorf("second request = %v", q)
	}
	if m.Calls() != 2 || m.Total() != 4000 {
		t.Errorf("meter after the empty page = %d calls, %s", m.Calls(), m.Total().USD())
	}
	if _, _, err := c.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: "x", PaginationToken: "garbage"}); err == nil {
		t.Error("a foreign token was accepted")
	}
	// Start maps onto the vendor's pages of 20.
	if _, _, err := c.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: "nickbennett05", Start: 40}); err != nil {
		t.Fatal(err)
	}
	if q := srv.Requests()[2].Query; q.Get("page") != "3" {
		t.Errorf("start 40 asked page %s", q.Get("page"))
	}
}

func TestProfilePostsAfter(t *testing.T) {
	times := []time.Time{now.Add(-time.Hour), now.Add(-48 * time.Hour), now.Add(-10 * 24 * time.Hour)}
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		var items []string
		for _, ts := range times {
			items = append(items, postItem(idAt(ts), ts))
		}
		sourcetest.JSON(w, 200, listBody(items, pag(1, 5, 100, 20, "more")))
	})
	c, _ := newClient(t, srv)
	cases := []struct {
		after  time.Time
		kept   int
		next   string
		window string
	}{
		{now.Add(-3 * 24 * time.Hour), 2, "", "week"},
		{now.Add(-20 * time.Hour), 1, "", "24h"},
		{now.Add(-20 * 24 * time.Hour), 3, "2:more", "month"},
		{now.Add(-400 * 24 * time.Hour), 3, "2:more", ""},
	}
	for i, tc := range cases {
		posts, next, err := c.ProfilePosts(context.Background(), pronet.ProfilePostsParams{Username: "u", After: tc.after})
		if err != nil {
			t.Fatal(err)
		}
		if len(posts) != tc.kept || next != tc.next {
			t.Errorf("after %s: %d posts, next %q; want %d, %q", tc.after, len(posts), next, tc.kept, tc.next)
		}
		if got := srv.Requests()[i].Query.Get("scrapePostedLimit"); got != tc.window {
			t.Errorf("after %s: scrapePostedLimit = %q, want %q", tc.after, got, tc.window)
		}
	}
}

func TestCompanyPosts(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		var items []string
		for i := range 20 {
			ts := now.Add(-time.Duration(page*100+i) * time.Hour)
			items = append(items, postItem(idAt(ts), ts))
		}
		sourcetest.JSON(w, 200, listBody(items, pag(page, 10, 200, 20, "")))
	})
	c, _ := newClient(t, srv)
	ctx, m := metered()
	posts, err := c.CompanyPosts(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if len(posts) != 50 || len(srv.Requests()) != 3 {
		t.Fatalf("posts = %d in %d requests", len(posts), len(srv.Requests()))
	}
	if q := srv.Requests()[0]; q.Path != "/linkedin/company-posts" || q.Query.Get("companyUniversalName") != "acme" {
		t.Errorf("request = %s %v", q.Path, q.Query)
	}
	if m.Total() != 60*2000 {
		t.Errorf("cost = %s, want the 60 posts read", m.Total().USD())
	}
}

func TestPost(t *testing.T) {
	ts := now.Add(-24 * time.Hour)
	id := idAt(ts)
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch post := r.URL.Query().Get("post"); post {
		case id:
			sourcetest.JSON(w, 200, itemBody(postItem(id, ts)))
		case "1":
			sourcetest.JSON(w, 200, itemBody("null"))
		case "2":
			sourcetest.JSON(w, 200, itemBody(`{"id": {}, "content": "x"}`))
		case "3":
			sourcetest.JSON(w, 200, itemBody(`{"content": "no id"}`))
		default:
			sourcetest.JSON(w, 404, `{"error": "Not Found", "message": "Post not found", "status": 404}`)
		}
	})
	c, _ := newClient(t, srv)
	ctx, m := metered()
	p, err := c.Post(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if p.URN != id || p.Author.Username != "nickbennett05" || m.Calls() != 1 || m.Total() != 2000 {
		t.Errorf("post = %+v, meter %d %s", p, m.Calls(), m.Total().USD())
	}
	if r := srv.Requests()[0]; r.Path != "/linkedin/post" {
		t.Errorf("path = %s", r.Path)
	}
	for _, tc := range []struct {
		urn      string
		notFound bool
	}{{"1", true}, {"3", true}, {"missing-1", true}, {"2", false}} {
		_, err := c.Post(ctx, tc.urn)
		var ue *source.UpstreamError
		if tc.notFound && !errors.Is(err, source.ErrNotFound) || !tc.notFound && !errors.As(err, &ue) {
			t.Errorf("post %s: %v", tc.urn, err)
		}
	}
	if m.Calls() != 1 {
		t.Errorf("failed lookups were billed: %d calls", m.Calls())
	}
}

// engagementServer serves n items in vendor pages of size, recording nothing else.
func engagementServer(t *testing.T, item func(i int) string, n, size int) *sourcetest.Server {
	return sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		var items []string
		for i := (page - 1) * size; i < min(page*size, n); i++ {
			items = append(items, item(i))
		}
		sourcetest.JSON(w, 200, listBody(items, pag(page, (n+size-1)/size, n, size, "")))
	})
}

func numberedComment(i int) string {
	return strings.Replace(commentItem, `"id": "7331190065471078400"`, fmt.Sprintf(`"id": "%d"`, 7331190065471078400+i), 1)
}

func TestComments(t *testing.T) {
	srv := engagementServer(t, numberedComment, 45, 10)
	c, _ := newClient(t, srv)
	cases := []struct {
		page, limit         int
		wantN, wantTotalPag int
		wantPages           []string
		first               int
	}{
		{1, 0, 10, 5, []string{"1"}, 0},
		{5, 0, 5, 5, []string{"5"}, 40},
		{1, 25, 25, 2, []string{"1", "2", "3"}, 0},
		{2, 25, 20, 2, []string{"3", "4", "5"}, 25},
		{3, 25, 0, 2, []string{"6"}, 0},
	}
	for _, tc := range cases {
		before := len(srv.Requests())
		ctx, m := metered()
		pg, err := c.Comments(ctx, "7328838056403173380", tc.page, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var pages []string
		for _, r := range srv.Requests()[before:] {
			pages = append(pages, r.Query.Get("page"))
			if r.Path != "/linkedin/post-comments" || r.Query.Get("post") != "7328838056403173380" {
				t.Errorf("request %s %v", r.Path, r.Query)
			}
		}
		if len(pg.Comments) != tc.wantN || pg.Total != 45 || pg.TotalPage != tc.wantTotalPag || pg.CurrentPage != tc.page ||
			fmt.Sprint(pages) != fmt.Sprint(tc.wantPages) {
			t.Errorf("page %d limit %d: %d comments, total %d/%d, current %d, vendor pages %v", tc.page, tc.limit,
				len(pg.Comments), pg.Total, pg.TotalPage, pg.CurrentPage, pages)
			continue
		}
		if tc.wantN > 0 {
			want := fmt.Sprintf("urn:li:comment:(activity:7328838056403173380,%d)", 7331190065471078400+tc.first)
			if pg.Comments[0].URN != want {
				t.Errorf("page %d limit %d: first comment %s, want %s", tc.page, tc.limit, pg.Comments[0].URN, want)
			}
		}
		if m.Calls() != len(tc.wantPages) {
			t.Errorf("billed %d calls for %d pages", m.Calls(), len(tc.wantPages))
		}
	}
}

func TestReactions(t *testing.T) {
	// The vendor says its pages hold 100: the assumed size gives way to it.
	srv := engagementServer(t, func(int) string { return reactionItem }, 130, 100)
	c, _ := newClient(t, srv)
	ctx, m := metered()
	pg, err := c.Reactions(ctx, "7329207003942125568", 3, 50)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(pg.Items) != 30 || pg.Total != 130 || pg.TotalPage != 3 || len(reqs) != 2 || reqs[1].Query.Get("page") != "2" {
		t.Fatalf("%d reactors, total %d/%d, %d requests", len(pg.Items), pg.Total, pg.TotalPage, len(reqs))
	}
	if reqs[0].Path != "/linkedin/post-reactions" || reqs[0].Query.Get("post") != "7329207003942125568" {
		t.Errorf("request %s %v", reqs[0].Path, reqs[0].Query)
	}
	want := pronet.Reactor{URN: "urn:li:fsd_profile:ACoAAAMHAagBPz-UgeRDsX3klfoVZEkDw1ulS7E", Username: "ACoAAAMHAagBPz-UgeRDsX3klfoVZEkDw1ulS7E",
		FullName: "Gangotri Dey", Headline: "Licensing Officer", ProfileURL: "https://www.linkedin.com/in/ACoAAAMHAagBPz-UgeRDsX3klfoVZEkDw1ulS7E",
		ProfilePicture: "https://media.licdn.com/r.jpg", ReactionType: pronet.ReactionPraise}
	if pg.Items[0] != want {
		t.Errorf("reactor = %+v", pg.Items[0])
	}
	if m.Total() != 30*2000 { // page 11 of the assumed size (empty), then page 2
		t.Errorf("cost %s", m.Total().USD())
	}
}

func TestSearchPosts(t *testing.T) {
	var items []string
	for i := range 20 {
		ts := now.Add(-time.Duration(i) * time.Hour)
		items = append(items, postItem(idAt(ts), ts))
	}
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, listBody(items, pag(2, 4, 75, 20, "")))
	})
	c, _ := newClient(t, srv)
	ctx, m := metered()
	pg, err := c.SearchPosts(ctx, pronet.SearchParams{Keywords: `"go" OR "rust"`, DatePosted: pronet.DatePastWeek, SortBy: pronet.SortDate,
		ContentType: "photos", MentionsMember: []string{"urn:li:member:42", "urn:li:fsd_profile:ACoAAB"},
		MentionsOrganization: []string{"urn:li:organization:1035"}, AuthorTitle: "UX leadership", Page: 4})
	if err != nil {
		t.Fatal(err)
	}
	q := srv.Requests()[0].Query
	want := map[string]string{"search": `"go" OR "rust"`, "postedLimit": "week", "sortBy": "date", "contentType": "images",
		"mentioningMember": "42,ACoAAB", "mentioningCompany": "1035", "authorKeywords": "UX leadership", "page": "2"}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	if srv.Requests()[0].Path != "/linkedin/post-search" {
		t.Errorf("path %s", srv.Requests()[0].Path)
	}
	if len(pg.Items) != 10 || pg.Total != 75 || pg.TotalPage != 8 || pg.CurrentPage != 4 || m.Total() != 20*2000 {
		t.Errorf("%d items, total %d/%d, page %d, cost %s", len(pg.Items), pg.Total, pg.TotalPage, pg.CurrentPage, m.Total().USD())
	}
	// A title the author's headline lacks drops the post after the fetch.
	pg, err = c.SearchPosts(ctx, pronet.SearchParams{Keywords: "go", AuthorTitle: "CFO"})
	if err != nil || len(pg.Items) != 0 {
		t.Errorf("title filter kept %d items (%v)", len(pg.Items), err)
	}
	if q := srv.Requests()[1].Query; q.Has("contentType") || q.Has("postedLimit") || q.Get("page") != "1" {
		t.Errorf("defaults sent %v", q)
	}
}

func TestSearchPostsRejects(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) { t.Error("asked the vendor") })
	c, _ := newClient(t, srv)
	for _, p := range []pronet.SearchParams{
		{},
		{Keywords: "x", DatePosted: "past-year"},
		{Keywords: "x", SortBy: "top"},
		{Keywords: "x", ContentType: "jobs"},
		{MentionsMember: []string{"jane"}},
		{MentionsOrganization: []string{"acme"}},
	} {
		if _, err := c.SearchPosts(context.Background(), p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func TestProfile(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, itemBody(profileItem))
	})
	c, _ := newClient(t, srv)
	ctx, m := metered()
	p, err := c.Profile(ctx, "williamhgates")
	if err != nil {
		t.Fatal(err)
	}
	if q := srv.Requests()[0]; q.Path != "/linkedin/profile" || q.Query.Get("publicIdentifier") != "williamhgates" {
		t.Errorf("request %s %v", q.Path, q.Query)
	}
	if m.Total() != 4000 {
		t.Errorf("cost %s", m.Total().USD())
	}
	if p.URN != "urn:li:fsd_profile:ACoAAA8BYqEBCGLg_vT_ca6mMEqkpp9nVffJ3hc" || p.ID != 0 || p.Username != "williamhgates" ||
		p.FirstName != "Bill" || p.Summary == "" || p.ConnectionCount != 8 || p.FollowerCount != 39000000 || !p.IsPremium || !p.IsCreator {
		t.Errorf("profile = %+v", p)
	}
	if p.Geo != (pronet.Geo{Country: "United States", CountryCode: "US", City: "Seattle", Full: "Seattle, Washington, United States"}) {
		t.Errorf("geo = %+v", p.Geo)
	}
	if fmt.Sprint(p.Languages) != "[English French]" {
		t.Errorf("languages = %v", p.Languages)
	}
	if len(p.Position) != 2 {
		t.Fatalf("positions = %+v", p.Position)
	}
	cur, past := p.Position[0], p.Position[1]
	if cur.CompanyName != "Gates Foundation" || cur.CompanyUsername != "gates-foundation" || cur.Title != "Co-chair" ||
		cur.Start != (pronet.YearMonth{Year: 2000}) || !cur.End.IsZero() {
		t.Errorf("current = %+v", cur)
	}
	if past.CompanyUsername != "microsoft" || past.Start != (pronet.YearMonth{Year: 1975, Month: 4}) || past.End != (pronet.YearMonth{Year: 2020, Month: 3}) {
		t.Errorf("past = %+v", past)
	}
	// An encoded id is looked up as profileId.
	if _, err := c.Profile(ctx, "ACoAAA8BYqEBCGLg_vT_ca6mMEqkpp9nVffJ3hc"); err != nil {
		t.Fatal(err)
	}
	if q := srv.Requests()[1].Query; q.Get("profileId") != "ACoAAA8BYqEBCGLg_vT_ca6mMEqkpp9nVffJ3hc" || q.Has("publicIdentifier") {
		t.Errorf("encoded id request %v", q)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		header   map[string]string
		body     string
		attempts int
		check    func(error) bool
	}{
		{"404", 404, nil, `{"error": "Profile not found", "status": 404}`, 1, isNotFound},
		{"400 not found", 400, nil, `{"error": "Bad Request", "message": "Profile not found", "status": 400}`, 1, isNotFound},
		{"200 not found", 200, nil, `{"status": 404, "error": {"error": "Not found"}, "element": null}`, 1, isNotFound},
		{"200 with an error", 200, nil, `{"status": 200, "error": "Scraping failed"}`, 1, upstream(200)},
		{"400", 400, nil, `{"error": "Invalid params"}`, 1, upstream(400)},
		{"401", 401, nil, `{"error": "Invalid API key", "status": 401}`, 1, upstream(401)},
		{"402", 402, nil, `{"error": "Not enough credits", "status": 402}`, 1, upstream(402)},
		{"403", 403, nil, `{"error": "Forbidden"}`, 1, upstream(403)},
		{"500", 500, nil, `{"error": "Internal"}`, 3, upstream(500)},
		{"not json", 200, nil, `<html>`, 1, upstream(200)},
		{"elements not a list", 200, nil, `{"elements": "<html>"}`, 1, upstream(200)},
		{"429 Retry-After", 429, map[string]string{"Retry-After": "2"}, `{"error": "Too many requests"}`, 1, rateLimited(2 * time.Second)},
		{"429 bare", 429, nil, `{"error": "Too many requests"}`, 1, rateLimited(60 * time.Second)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				sourcetest.JSON(w, tc.status, tc.body)
			})
			c, sl := newClient(t, srv)
			ctx, m := metered()
			_, err := c.Reactions(ctx, "7329207003942125568", 1, 0)
			if !tc.check(err) {
				t.Errorf("err = %v", err)
			}
			if got := len(srv.Requests()); got != tc.attempts || len(sl.Durations()) != tc.attempts-1 {
				t.Errorf("%d requests, %d sleeps", got, len(sl.Durations()))
			}
			if m.Calls() != 0 {
				t.Errorf("a failure was billed")
			}
			if err != nil && !strings.Contains(err.Error(), "harvestapi") {
				t.Errorf("error does not name the provider: %v", err)
			}
		})
	}
}

func isNotFound(err error) bool { return errors.Is(err, source.ErrNotFound) }

func upstream(status int) func(error) bool {
	return func(err error) bool {
		var ue *source.UpstreamError
		return errors.As(err, &ue) && ue.Status == status && ue.Source == harvestapi.Name
	}
}

func rateLimited(wait time.Duration) func(error) bool {
	return func(err error) bool {
		var rl *source.RateLimitError
		return errors.As(err, &rl) && rl.ResetAt.Equal(now.Add(wait))
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	for _, status := range []int{401, 500} {
		srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			sourcetest.JSON(w, status, `{"error": "key `+r.Header.Get("X-API-KEY")+` is not valid"}`)
		})
		c, _ := newClient(t, srv)
		_, err := c.Profile(context.Background(), "someone")
		if err == nil || strings.Contains(err.Error(), key) {
			t.Errorf("status %d: err = %v", status, err)
		}
		if err := c.Check(context.Background()); err == nil || strings.Contains(err.Error(), key) {
			t.Errorf("status %d: check = %v", status, err)
		}
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		status int
		ok     bool
	}{{200, true}, {404, true}, {401, false}, {403, false}, {402, false}}
	for _, tc := range cases {
		srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			sourcetest.JSON(w, tc.status, `{"status": `+strconv.Itoa(tc.status)+`}`)
		})
		c, _ := newClient(t, srv)
		ctx, m := metered()
		err := c.Check(ctx)
		if (err == nil) != tc.ok {
			t.Errorf("status %d: %v", tc.status, err)
		}
		if r := srv.Requests()[0]; r.Path != "/linkedin/test" || r.Header.Get("X-API-KEY") != key {
			t.Errorf("check asked %s", r.Path)
		}
		if m.Calls() != 0 {
			t.Error("check was billed")
		}
	}
	if c := harvestapi.New(harvestapi.Config{}); c.Name() != "harvestapi" {
		t.Errorf("name %s", c.Name())
	}
}

func TestMalformedAndSparse(t *testing.T) {
	ts := now.Add(-time.Hour)
	sparse := fmt.Sprintf(`{"id": "sparse-%s", "linkedinUrl": "https://www.linkedin.com/feed/update/urn:li:activity:%s/",
		"author": {"publicIdentifier": "jane", "name": "Jane", "linkedinUrl": "https://www.linkedin.com/in/jane"},
		"postedAt": {"date": %q}}`, idAt(ts), idAt(ts), ts.Format(time.RFC3339))
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, listBody([]string{`"<html>"`, postItem(idAt(ts), ts), `{"content": "no id"}`, sparse}, "null"))
	})
	c, _ := newClient(t, srv)
	ctx, m := metered()
	pg, err := c.SearchPosts(ctx, pronet.SearchParams{Keywords: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Items) != 2 {
		t.Fatalf("%d items", len(pg.Items))
	}
	s := pg.Items[1]
	if s.URN != idAt(ts) || s.TotalReactionCount != 0 || s.Author.Username != "jane" || s.Author.Headline != "" ||
		s.PostedDateTimestamp != ts.UnixMilli() || len(s.Image) != 0 || s.Article != nil {
		t.Errorf("sparse post = %+v", s)
	}
	if m.Total() != 4*2000 {
		t.Errorf("cost %s: the vendor bills every item it sends", m.Total().USD())
	}
}

func TestTimeoutSlowUpstream(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	c := harvestapi.New(harvestapi.Config{BaseURL: srv.URL, APIKey: key, HTTP: &http.Client{Timeout: 50 * time.Millisecond},
		Sleep: (&sourcetest.Sleeper{}).Sleep, Now: sourcetest.FixedClock(now)})
	_, err := c.Post(context.Background(), "1")
	var ue *source.UpstreamError
	if !errors.As(err, &ue) || ue.Status != 0 || len(srv.Requests()) != 3 {
		t.Errorf("err = %v after %d requests", err, len(srv.Requests()))
	}
}

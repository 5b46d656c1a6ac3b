package apify

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

var t0 = time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)

// sleeper records the waits the client asks for and never sleeps.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
	// onSleep, when set, decides the sleep's outcome.
	onSleep func(ctx context.Context) error
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	if s.onSleep != nil {
		return s.onSleep(ctx)
	}
	return ctx.Err()
}

func newTestClient(f *fakeApify, token string) (*Client, *sleeper) {
	s := &sleeper{}
	c := New(Config{BaseURL: f.srv.URL, Token: token, HTTP: f.srv.Client(), Sleep: s.sleep,
		Now: func() time.Time { return t0 }, PollInterval: 2 * time.Second})
	return c, s
}

func metered() (context.Context, *source.Meter) {
	m := &source.Meter{}
	return source.WithMeter(context.Background(), m), m
}

func TestProfileSync(t *testing.T) {
	f := newFake(t)
	f.actors["harvestapi~linkedin-profile-scraper"] = func(in map[string]any) ([]any, string, string) {
		ids := in["publicIdentifiers"].([]any)
		return []any{map[string]any{"id": "ACoAAA", "publicIdentifier": ids[0], "firstName": "Jane", "headline": "RevOps",
			"originalQuery": map[string]any{"publicIdentifier": ids[0]}}}, "", ""
	}
	c, _ := newTestClient(f, goodToken)
	ctx, m := metered()
	p, err := c.Profile(ctx, "jane")
	if err != nil {
		t.Fatal(err)
	}
	if p.Username != "jane" || p.FirstName != "Jane" {
		t.Errorf("profile = %+v", p)
	}
	if f.syncRuns["harvestapi~linkedin-profile-scraper"] != 1 || len(f.starts) != 0 {
		t.Errorf("sync runs %v, async %v", f.syncRuns, f.starts)
	}
	if got := f.inputs[0]["profileScraperMode"]; got != profileMode {
		t.Errorf("mode = %v", got)
	}
	if m.Total() != 4000 || m.Calls() != 1 {
		t.Errorf("cost = %d in %d calls, want 4000 in 1", m.Total(), m.Calls())
	}
}

func TestLookups(t *testing.T) {
	for _, tc := range []struct {
		name     string
		items    []any
		fail     string
		notFound bool
		upstream bool
	}{
		{name: "nothing pushed", items: nil, notFound: true},
		{name: "error item not found", items: []any{map[string]any{"error": "Profile not found", "originalQuery": map[string]any{}}}, notFound: true},
		{name: "error object 404", items: []any{map[string]any{"error": map[string]any{"status": 404, "message": "gone"}}}, notFound: true},
		{name: "error item failure", items: []any{map[string]any{"error": "internal vendor error"}}, upstream: true},
		{name: "malformed id", items: []any{map[string]any{"id": map[string]any{}, "publicIdentifier": map[string]any{}}}, upstream: true},
		{name: "not an object", items: []any{"<html>"}, upstream: true},
		{name: "run failed", fail: "FAILED", upstream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			fn := func(map[string]any) ([]any, string, string) { return tc.items, tc.fail, "boom" }
			f.actors["harvestapi~linkedin-profile-scraper"] = fn
			f.actors["harvestapi~linkedin-profile-posts"] = fn
			c, _ := newTestClient(f, goodToken)
			_, perr := c.Profile(context.Background(), "jane")
			_, qerr := c.Post(context.Background(), "7300000000000000001")
			for _, err := range []error{perr, qerr} {
				var ue *source.UpstreamError
				switch {
				case tc.notFound && !errors.Is(err, source.ErrNotFound):
					t.Errorf("err = %v, want not found", err)
				case tc.upstream && !errors.As(err, &ue):
					t.Errorf("err = %v, want UpstreamError", err)
				}
			}
		})
	}
}

func TestPostSyncInput(t *testing.T) {
	f := newFake(t)
	f.actors["harvestapi~linkedin-profile-posts"] = func(map[string]any) ([]any, string, string) {
		return []any{postItem(1, "x")}, "", ""
	}
	c, _ := newTestClient(f, goodToken)
	ctx, m := metered()
	p, err := c.Post(ctx, "7300000000000000001")
	if err != nil {
		t.Fatal(err)
	}
	if p.URN != "7300000000000000001" {
		t.Errorf("urn = %q", p.URN)
	}
	urls := f.inputs[0]["targetUrls"].([]any)
	if urls[0] != "https://www.linkedin.com/feed/update/urn:li:activity:7300000000000000001/" || f.inputs[0]["maxPosts"] != 1.0 {
		t.Errorf("input = %v", f.inputs[0])
	}
	if m.Total() != 2000 {
		t.Errorf("cost = %d", m.Total())
	}
}

func searchFake(t *testing.T, items []any) *fakeApify {
	f := newFake(t)
	f.actors["harvestapi~linkedin-post-search"] = func(map[string]any) ([]any, string, string) { return items, "", "" }
	return f
}

func TestSearchPollsThenPagesFromCachedDataset(t *testing.T) {
	f := searchFake(t, postItems(100))
	f.pollsBeforeDone = 3
	c, s := newTestClient(f, goodToken) // its clock (t0) is far from the wall clock of ctx's deadline
	ctx, m := metered()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	p1, err := c.SearchPosts(ctx, pronet.SearchParams{Keywords: `"crm"`, DatePosted: pronet.DatePastWeek, SortBy: pronet.SortDate, Page: 1})
	if err != nil {
		t.Fatal(err)
	}
	// A full chunk of 100: one more may follow, so Total says at least 101.
	if len(p1.Items) != 10 || p1.Total != 101 || p1.TotalPage != 11 || p1.CurrentPage != 1 {
		t.Fatalf("page 1: %d items, total %d/%d pages", len(p1.Items), p1.Total, p1.TotalPage)
	}
	if len(s.waits) != 3 || s.waits[0] != 2*time.Second {
		t.Errorf("sleeps = %v, want 3 × 2s", s.waits)
	}
	if f.waits[0] != "18" && f.waits[0] != "19" {
		t.Errorf("waitForFinish = %s, want 19 (deadline 20 s less 1)", f.waits[0])
	}
	in := f.inputs[0]
	if in["postedLimit"] != "week" || in["sortBy"] != "date" || in["maxPosts"] != 100.0 || in["searchQueries"].([]any)[0] != `"crm"` ||
		in["startPage"] != 1.0 || in["scrapePages"] != 2.0 {
		t.Errorf("input = %v", in)
	}
	p2, err := c.SearchPosts(ctx, pronet.SearchParams{Keywords: `"crm"`, DatePosted: pronet.DatePastWeek, SortBy: pronet.SortDate, Page: 2})
	if err != nil {
		t.Fatal(err)
	}
	if f.starts["harvestapi~linkedin-post-search"] != 1 {
		t.Errorf("runs = %d, want 1 (page 2 from the dataset)", f.starts["harvestapi~linkedin-post-search"])
	}
	if p2.Items[0].URN != "7300000000000000010" || p2.CurrentPage != 2 {
		t.Errorf("page 2 starts at %s", p2.Items[0].URN)
	}
	if got := strings.Join(f.itemReads, " "); got != "ds1@0+10 ds1@10+10" {
		t.Errorf("dataset reads = %s", got)
	}
	if m.Calls() != 1 || m.Total() != 100*2000 {
		t.Errorf("cost = %d in %d calls, want %d in 1", m.Total(), m.Calls(), 100*2000)
	}
}

func TestSearchFiltersAfterFetch(t *testing.T) {
	items := postItems(12)
	items[3] = postItem(3, "Recruiter")
	company := postItem(4, "Head of RevOps")
	company["author"].(map[string]any)["type"] = "company"
	items[4] = company
	items[0] = "<html>" // malformed: skipped
	f := searchFake(t, items)
	c, _ := newTestClient(f, goodToken)
	page, err := c.SearchPosts(context.Background(), pronet.SearchParams{Keywords: "crm", AuthorTitle: "revops", Page: 1})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 9 || len(page.Items) != 9 {
		t.Fatalf("total %d, %d items, want 9", page.Total, len(page.Items))
	}
	for _, p := range page.Items {
		if p.URN == "7300000000000000003" || p.URN == "7300000000000000004" {
			t.Errorf("%s should have been filtered out", p.URN)
		}
	}
}

func TestSearchUnsupported(t *testing.T) {
	f := searchFake(t, postItems(1))
	c, _ := newTestClient(f, goodToken)
	for _, p := range []pronet.SearchParams{
		{MentionsMember: []string{"urn:li:member:1"}},
		{Keywords: "crm", MentionsOrganization: []string{"1035"}},
		{Keywords: "crm", ContentType: "liveVideos"},
		{Keywords: "crm", ContentType: "collaborativeArticles"},
	} {
		_, err := c.SearchPosts(context.Background(), p)
		if !errors.Is(err, pronet.ErrUnsupported) || !strings.Contains(err.Error(), "apify") {
			t.Errorf("%+v: err = %v, want ErrUnsupported naming apify", p, err)
		}
	}
	if len(f.starts) != 0 {
		t.Errorf("an unsupported search ran an actor")
	}
}

func TestMalformedListItemsSkipped(t *testing.T) {
	items := postItems(5)
	items[0] = "<html>"
	bad := postItem(2, "x")
	bad["id"] = map[string]any{}
	items[2] = bad
	f := searchFake(t, items)
	c, _ := newTestClient(f, goodToken)
	page, err := c.SearchPosts(context.Background(), pronet.SearchParams{Keywords: "crm"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 3 {
		t.Errorf("%d items, want the 3 well-formed", len(page.Items))
	}
}

func TestRunFailed(t *testing.T) {
	f := newFake(t)
	f.actors["harvestapi~linkedin-post-comments"] = func(map[string]any) ([]any, string, string) {
		return nil, "FAILED", "LinkedIn answered 500"
	}
	f.pollsBeforeDone = 1
	c, _ := newTestClient(f, goodToken)
	_, err := c.Comments(context.Background(), "7300000000000000001", 1, 0)
	var ue *source.UpstreamError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "LinkedIn answered 500") || !strings.Contains(err.Error(), "FAILED") {
		t.Errorf("err = %v, want UpstreamError with the status message", err)
	}
}

func TestContextEndAbortsRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		want error
	}{{"cancelled", context.Canceled}, {"deadline", context.DeadlineExceeded}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.actors["harvestapi~linkedin-post-reactions"] = func(map[string]any) ([]any, string, string) { return []any{reactionItem(1)}, "", "" }
			f.pollsBeforeDone = 1000
			c, s := newTestClient(f, goodToken)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			polls := 0
			s.onSleep = func(ctx context.Context) error {
				polls++
				if polls < 3 {
					return nil
				}
				if tc.want == context.Canceled {
					cancel()
					return ctx.Err()
				}
				return context.DeadlineExceeded // the lease ran out while waiting
			}
			m := &source.Meter{}
			ctx = source.WithMeter(ctx, m)
			_, err := c.Reactions(ctx, "7300000000000000001", 1, 0)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if len(f.aborts) != 1 || f.aborts[0] != "run1" {
				t.Errorf("aborts = %v, want [run1]", f.aborts)
			}
			if m.Calls() != 0 {
				t.Errorf("an aborted run added cost")
			}
		})
	}
}

func TestCommentsAndReactionsPaging(t *testing.T) {
	f := newFake(t)
	comments := make([]any, 150)
	for i := range comments {
		comments[i] = commentItem(i)
	}
	reactions := make([]any, 30)
	for i := range reactions {
		reactions[i] = reactionItem(i)
	}
	f.actors["harvestapi~linkedin-post-comments"] = func(map[string]any) ([]any, string, string) { return comments, "", "" }
	f.actors["harvestapi~linkedin-post-reactions"] = func(map[string]any) ([]any, string, string) { return reactions, "", "" }
	c, _ := newTestClient(f, goodToken)
	ctx, m := metered()
	p1, err := c.Comments(ctx, "7300000000000000001", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := c.Comments(ctx, "7300000000000000001", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p1.Comments) != 100 || len(p2.Comments) != 50 || p2.Total != 150 || p2.TotalPage != 2 || p2.Comments[0].URN != "c100" {
		t.Errorf("pages: %d + %d comments, total %d in %d pages", len(p1.Comments), len(p2.Comments), p2.Total, p2.TotalPage)
	}
	if p1.Comments[0].Replies == nil {
		t.Errorf("replies nil, want []")
	}
	r2, err := c.Reactions(ctx, "7300000000000000001", 2, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Items) != 10 || r2.Total != 30 || r2.TotalPage != 2 || r2.Items[0].ReactionType != "LIKE" {
		t.Errorf("reactions page 2: %+v", r2)
	}
	if f.starts["harvestapi~linkedin-post-comments"] != 1 || f.starts["harvestapi~linkedin-post-reactions"] != 1 {
		t.Errorf("runs = %v", f.starts)
	}
	if want := source.Micros(180 * 2000); m.Total() != want || m.Calls() != 2 {
		t.Errorf("cost = %d in %d calls, want %d in 2", m.Total(), m.Calls(), want)
	}
	if in := f.inputs[0]; in["maxItems"] != float64(commentsRunItems) || in["posts"].([]any)[0] != postURL("7300000000000000001") {
		t.Errorf("comments input = %v", in)
	}
}

func TestProfilePostsAfterAndToken(t *testing.T) {
	f := newFake(t)
	items := postItems(80) // timestamps 1764000000000 + i s
	f.actors["harvestapi~linkedin-profile-posts"] = func(map[string]any) ([]any, string, string) { return items, "", "" }
	c, _ := newTestClient(f, goodToken)
	after := time.UnixMilli(1764000000000 + 9*1000)
	posts, next, err := c.ProfilePosts(context.Background(), pronet.ProfilePostsParams{Username: "jane", After: after})
	if err != nil {
		t.Fatal(err)
	}
	// Pages are slices of 50 of the chunk's dataset, less the posts at or before After.
	if len(posts) != 40 || next != "50" || posts[0].URN != "7300000000000000010" {
		t.Fatalf("%d posts, next %q, first %s", len(posts), next, posts[0].URN)
	}
	rest, next, err := c.ProfilePosts(context.Background(), pronet.ProfilePostsParams{Username: "jane", After: after, PaginationToken: "50"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 30 || next != "" {
		t.Errorf("page 2: %d posts, next %q", len(rest), next)
	}
	if f.starts["harvestapi~linkedin-profile-posts"] != 1 {
		t.Errorf("runs = %v", f.starts)
	}
	in := f.inputs[0]
	if in["postedLimitDate"] != "2025-11-24" || in["targetUrls"].([]any)[0] != "https://www.linkedin.com/in/jane/" ||
		in["page"] != 1.0 || in["scrapePages"] != 5.0 || in["maxPosts"] != 100.0 {
		t.Errorf("input = %v", in)
	}
	if _, _, err := c.ProfilePosts(context.Background(), pronet.ProfilePostsParams{Username: "jane", PaginationToken: "abc"}); err == nil {
		t.Errorf("a foreign token was accepted")
	}
}

func TestCompanyPosts(t *testing.T) {
	f := newFake(t)
	f.actors["harvestapi~linkedin-profile-posts"] = func(map[string]any) ([]any, string, string) { return postItems(3), "", "" }
	c, _ := newTestClient(f, goodToken)
	posts, err := c.CompanyPosts(context.Background(), "acme")
	if err != nil || len(posts) != 3 {
		t.Fatalf("%d posts, %v", len(posts), err)
	}
	if u := f.inputs[0]["targetUrls"].([]any)[0]; u != "https://www.linkedin.com/company/acme/" {
		t.Errorf("url = %v", u)
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name   string
		token  string
		setup  func(*fakeApify)
		actors map[string]string
		check  func(t *testing.T, err error, s *sleeper)
	}{
		{name: "401", token: "invalid-token-SECRET", check: func(t *testing.T, err error, _ *sleeper) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != http.StatusUnauthorized {
				t.Errorf("err = %v, want UpstreamError 401", err)
			}
		}},
		{name: "404 actor", token: goodToken, actors: map[string]string{pronet.OpProfile: "nobody~nothing"}, check: func(t *testing.T, err error, _ *sleeper) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != http.StatusNotFound || !strings.Contains(err.Error(), "nobody~nothing") || errors.Is(err, source.ErrNotFound) {
				t.Errorf("err = %v, want UpstreamError 404 naming the actor", err)
			}
		}},
		{name: "429 retry-after", token: goodToken, setup: func(f *fakeApify) { f.status429, f.retryAfter = true, "2" }, check: func(t *testing.T, err error, _ *sleeper) {
			var rl *source.RateLimitError
			if !errors.As(err, &rl) || !rl.ResetAt.Equal(t0.Add(2*time.Second)) {
				t.Errorf("err = %v, want RateLimitError at now+2s", err)
			}
		}},
		{name: "429 bare", token: goodToken, setup: func(f *fakeApify) { f.status429 = true }, check: func(t *testing.T, err error, _ *sleeper) {
			var rl *source.RateLimitError
			if !errors.As(err, &rl) || !rl.ResetAt.Equal(t0.Add(60*time.Second)) {
				t.Errorf("err = %v, want RateLimitError at now+60s", err)
			}
		}},
		{name: "5xx then ok", token: goodToken, setup: func(f *fakeApify) { f.status5xx = 2 }, check: func(t *testing.T, err error, s *sleeper) {
			if err != nil || len(s.waits) != 2 {
				t.Errorf("err = %v after %v, want success after two retries", err, s.waits)
			}
		}},
		{name: "5xx always", token: goodToken, setup: func(f *fakeApify) { f.status5xx = 10 }, check: func(t *testing.T, err error, _ *sleeper) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != http.StatusServiceUnavailable {
				t.Errorf("err = %v, want UpstreamError 503", err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.actors["harvestapi~linkedin-profile-scraper"] = func(map[string]any) ([]any, string, string) {
				return []any{map[string]any{"id": "1", "publicIdentifier": "jane"}}, "", ""
			}
			if tc.setup != nil {
				tc.setup(f)
			}
			s := &sleeper{}
			c := New(Config{BaseURL: f.srv.URL, Token: tc.token, HTTP: f.srv.Client(), Sleep: s.sleep,
				Now: func() time.Time { return t0 }, Actors: tc.actors})
			_, err := c.Profile(context.Background(), "jane")
			tc.check(t, err, s)
			if err != nil && (strings.Contains(err.Error(), tc.token) || strings.Contains(err.Error(), "SECRET")) {
				t.Errorf("error carries the token: %v", err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	f := newFake(t)
	good, _ := newTestClient(f, goodToken)
	if err := good.Check(context.Background()); err != nil {
		t.Errorf("good token: %v", err)
	}
	for _, tok := range []string{"", "invalid-SECRET-token"} {
		bad, _ := newTestClient(f, tok)
		err := bad.Check(context.Background())
		var ue *source.UpstreamError
		if !errors.As(err, &ue) || ue.Status != 401 || !strings.Contains(err.Error(), "apify") {
			t.Errorf("token %q: err = %v, want 401 naming apify", tok, err)
		}
		if tok != "" && strings.Contains(err.Error(), tok) {
			t.Errorf("error carries the token")
		}
	}
	if good.Name() != "apify" {
		t.Errorf("name = %q", good.Name())
	}
}

func TestParseActors(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    map[string]string
		wantErr bool
	}{
		{in: "", want: map[string]string{}},
		{in: "search=me~my-search, profile=me/profiles", want: map[string]string{pronet.OpSearch: "me~my-search", pronet.OpProfile: "me~profiles"}},
		{in: "post=AbCdEfGhIjKlMnOpQ", want: map[string]string{pronet.OpPost: "AbCdEfGhIjKlMnOpQ"}},
		{in: "jobs=me~x", wantErr: true},
		{in: "search", wantErr: true},
		{in: "search=not an actor", wantErr: true},
		{in: "search=a~b,search=c~d", wantErr: true},
	} {
		got, err := ParseActors(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: err = %v", tc.in, err)
			continue
		}
		if !tc.wantErr && len(got) != len(tc.want) {
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%q: %s = %q, want %q", tc.in, k, got[k], v)
			}
		}
	}
	if len(DefaultActors()) != len(pronet.Ops()) || len(DefaultPrices()) != len(pronet.Ops()) {
		t.Errorf("defaults do not cover every op")
	}
}

func TestRunCache(t *testing.T) {
	now := t0
	rc := newRunCache(2, time.Minute, func() time.Time { return now })
	rc.put("a", datasetRef{ID: "1"})
	rc.put("b", datasetRef{ID: "2"})
	rc.get("a")
	rc.put("c", datasetRef{ID: "3"}) // evicts b, the least recently used
	if _, ok := rc.get("b"); ok || rc.len() != 2 {
		t.Errorf("b kept, len %d", rc.len())
	}
	now = now.Add(time.Minute)
	if _, ok := rc.get("a"); ok {
		t.Errorf("expired entry served")
	}
}

func TestFailedRunIsBadGatewayRetriedOnce(t *testing.T) {
	for _, tc := range []struct {
		name, status string
		call         func(c *Client) error
		runs         func(f *fakeApify) int
	}{
		{"async FAILED", "FAILED", func(c *Client) error {
			_, err := c.Comments(context.Background(), "7300000000000000001", 1, 0)
			return err
		}, func(f *fakeApify) int { return f.starts["harvestapi~linkedin-post-comments"] }},
		{"async TIMED-OUT", "TIMED-OUT", func(c *Client) error {
			_, err := c.Comments(context.Background(), "7300000000000000001", 1, 0)
			return err
		}, func(f *fakeApify) int { return f.starts["harvestapi~linkedin-post-comments"] }},
		{"sync run-failed", "FAILED", func(c *Client) error {
			_, err := c.Profile(context.Background(), "jane")
			return err
		}, func(f *fakeApify) int { return f.syncRuns["harvestapi~linkedin-profile-scraper"] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			fail := func(map[string]any) ([]any, string, string) { return nil, tc.status, "LinkedIn answered 500" }
			f.actors["harvestapi~linkedin-post-comments"] = fail
			f.actors["harvestapi~linkedin-profile-scraper"] = fail
			c, s := newTestClient(f, goodToken)
			err := tc.call(c)
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != http.StatusBadGateway {
				t.Fatalf("err = %v, want an UpstreamError with status 502", err)
			}
			if n := tc.runs(f); n != 2 {
				t.Errorf("runs = %d, want 2 (one retry)", n)
			}
			if len(s.waits) != 1 || s.waits[0] != source.DefaultBaseDelay {
				t.Errorf("sleeps = %v, want one of the retry policy's base delay", s.waits)
			}
		})
	}
}

func TestProfilePostsChunks(t *testing.T) {
	f := newFake(t)
	all := postItems(130)
	f.actors["harvestapi~linkedin-profile-posts"] = func(in map[string]any) ([]any, string, string) {
		start := int(in["page"].(float64)-1) * profilePostsPageSize
		return all[min(start, len(all)):min(start+profilePostsRunItems, len(all))], "", ""
	}
	c, _ := newTestClient(f, goodToken)
	var got int
	q := pronet.ProfilePostsParams{Username: "jane"}
	for range 10 {
		posts, next, err := c.ProfilePosts(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		got += len(posts)
		if next == "" {
			break
		}
		q.PaginationToken = next
	}
	if got != 130 || f.starts["harvestapi~linkedin-profile-posts"] != 2 {
		t.Errorf("%d posts in %d runs, want 130 in 2", got, f.starts["harvestapi~linkedin-profile-posts"])
	}
	if in := f.inputs[1]; in["page"] != 6.0 || in["scrapePages"] != 5.0 {
		t.Errorf("second chunk input = %v, want page 6 over 5 pages", in)
	}
}

// TestWaitForFinishOnAnotherClock: the wait asked of Apify is what is left of the deadline of
// ctx, on the real clock, whatever the injected clock says (a test's fake clock days ahead
// or behind), and Apify's most without a deadline.
func TestWaitForFinishOnAnotherClock(t *testing.T) {
	for _, tc := range []struct {
		name string
		now  time.Time
	}{{"days ahead", time.Now().Add(72 * time.Hour)}, {"days behind", time.Now().Add(-72 * time.Hour)}} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Config{BaseURL: "http://127.0.0.1:1", Token: goodToken, Now: func() time.Time { return tc.now }})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if w := c.waitSeconds(ctx); w != 28 && w != 29 {
				t.Errorf("waitForFinish = %d, want 29 (deadline 30 s less 1)", w)
			}
			if w := c.waitSeconds(context.Background()); w != maxWaitForFinish {
				t.Errorf("without a deadline: waitForFinish = %d, want %d", w, maxWaitForFinish)
			}
		})
	}
}

// TestConcurrentCallsShareARun: a call asking for the input of a run under way waits for it and
// reads its dataset; the actor runs (and is paid for) once.
func TestConcurrentCallsShareARun(t *testing.T) {
	f := searchFake(t, postItems(100))
	f.pollsBeforeDone = 1
	entered, release := make(chan struct{}), make(chan struct{})
	c := New(Config{BaseURL: f.srv.URL, Token: goodToken, HTTP: f.srv.Client(), Now: func() time.Time { return t0 },
		PollInterval: time.Second, Sleep: func(ctx context.Context, _ time.Duration) error {
			entered <- struct{}{} // the leader is between two polls of its run
			<-release
			return nil
		}})
	params := func(page int) pronet.SearchParams {
		return pronet.SearchParams{Keywords: `"crm"`, DatePosted: pronet.DatePastWeek, Page: page}
	}
	ctx, m := metered()
	type result struct {
		page pronet.SearchPage
		err  error
	}
	first, second := make(chan result, 1), make(chan result, 1)
	go func() { p, err := c.SearchPosts(ctx, params(1)); first <- result{p, err} }()
	<-entered
	go func() { p, err := c.SearchPosts(ctx, params(2)); second <- result{p, err} }()
	for deadline := time.Now().Add(10 * time.Second); c.flight.sharedRuns() == 0; runtime.Gosched() {
		if time.Now().After(deadline) { // the second call started a run of its own
			close(release)
			t.Fatalf("the second call did not wait for the run under way (runs %d)", f.starts["harvestapi~linkedin-post-search"])
		}
	}
	close(release)
	a, b := <-first, <-second
	if a.err != nil || b.err != nil {
		t.Fatalf("errors %v, %v", a.err, b.err)
	}
	if f.starts["harvestapi~linkedin-post-search"] != 1 {
		t.Errorf("runs = %d, want 1", f.starts["harvestapi~linkedin-post-search"])
	}
	if len(a.page.Items) != 10 || len(b.page.Items) != 10 || a.page.Items[0].URN == b.page.Items[0].URN {
		t.Errorf("pages %d and %d items, first %s and %s", len(a.page.Items), len(b.page.Items), a.page.Items[0].URN, b.page.Items[0].URN)
	}
	if m.Calls() != 1 {
		t.Errorf("billed %d times, want once", m.Calls())
	}
}

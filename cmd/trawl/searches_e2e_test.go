package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
)

type savedSearch struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Status       string  `json:"status"`
	TotalResults int64   `json:"total_results"`
	LastResultAt *string `json:"last_result_at"`
	LastRunAt    *string `json:"last_run_at"`
	NextRunAt    *string `json:"next_run_at"`
	Query        struct {
		Keywords       []string `json:"keywords"`
		MonitoringType string   `json:"monitoring_type"`
		ProfileURL     string   `json:"profile_url"`
	} `json:"query"`
	Filters struct {
		TimeFrame  string `json:"time_frame"`
		MaxResults int    `json:"max_results"`
		Frequency  string `json:"frequency"`
		SearchType string `json:"search_type"`
	} `json:"filters"`
	Stats *struct {
		ResultsToday    int64 `json:"results_today"`
		ResultsThisWeek int64 `json:"results_this_week"`
	} `json:"stats"`
	CreditsCharged *int64 `json:"credits_charged"`
}

type resultItem struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Author struct {
		Username   string `json:"username"`
		ProfileURL string `json:"profile_url"`
		Followers  *int   `json:"followers"`
	} `json:"author"`
	Content struct {
		Text  string `json:"text"`
		URL   string `json:"url"`
		Media []any  `json:"media"`
	} `json:"content"`
	PublishedAt string `json:"published_at"`
	CollectedAt string `json:"collected_at"`
}

type pageInfo struct {
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
	TotalCount *int64  `json:"total_count"`
}

func mustDo(t *testing.T, c *client.Client, method, path string, body any, wantStatus int) *client.Response {
	t.Helper()
	r, err := c.Do(context.Background(), method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != wantStatus {
		t.Fatalf("%s %s = %d %s, want %d", method, path, r.Status, r.Body, wantStatus)
	}
	return r
}

func createSearch(t *testing.T, c *client.Client, body any) savedSearch {
	t.Helper()
	r := mustDo(t, c, http.MethodPost, "/v1/searches/microblog/posts", body, 201)
	var s savedSearch
	if err := r.Data(&s); err != nil {
		t.Fatal(err)
	}
	if r.Header.Get("x-spent-credits") != "1" {
		t.Fatalf("creation spent %q credits, want 1", r.Header.Get("x-spent-credits"))
	}
	return s
}

func getSearch(t *testing.T, c *client.Client, id string) savedSearch {
	t.Helper()
	var s savedSearch
	if err := mustDo(t, c, http.MethodGet, "/v1/searches/"+id, nil, 200).Data(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func pageResults(t *testing.T, c *client.Client, id, query string) ([]resultItem, pageInfo) {
	t.Helper()
	r := mustDo(t, c, http.MethodGet, "/v1/searches/"+id+"/results"+query, nil, 200)
	var body struct {
		Data       []resultItem `json:"data"`
		Pagination pageInfo     `json:"pagination"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Data, body.Pagination
}

func TestKeywordSearchLifecycle(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		s := createSearch(t, c, map[string]any{"name": "CRM watch", "keywords": []string{"CRM", "RevOps"}, "max_results": 30, "frequency": "daily", "search_type": "latest"})
		if s.Status != "active" || s.Query.MonitoringType != "microblog-posts" || s.Filters.Frequency != "DAILY" ||
			s.Filters.SearchType != "Latest" || s.Filters.TimeFrame != "past-week" || s.CreditsCharged == nil || *s.CreditsCharged != 1 {
			t.Fatalf("created search = %+v", s)
		}

		var run struct {
			NewResults   int   `json:"new_results"`
			TotalResults int64 `json:"total_results"`
		}
		if err := mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 200).Data(&run); err != nil {
			t.Fatal(err)
		}
		// The run that creation started may have stored some or all of them
		// first.
		if run.TotalResults == 0 || run.TotalResults > 30 || int64(run.NewResults) > run.TotalResults {
			t.Fatalf("first run = %+v, want 1-30 results, at most all of them new", run)
		}
		// A second run right away finds nothing new: the watermark and the
		// unique key keep each post once.
		if err := mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 200).Data(&run); err != nil {
			t.Fatal(err)
		}
		if run.NewResults != 0 {
			t.Fatalf("second run stored %d posts again", run.NewResults)
		}

		got := getSearch(t, c, s.ID)
		if got.TotalResults != run.TotalResults || got.LastResultAt == nil || got.Stats == nil || got.Stats.ResultsToday != got.TotalResults || got.Stats.ResultsThisWeek != got.TotalResults {
			t.Fatalf("search after runs = %+v", got)
		}

		// Page through the results, newest first, 7 at a time.
		seen := map[string]bool{}
		var prev string
		cursor := ""
		for pages := 0; ; pages++ {
			q := "?limit=7"
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			items, pg := pageResults(t, c, s.ID, q)
			if pg.TotalCount == nil || *pg.TotalCount != got.TotalResults {
				t.Fatalf("total_count = %v, want %d", pg.TotalCount, got.TotalResults)
			}
			for _, it := range items {
				if seen[it.ID] {
					t.Fatalf("result %s on two pages", it.ID)
				}
				seen[it.ID] = true
				if prev != "" && it.PublishedAt > prev {
					t.Fatalf("results not newest first: %s after %s", it.PublishedAt, prev)
				}
				prev = it.PublishedAt
				if it.Source != "microblog" || it.Author.Username == "" || !strings.Contains(it.Content.URL, "/status/") {
					t.Fatalf("result not in the standard shape: %+v", it)
				}
				text := strings.ToLower(it.Content.Text)
				if !strings.Contains(text, "crm") && !strings.Contains(text, "revops") {
					t.Fatalf("result %q matches neither keyword", it.Content.Text)
				}
			}
			if !pg.HasMore {
				break
			}
			cursor = *pg.NextCursor
			if pages > 10 {
				t.Fatal("paging does not end")
			}
		}
		if int64(len(seen)) != got.TotalResults {
			t.Fatalf("paged %d results, total_results %d", len(seen), got.TotalResults)
		}

		// Pause, resume, rename, change the frequency.
		var patched savedSearch
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"status": "paused"}, 200).Data(&patched)
		if patched.Status != "paused" || patched.NextRunAt != nil || patched.Stats != nil {
			t.Fatalf("paused search = %+v", patched)
		}
		if e := mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 409).Err(); e.Code != "CONFLICT" {
			t.Fatalf("run of a paused search: %+v", e)
		}
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"status": "active", "name": "CRM + RevOps", "filters": map[string]any{"frequency": "WEEKLY", "max_results": 40}}, 200).Data(&patched)
		if patched.Status != "active" || patched.Name != "CRM + RevOps" || patched.Filters.Frequency != "WEEKLY" || patched.Filters.MaxResults != 40 || patched.NextRunAt == nil {
			t.Fatalf("resumed search = %+v", patched)
		}

		var list struct {
			Data       []savedSearch `json:"data"`
			Pagination pageInfo      `json:"pagination"`
		}
		json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/searches?status=active", nil, 200).Body, &list)
		if len(list.Data) != 1 || list.Data[0].ID != s.ID || list.Pagination.HasMore {
			t.Fatalf("list = %+v", list)
		}

		var del struct {
			ID      string `json:"id"`
			Deleted bool   `json:"deleted"`
		}
		mustDo(t, c, http.MethodDelete, "/v1/searches/"+s.ID, nil, 200).Data(&del)
		if del.ID != s.ID || !del.Deleted {
			t.Fatalf("delete = %+v", del)
		}
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			mustDo(t, c, m, "/v1/searches/"+s.ID, nil, 404)
		}
		mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 404)
		mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID+"/results", nil, 404)

		var u client.Usage
		u, err := c.Usage(context.Background(), "", "")
		if err != nil || u.Credits.ByFeature["search_create"] != 1 || u.Monitors.Total != 0 || u.Results.TotalCollected != got.TotalResults {
			t.Fatalf("usage = %+v, %v", u, err)
		}
	})
}

func TestProfileMonitorAndPreviews(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		r := mustDo(t, c, http.MethodPost, "/v1/searches/microblog/profile", map[string]any{"name": "Jack", "profile_url": "https://twitter.com/jack/", "max_results": 10}, 201)
		var s savedSearch
		r.Data(&s)
		if s.Query.MonitoringType != "microblog-profile" || s.Query.ProfileURL != "https://x.com/jack" {
			t.Fatalf("profile monitor = %+v", s)
		}
		var run struct {
			NewResults int `json:"new_results"`
		}
		mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 200).Data(&run)
		items, _ := pageResults(t, c, s.ID, "")
		// The run that creation started may have collected them first.
		if len(items) == 0 || run.NewResults > len(items) {
			t.Fatalf("profile run collected %d, results %d", run.NewResults, len(items))
		}
		for _, it := range items {
			if it.Author.Username != "jack" {
				t.Fatalf("profile monitor collected a post by @%s", it.Author.Username)
			}
		}

		var preview struct {
			Data []resultItem `json:"data"`
			Meta struct {
				Count          int    `json:"count"`
				TotalAvailable int    `json:"total_available"`
				MonitoringType string `json:"monitoring_type"`
			} `json:"meta"`
		}
		r = mustDo(t, c, http.MethodPost, "/v1/searches/microblog/posts/preview", map[string]any{"keywords": []string{"sales"}, "max_results": 10, "frequency": "HOURLY"}, 200)
		json.Unmarshal(r.Body, &preview)
		if preview.Meta.MonitoringType != "microblog-posts" || preview.Meta.Count != len(preview.Data) || preview.Meta.Count == 0 || preview.Meta.Count > 10 {
			t.Fatalf("posts preview meta = %+v", preview.Meta)
		}
		r = mustDo(t, c, http.MethodPost, "/v1/searches/microblog/profile/preview", map[string]any{"name": "x", "profile_url": "https://x.com/jack"}, 200)
		json.Unmarshal(r.Body, &preview)
		if preview.Meta.MonitoringType != "microblog-profile" || preview.Meta.Count == 0 {
			t.Fatalf("profile preview meta = %+v", preview.Meta)
		}
		mustDo(t, c, http.MethodPost, "/v1/searches/microblog/profile/preview", map[string]any{"profile_url": "https://x.com/missing_person"}, 404)
		mustDo(t, c, http.MethodPost, "/v1/searches/microblog/posts/preview", map[string]any{"from_users": []string{"error_upstream"}}, 502)

		// Previews create nothing and cost nothing.
		u, _ := c.Usage(context.Background(), "", "")
		if u.Credits.TotalConsumed != 1 || u.Monitors.Total != 1 {
			t.Fatalf("usage after previews = %+v", u)
		}
	})
}

func TestSearchValidation(t *testing.T) {
	ts := startServer(t, serverEnv(t, store.SQLite, nil))
	c := ts.Client
	cases := []struct {
		name  string
		path  string
		body  string
		field string
	}{
		{"missing name", "/v1/searches/microblog/posts", `{"keywords": ["a"]}`, "body.name"},
		{"long name", "/v1/searches/microblog/posts", `{"name": "` + strings.Repeat("n", 256) + `", "keywords": ["a"]}`, "body.name"},
		{"11 keywords", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a","b","c","d","e","f","g","h","i","j","k"]}`, "body.keywords"},
		{"11 in total", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a","b","c","d","e"], "keywords_and": ["f","g","h"], "keywords_not": ["i","j","k"]}`, "body.keywords"},
		{"no keywords nor operator", "/v1/searches/microblog/posts", `{"name": "x", "verified_only": true}`, "body.keywords"},
		{"only exclusions", "/v1/searches/microblog/posts", `{"name": "x", "keywords_not": ["spam"]}`, "body.keywords"},
		{"empty keyword", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["ok", " "]}`, "body.keywords[1]"},
		{"max_results low", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "max_results": 9}`, "body.max_results"},
		{"max_results high", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "max_results": 101}`, "body.max_results"},
		{"frequency", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "frequency": "YEARLY"}`, "body.frequency"},
		{"time_frame", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "time_frame": "yesterday"}`, "body.time_frame"},
		{"search_type", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "search_type": "Best"}`, "body.search_type"},
		{"has_media", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "has_media": "gif"}`, "body.has_media"},
		{"username", "/v1/searches/microblog/posts", `{"name": "x", "from_users": ["not a user"]}`, "body.from_users[0]"},
		{"country", "/v1/searches/microblog/posts", `{"name": "x", "place_country": "USA"}`, "body.place_country"},
		{"language", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "microblog_language": "english!"}`, "body.microblog_language"},
		{"conversation id", "/v1/searches/microblog/posts", `{"name": "x", "conversation_id": "abc"}`, "body.conversation_id"},
		{"wrong type", "/v1/searches/microblog/posts", `{"name": "x", "keywords": "a"}`, "body.keywords"},
		{"unknown field", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "colour": "red"}`, "body.colour"},
		{"query too long", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["` + strings.Repeat("a", 300) + `", "` + strings.Repeat("b", 300) + `"]}`, "body.keywords"},
		{"profile url host", "/v1/searches/microblog/profile", `{"name": "x", "profile_url": "https://facebook.com/jack"}`, "body.profile_url"},
		{"profile url missing", "/v1/searches/microblog/profile", `{"name": "x"}`, "body.profile_url"},
		{"profile keywords", "/v1/searches/microblog/profile", `{"name": "x", "profile_url": "https://x.com/jack", "keywords": ["a"]}`, "body.keywords"},
		{"preview validates too", "/v1/searches/microblog/posts/preview", `{"keywords": ["a"], "max_results": 1000}`, "body.max_results"},
	}
	for _, tc := range cases {
		r := mustDo(t, c, http.MethodPost, tc.path, tc.body, 400)
		e := r.Err()
		if e.Code != "VALIDATION_ERROR" || !e.HasField(tc.field) {
			t.Errorf("%s: %s, want VALIDATION_ERROR naming %s", tc.name, r.Body, tc.field)
		}
	}
	s := createSearch(t, c, map[string]any{"name": "x", "keywords": []string{"a"}})
	for _, tc := range []struct{ body, field string }{
		{`{"status": "deleted"}`, "body.status"},
		{`{"name": ""}`, "body.name"},
		{`{"filters": {"max_results": 5}}`, "body.filters.max_results"},
		{`{"filters": {"frequency": "sometimes"}}`, "body.filters.frequency"},
		{`{"social_saved_search_id": "x"}`, "body.social_saved_search_id"},
	} {
		if e := mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, tc.body, 400).Err(); !e.HasField(tc.field) {
			t.Errorf("PATCH %s: %+v, want a detail naming %s", tc.body, e, tc.field)
		}
	}
	for _, q := range []string{"?limit=0", "?limit=501", "?cursor=bogus", "?from=never"} {
		if e := mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID+"/results"+q, nil, 400).Err(); e.Code != "VALIDATION_ERROR" {
			t.Errorf("results%s: %+v", q, e)
		}
	}
	// Nothing above was created or charged except the one valid search.
	u, _ := c.Usage(context.Background(), "", "")
	if u.Monitors.Total != 1 || u.Credits.TotalConsumed != 1 {
		t.Fatalf("usage after rejected requests = %+v", u)
	}
	if got := getSearch(t, c, s.ID); got.Name != "x" || got.Filters.MaxResults != 50 {
		t.Fatalf("rejected PATCHes changed the search: %+v", got)
	}

	// The query length limit is a setting, and the error names it.
	short := startServer(t, serverEnv(t, store.SQLite, map[string]string{"TRAWL_QUERY_MAX_LENGTH": "40"}))
	body := `{"name": "x", "keywords": ["revenue operations", "sales automation"]}`
	e := mustDo(t, short.Client, http.MethodPost, "/v1/searches/microblog/posts", body, 400).Err()
	if !e.HasField("body.keywords") || !strings.Contains(e.Details[0].Message, "limit is 40") {
		t.Fatalf("query over TRAWL_QUERY_MAX_LENGTH: %+v", e)
	}
	mustDo(t, c, http.MethodPost, "/v1/searches/microblog/posts", body, 201)
}

func TestSearchAccessRules(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		mine := createSearch(t, ts.Client, map[string]any{"name": "mine", "keywords": []string{"CRM"}})

		newKey := func(plan, perms string, extra ...string) *client.Client {
			out, err := ts.cli(t, "accounts", "create", "--name", "other", "--plan", plan, "--json")
			if err != nil {
				t.Fatal(err, out)
			}
			var a struct{ ID string }
			json.Unmarshal([]byte(out), &a)
			args := append([]string{"keys", "create", "--account", a.ID, "--permissions", perms, "--json"}, extra...)
			out, err = ts.cli(t, args...)
			if err != nil {
				t.Fatal(err, out)
			}
			var k struct{ Key string }
			json.Unmarshal([]byte(out), &k)
			return ts.Client.WithKey(k.Key)
		}
		other := newKey("CUSTOM", "*")
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			if e := mustDo(t, other, m, "/v1/searches/"+mine.ID, nil, 404).Err(); e.Code != "NOT_FOUND" {
				t.Errorf("%s of another account's search: %+v", m, e)
			}
		}
		mustDo(t, other, http.MethodPatch, "/v1/searches/"+mine.ID, `{"name": "stolen"}`, 404)
		mustDo(t, other, http.MethodGet, "/v1/searches/"+mine.ID+"/results", nil, 404)
		mustDo(t, other, http.MethodPost, "/v1/searches/"+mine.ID+"/run", nil, 404)
		mustDo(t, other, http.MethodGet, "/v1/searches/not-a-uuid", nil, 404)
		if got := getSearch(t, ts.Client, mine.ID); got.Name != "mine" {
			t.Fatalf("another account renamed the search to %q", got.Name)
		}

		reader := newKey("CUSTOM", "searches:read")
		if e := mustDo(t, reader, http.MethodPost, "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"]}`, 403).Err(); e.Code != "FORBIDDEN" {
			t.Errorf("create without searches:write: %+v", e)
		}
		noRead := newKey("CUSTOM", "searches:write")
		if e := mustDo(t, noRead, http.MethodGet, "/v1/searches", nil, 403).Err(); e.Code != "FORBIDDEN" {
			t.Errorf("list without searches:read: %+v", e)
		}

		starter := newKey("STARTER", "*")
		if e := mustDo(t, starter, http.MethodPost, "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "frequency": "HOURLY"}`, 403).Err(); e.Code != "PLAN_REQUIRED" {
			t.Errorf("HOURLY on STARTER: %+v", e)
		}
		s := createSearch(t, starter, map[string]any{"name": "x", "keywords": []string{"a"}})
		if e := mustDo(t, starter, http.MethodPatch, "/v1/searches/"+s.ID, `{"filters": {"frequency": "hourly"}}`, 403).Err(); e.Code != "PLAN_REQUIRED" {
			t.Errorf("PATCH to HOURLY on STARTER: %+v", e)
		}
		if e := mustDo(t, other, http.MethodPost, "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "use_full_archive": true}`, 403).Err(); e.Code != "ELEVATED_ACCESS_REQUIRED" {
			t.Errorf("use_full_archive without elevated access: %+v", e)
		}
		elevated := newKey("CUSTOM", "*", "--full-archive")
		mustDo(t, elevated, http.MethodPost, "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["a"], "use_full_archive": true, "frequency": "HOURLY"}`, 201)
	})
}

// TestConcurrentCreationsSpendExactlyTheBalance: 200 concurrent requests
// that each spend 1 credit against a balance of 50 spend exactly 50.
func TestConcurrentCreationsSpendExactlyTheBalance(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_RATE_LIMIT_ENTERPRISE": "1000"}))
		out, _ := ts.cli(t, "accounts", "create", "--name", "poor", "--plan", "ENTERPRISE", "--credits", "50", "--json")
		var a struct{ ID string }
		json.Unmarshal([]byte(out), &a)
		out, _ = ts.cli(t, "keys", "create", "--account", a.ID, "--permissions", "*", "--json")
		var k struct{ Key string }
		json.Unmarshal([]byte(out), &k)
		c := ts.Client.WithKey(k.Key)

		var (
			wg            sync.WaitGroup
			created, poor atomic.Int32
		)
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := c.Do(context.Background(), http.MethodPost, "/v1/searches/microblog/posts", map[string]any{"name": fmt.Sprint("s", i), "keywords": []string{"CRM"}})
				switch {
				case err != nil:
					t.Error(err)
				case r.Status == 201 && r.Header.Get("x-spent-credits") == "1":
					created.Add(1)
				case r.Status == 403 && r.Err().Code == "INSUFFICIENT_CREDITS" && r.Header.Get("x-spent-credits") == "0":
					poor.Add(1)
				default:
					t.Errorf("unexpected answer %d %s", r.Status, r.Body)
				}
			}()
		}
		wg.Wait()
		if created.Load() != 50 || poor.Load() != 150 {
			t.Fatalf("%d created and %d refused; want 50 and 150", created.Load(), poor.Load())
		}
		u, err := c.Usage(context.Background(), "", "")
		if err != nil || u.Credits.TotalConsumed != 50 || u.Monitors.Total != 50 {
			t.Fatalf("usage = %+v, %v", u, err)
		}
	})
}

// TestSearchesRunOnSchedule moves the server's clock and lets the periodic
// tick run due searches: right after creation, then again a frequency later.
func TestSearchesRunOnSchedule(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		clk := clock.NewFake(time.Now().UTC().Truncate(time.Second))
		ts := startServerAt(t, serverEnv(t, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_RATE_LIMIT_CUSTOM": "100000"}), clk.Now)
		c := ts.Client
		daily := createSearch(t, c, map[string]any{"name": "daily", "keywords": []string{"sales", "CRM", "AI"}, "max_results": 100})
		paused := createSearch(t, c, map[string]any{"name": "paused", "keywords": []string{"hiring"}, "max_results": 100})

		waitFor := func(what string, cond func() bool) {
			t.Helper()
			deadline := time.Now().Add(60 * time.Second)
			for !cond() {
				if time.Now().After(deadline) {
					logs := ts.Stderr.String()
					t.Fatalf("timed out waiting for %s; log tail:\n%s", what, logs[max(0, len(logs)-4000):])
				}
				time.Sleep(100 * time.Millisecond) // polling for asynchronous work, not waiting on the schedule
			}
		}
		waitFor("the first runs", func() bool {
			return getSearch(t, c, daily.ID).LastRunAt != nil && getSearch(t, c, paused.ID).LastRunAt != nil
		})
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+paused.ID, map[string]any{"status": "paused"}, 200)
		pausedBefore := getSearch(t, c, paused.ID)
		first := getSearch(t, c, daily.ID)
		if first.TotalResults == 0 {
			t.Fatalf("first run collected nothing: %+v", first)
		}

		// Half a day later nothing is due; a day later the search runs again
		// and collects the posts published meanwhile.
		clk.Advance(12 * time.Hour)
		ran := func() bool { return *getSearch(t, c, daily.ID).LastRunAt != *first.LastRunAt }
		clk.Advance(12*time.Hour + time.Minute)
		waitFor("the daily run", ran)
		second := getSearch(t, c, daily.ID)
		if second.TotalResults <= first.TotalResults {
			t.Fatalf("second run found no new posts: %d then %d", first.TotalResults, second.TotalResults)
		}
		if p := getSearch(t, c, paused.ID); *p.LastRunAt != *pausedBefore.LastRunAt || p.TotalResults != pausedBefore.TotalResults {
			t.Fatalf("paused search ran: %+v, before %+v", p, pausedBefore)
		}
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+paused.ID, map[string]any{"status": "active"}, 200)
		waitFor("the resumed run", func() bool { return *getSearch(t, c, paused.ID).LastRunAt != *pausedBefore.LastRunAt })
	})
}

// TestRolesSplitAcrossProcesses: an api-only process and a worker-only
// process share one database; searches created through the first are run
// by the second.
func TestRolesSplitAcrossProcesses(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		env := serverEnv(t, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_ROLE": "api", "TRAWL_RATE_LIMIT_CUSTOM": "100000"})
		api := startServer(t, env)

		workerEnv := map[string]string{}
		for k, v := range env {
			workerEnv[k] = v
		}
		workerEnv["TRAWL_ROLE"] = "worker"
		ctx, cancel := context.WithCancel(context.Background())
		out, done := newOutput(), make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"serve"}, func(k string) string { return workerEnv[k] }, out, newOutput())
		}()
		t.Cleanup(func() { cancel(); <-done })
		out.waitFor(t, regexp.MustCompile(`worker is running`), done)

		s := createSearch(t, api.Client, map[string]any{"name": "split", "keywords": []string{"CRM"}})
		deadline := time.Now().Add(60 * time.Second)
		for getSearch(t, api.Client, s.ID).LastRunAt == nil {
			if time.Now().After(deadline) {
				t.Fatal("the worker process never ran the search created through the api process")
			}
			time.Sleep(100 * time.Millisecond) // polling for asynchronous work
		}
		if strings.Contains(out.String(), "listening on") {
			t.Fatal("the worker process serves HTTP")
		}
	})
}

// TestNewAndResumedSearchesRunAtOnce: with the tick an hour away, a new
// search's first run and a resumed search's run come from the job enqueued
// with the write, within seconds.
func TestNewAndResumedSearchesRunAtOnce(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1h", "TRAWL_RATE_LIMIT_CUSTOM": "100000"}))
		c := ts.Client
		s := createSearch(t, c, map[string]any{"name": "at once", "keywords": []string{"sales", "CRM"}, "max_results": 20})
		if s.NextRunAt == nil {
			t.Fatalf("new search has no next run: %+v", s)
		}
		waitUntil(t, ts, "the first run", func() bool { return getSearch(t, c, s.ID).LastRunAt != nil })
		first := getSearch(t, c, s.ID)
		if first.TotalResults == 0 {
			t.Fatalf("first run collected nothing: %+v", first)
		}
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"status": "paused"}, 200)
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"status": "active"}, 200)
		waitUntil(t, ts, "the resumed run", func() bool { return *getSearch(t, c, s.ID).LastRunAt != *first.LastRunAt })
	})
}

// TestTimeFramesChooseTheSearchEndpoint: past-24h and past-week (the
// default) fit X's recent search and stay there, however long a request
// takes; only a longer window or use_full_archive reaches the archive.
func TestTimeFramesChooseTheSearchEndpoint(t *testing.T) {
	ts := startServer(t, serverEnv(t, store.SQLite, map[string]string{"TRAWL_LOG_LEVEL": "debug"}))
	c := ts.Client
	upstreamPaths := func() []string {
		var paths []string
		for _, line := range strings.Split(ts.Stderr.String(), "\n") {
			var l struct {
				Msg, Path string
			}
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "sandbox request" && strings.Contains(l.Path, "/tweets/search/") {
				paths = append(paths, strings.TrimPrefix(l.Path, "/microblog"))
			}
		}
		return paths
	}
	cases := []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"keywords": []string{"CRM"}}, "/2/tweets/search/recent"},
		{map[string]any{"keywords": []string{"CRM"}, "time_frame": "past-week"}, "/2/tweets/search/recent"},
		{map[string]any{"keywords": []string{"CRM"}, "time_frame": "past-24h"}, "/2/tweets/search/recent"},
		{map[string]any{"keywords": []string{"CRM"}, "time_frame": "past-month"}, "/2/tweets/search/all"},
		{map[string]any{"keywords": []string{"CRM"}, "use_full_archive": true}, "/2/tweets/search/all"},
	}
	for _, tc := range cases {
		before := len(upstreamPaths())
		mustDo(t, c, http.MethodPost, "/v1/searches/microblog/posts/preview", tc.body, 200)
		// The sandbox logs a request once it has answered it.
		waitUntil(t, ts, "the upstream request's log line", func() bool { return len(upstreamPaths()) > before })
		for _, p := range upstreamPaths()[before:] {
			if p != tc.want {
				t.Errorf("%v went to %s, want %s", tc.body, p, tc.want)
			}
		}
	}
	// A saved search's runs choose the same way.
	before := len(upstreamPaths())
	s := createSearch(t, c, map[string]any{"name": "week", "keywords": []string{"CRM"}})
	waitUntil(t, ts, "the first run", func() bool { return getSearch(t, c, s.ID).LastRunAt != nil })
	waitUntil(t, ts, "the run's upstream request", func() bool { return len(upstreamPaths()) > before })
	for _, p := range upstreamPaths()[before:] {
		if p != "/2/tweets/search/recent" {
			t.Errorf("the run of a past-week search went to %s", p)
		}
	}
}

// waitUntil polls for asynchronous work to show through the API.
func waitUntil(t *testing.T, ts *testServer, what string, cond func() bool) {
	t.Helper()
	// Generous: a loaded CI machine runs both engines' packages at once;
	// the deadline only matters when the condition never comes.
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			logs := ts.Stderr.String()
			t.Fatalf("timed out waiting for %s; log tail:\n%s", what, logs[max(0, len(logs)-4000):])
		}
		time.Sleep(50 * time.Millisecond) // polling for asynchronous work, not waiting on a schedule
	}
}

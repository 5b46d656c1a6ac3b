package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
)

// The end-to-end tests of the topics API beside the lifecycle test
// (topics_e2e_test.go): validation and the error model, access, billing
// of posts that several topics share, and running out of credits.

const apiTime = "2006-01-02T15:04:05.000Z"

// topicServer starts a server whose clock is clk, with a one-second tick and
// no practical rate limit, and logs its tail when the test fails.
func topicServer(t *testing.T, engine store.Dialect, clk *clock.Fake) *testServer {
	t.Helper()
	ts := startServerAt(t, serverEnv(t, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s",
		"TRAWL_RATE_LIMIT_CUSTOM": "100000", "TRAWL_RATE_LIMIT_ENTERPRISE": "100000", "TRAWL_RATE_LIMIT_STARTER": "100000"}), clk.Now)
	t.Cleanup(func() {
		if t.Failed() {
			logs := ts.Stderr.String()
			t.Logf("server log tail:\n%s", logs[max(0, len(logs)-6000):])
		}
	})
	return ts
}

// newAccount creates an account with the CLI; credits "" keeps the plan's allocation.
func newAccount(t *testing.T, ts *testServer, name, plan, credits string) string {
	t.Helper()
	args := []string{"accounts", "create", "--name", name, "--plan", plan, "--json"}
	if credits != "" {
		args = append(args, "--credits", credits)
	}
	out, err := ts.cli(t, args...)
	if err != nil {
		t.Fatalf("accounts create: %v\n%s", err, out)
	}
	var acct struct{ ID string }
	if err := json.Unmarshal([]byte(out), &acct); err != nil || acct.ID == "" {
		t.Fatalf("accounts create printed %q", out)
	}
	return acct.ID
}

// newKey creates a key of the account with the CLI and returns a client that sends it.
func newKey(t *testing.T, ts *testServer, accountID, perms string) *client.Client {
	t.Helper()
	out, err := ts.cli(t, "keys", "create", "--account", accountID, "--permissions", perms, "--json")
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, out)
	}
	var key struct{ Key string }
	if err := json.Unmarshal([]byte(out), &key); err != nil || key.Key == "" {
		t.Fatalf("keys create printed %q", out)
	}
	return ts.Client.WithKey(key.Key)
}

// wantError checks an error answer: its status, its code and that its
// details name every one of fields.
func wantError(t *testing.T, r *client.Response, status int, code string, fields ...string) {
	t.Helper()
	e := r.Err()
	if r.Status != status || e == nil || e.Code != code {
		t.Fatalf("answer %d %s, want %d %s", r.Status, r.Body, status, code)
	}
	var body struct {
		Success *bool  `json:"success"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Success == nil || *body.Success || body.Message == "" || e.Message == "" {
		t.Fatalf("error body %s lacks success false and a message", r.Body)
	}
	for _, f := range fields {
		if !e.HasField(f) {
			t.Fatalf("error details %+v do not name %s (body %s)", e.Details, f, r.Body)
		}
	}
}

func do(t *testing.T, c *client.Client, method, path string, body any) *client.Response {
	t.Helper()
	r, err := c.Do(t.Context(), method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func createTopic(t *testing.T, c *client.Client, body map[string]any) topicView {
	t.Helper()
	var v topicView
	if err := mustDo(t, c, http.MethodPost, "/v1/topics", body, 201).Data(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func topicsTotal(t *testing.T, c *client.Client, query string) topicPage {
	t.Helper()
	var body struct {
		Data       []topicView `json:"data"`
		Pagination topicPage   `json:"pagination"`
	}
	if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/topics"+query, nil, 200).Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Pagination
}

// ledger is what the account spent on social_topics in [from, to].
func ledger(t *testing.T, c *client.Client, from, to time.Time) int64 {
	t.Helper()
	u, err := c.Usage(t.Context(), from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
	if err != nil {
		t.Fatal(err)
	}
	return u.Credits.ByFeature[string(credits.SocialTopics)]
}

type creditsSummary struct {
	Period struct {
		From   string `json:"from"`
		To     string `json:"to"`
		Source string `json:"source"`
	} `json:"period"`
	AllocationMethod            string  `json:"allocation_method"`
	TotalCredits                float64 `json:"total_credits"`
	NewPostCredits              float64 `json:"new_post_credits"`
	EngagementCredits           float64 `json:"engagement_credits"`
	BilledPostsCount            int64   `json:"billed_posts_count"`
	BilledEngagementsCount      int64   `json:"billed_engagements_count"`
	LastChargedAt               *string `json:"last_charged_at"`
	EngagementCreditsByInterval []struct {
		Interval string  `json:"interval"`
		Credits  float64 `json:"credits"`
	} `json:"engagement_credits_by_interval"`
}

func summaryOf(t *testing.T, c *client.Client, id string, from, to time.Time) creditsSummary {
	t.Helper()
	var s creditsSummary
	q := url.Values{"from": {from.UTC().Format(time.RFC3339)}, "to": {to.UTC().Format(time.RFC3339)}}
	if err := mustDo(t, c, http.MethodGet, "/v1/topics/"+id+"/credits-summary?"+q.Encode(), nil, 200).Data(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// hydrated reports whether every post of the topic has had its first
// hydration, and returns them: until then its next collection is the
// hydration's lease (minutes) after the link, then a Day 1, 3 or 5 follow-up
// (hours after it, even for a post another topic linked first).
func hydrated(t *testing.T, c *client.Client, id string) ([]topicPost, bool) {
	t.Helper()
	posts, _ := listAll[topicPost](t, c, "/v1/topics/"+id+"/posts")
	for _, p := range posts {
		linked, err := time.Parse(time.RFC3339, p.LinkedAt)
		if err != nil {
			t.Fatalf("linked_at %q: %v", p.LinkedAt, err)
		}
		if p.NextFollowUpAt == nil {
			return posts, false
		}
		next, err := time.Parse(time.RFC3339, *p.NextFollowUpAt)
		if err != nil {
			t.Fatalf("next_follow_up_at %q: %v", *p.NextFollowUpAt, err)
		}
		if next.Sub(linked) < time.Hour {
			return posts, false
		}
	}
	return posts, len(posts) > 0
}

// topicRef is a topic and a client of its account.
type topicRef struct {
	c  *client.Client
	id string
}

// waitSettled waits until every post of the topics has had its first
// hydration and the topics' counts and errors stay the same for longer than
// a scheduler tick.
func waitSettled(t *testing.T, ts *testServer, topics ...topicRef) {
	t.Helper()
	var last string
	var since time.Time
	waitUntil(t, ts, "the topics to settle", func() bool {
		var b strings.Builder
		for _, r := range topics {
			if _, ok := hydrated(t, r.c, r.id); !ok {
				last = ""
				return false
			}
			tp := getTopic(t, r.c, r.id)
			fmt.Fprintf(&b, "%d/%d/%q ", tp.PostsCount, tp.EngagementsCount, crashDeref(tp.LastError))
		}
		if now := b.String(); now != last {
			last, since = now, time.Now()
			return false
		}
		return time.Since(since) > 1500*time.Millisecond // polling for the absence of change over a tick
	})
}

// spendCredits uses up n credits of the account with live lookups: a
// profile's posts (a credit a post) while a page of them fits, then
// enrichments (a credit each).
func spendCredits(t *testing.T, c *client.Client, n int64) {
	t.Helper()
	profile := map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe"}
	for n > 0 {
		if n >= 50 {
			if r := do(t, c, http.MethodPost, "/v1/profile/posts", profile); r.Status == 200 && spentHeader(r) > 0 {
				n -= spentHeader(r)
				continue
			}
		}
		r := do(t, c, http.MethodPost, "/v1/profile/enrich", profile)
		if r.Status != 200 || spentHeader(r) != 1 {
			t.Fatalf("enrich = %d %.300s", r.Status, r.Body)
		}
		n--
	}
}

// TestTopicValidation: every rule of the topic endpoints answers 400
// VALIDATION_ERROR naming the field, nothing is created by a rejected
// request, ended topics cannot change, and unknown, malformed and other
// accounts' topics are 404 everywhere.
func TestTopicValidation(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		start := time.Now().UTC().Truncate(24 * time.Hour).Add(-17 * time.Hour) // 07:00 UTC
		clk := clock.NewFake(start)
		ts := topicServer(t, engine, clk)
		c := ts.Client

		long := strings.Repeat("n", 256)
		kw := func(prefix string, n int) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprintf("%s%d", prefix, i)
			}
			return out
		}
		for _, tc := range []struct {
			name   string
			body   any
			fields []string
		}{
			{"missing name", map[string]any{"keywords": []string{"sales"}}, []string{"body.name"}},
			{"empty name", map[string]any{"name": "", "keywords": []string{"sales"}}, []string{"body.name"}},
			{"blank name", map[string]any{"name": "   ", "keywords": []string{"sales"}}, []string{"body.name"}},
			{"name of 256 characters", map[string]any{"name": long, "keywords": []string{"sales"}}, []string{"body.name"}},
			{"no keywords member", map[string]any{"name": "x"}, []string{"body.keywords"}},
			{"empty keywords", map[string]any{"name": "x", "keywords": []string{}}, []string{"body.keywords"}},
			{"empty keyword", map[string]any{"name": "x", "keywords": []string{"sales", " "}}, []string{"body.keywords[1]"}},
			{"empty keywords_not item", map[string]any{"name": "x", "keywords": []string{"sales"}, "keywords_not": []string{""}}, []string{"body.keywords_not[0]"}},
			{"11 keywords", map[string]any{"name": "x", "keywords": kw("k", 11)}, []string{"body.keywords"}},
			{"11 keywords in all", map[string]any{"name": "x", "keywords": kw("k", 5), "keywords_and": kw("a", 3), "keywords_not": kw("n", 3)}, []string{"body.keywords"}},
			{"max_results 9", map[string]any{"name": "x", "keywords": []string{"sales"}, "max_results": 9}, []string{"body.max_results"}},
			{"max_results 101", map[string]any{"name": "x", "keywords": []string{"sales"}, "max_results": 101}, []string{"body.max_results"}},
			{"bad time_frame", map[string]any{"name": "x", "keywords": []string{"sales"}, "time_frame": "past-year"}, []string{"body.time_frame"}},
			{"bad content_type", map[string]any{"name": "x", "keywords": []string{"sales"}, "content_type": "gifs"}, []string{"body.content_type"}},
			{"bad sort_by", map[string]any{"name": "x", "keywords": []string{"sales"}, "sort_by": "newest"}, []string{"body.sort_by"}},
			{"unknown field", map[string]any{"name": "x", "keywords": []string{"sales"}, "colour": "red"}, []string{"body.colour"}},
			{"keywords of the wrong type", map[string]any{"name": "x", "keywords": "sales"}, []string{"body.keywords"}},
			{"max_results of the wrong type", map[string]any{"name": "x", "keywords": []string{"sales"}, "max_results": "50"}, []string{"body.max_results"}},
			{"name of the wrong type", map[string]any{"name": 5, "keywords": []string{"sales"}}, []string{"body.name"}},
			{"job_titles of the wrong type", map[string]any{"name": "x", "keywords": []string{"sales"}, "job_titles": []int{1}}, []string{"body.job_titles[0]"}},
			// Every problem of a request is listed (those of the schema
			// together, and those of the rules beyond it together).
			{"several problems of the schema", map[string]any{"name": "x", "keywords": []string{"sales"}, "max_results": 5, "sort_by": "newest", "colour": "red"},
				[]string{"body.max_results", "body.sort_by", "body.colour"}},
			{"several problems of the rules", map[string]any{"name": " ", "keywords": []string{"sales", ""}, "keywords_and": []string{""}},
				[]string{"body.name", "body.keywords[1]", "body.keywords_and[0]"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, do(t, c, http.MethodPost, "/v1/topics", tc.body), 400, "VALIDATION_ERROR", tc.fields...)
			})
		}
		wantError(t, do(t, c, http.MethodPost, "/v1/topics", `{"name": "x", "keywords": ["sales"]`), 400, "BAD_REQUEST")
		if pg := topicsTotal(t, c, ""); pg.TotalCount != 0 || pg.TotalPages != 0 {
			t.Fatalf("rejected requests created topics: %+v", pg)
		}

		// Ten keywords in all and enums in lower and upper case are
		// accepted; the topic shows the spec's spelling.
		lower := createTopic(t, c, map[string]any{"name": "  Lower  ", "keywords": kw("k", 4), "keywords_and": kw("a", 3),
			"keywords_not": kw("n", 3), "time_frame": "past-month", "content_type": "documents", "sort_by": "relevance", "max_results": 10})
		if lower.Name != "Lower" || lower.TimeFrame != "past-month" || lower.SortBy != "relevance" || lower.MaxResults != 10 || lower.Status != "ACTIVE" {
			t.Fatalf("created %+v", lower)
		}
		upper := createTopic(t, c, map[string]any{"name": "Upper", "keywords": []string{"sales"}, "time_frame": "PAST-24H", "sort_by": "DATE_POSTED", "max_results": 100})
		if upper.TimeFrame != "past-24h" || upper.SortBy != "date_posted" || upper.MaxResults != 100 {
			t.Fatalf("created %+v", upper)
		}
		for _, ct := range []struct{ in, out string }{{"liveVideos", "liveVideos"}, {"livevideos", "liveVideos"}, {"collaborativearticles", "collaborativeArticles"}} {
			var raw map[string]any
			r := mustDo(t, c, http.MethodPost, "/v1/topics", map[string]any{"name": "content " + ct.in, "keywords": []string{"sales"}, "content_type": ct.in}, 201)
			if err := r.Data(&raw); err != nil || raw["content_type"] != ct.out {
				t.Fatalf("content_type %q is shown as %v (%v)", ct.in, raw["content_type"], err)
			}
			mustDo(t, c, http.MethodDelete, "/v1/topics/"+raw["id"].(string), nil, 200)
		}
		defaults := createTopic(t, c, map[string]any{"name": strings.Repeat("d", 255), "keywords": []string{"hiring"}})
		var raw map[string]any
		if err := mustDo(t, c, http.MethodGet, "/v1/topics/"+defaults.ID, nil, 200).Data(&raw); err != nil {
			t.Fatal(err)
		}
		// content_type's default is posts (every post), a string as the
		// spec gives it, never null.
		if raw["time_frame"] != "past-week" || raw["max_results"] != 50.0 || raw["sort_by"] != "date_posted" || raw["content_type"] != "posts" {
			t.Fatalf("defaults: %v", raw)
		}

		// PATCH.
		id := upper.ID
		wantError(t, do(t, c, http.MethodPatch, "/v1/topics/"+id, map[string]any{"status": "RUNNING"}), 400, "VALIDATION_ERROR", "body.status")
		wantError(t, do(t, c, http.MethodPatch, "/v1/topics/"+id, map[string]any{"status": "EXPIRED"}), 400, "VALIDATION_ERROR", "body.status")
		wantError(t, do(t, c, http.MethodPatch, "/v1/topics/"+id, map[string]any{"name": long}), 400, "VALIDATION_ERROR", "body.name")
		wantError(t, do(t, c, http.MethodPatch, "/v1/topics/"+id, map[string]any{"name": ""}), 400, "VALIDATION_ERROR", "body.name")
		wantError(t, do(t, c, http.MethodPatch, "/v1/topics/"+id, map[string]any{"keywords": []string{"x"}}), 400, "VALIDATION_ERROR", "body.keywords")
		if got := getTopic(t, c, id); got.Name != "Upper" || got.Status != "ACTIVE" {
			t.Fatalf("rejected patches changed the topic: %+v", got)
		}
		var patched topicView
		if err := mustDo(t, c, http.MethodPatch, "/v1/topics/"+id, map[string]any{"name": "Renamed", "status": "paused"}, 200).Data(&patched); err != nil {
			t.Fatal(err)
		}
		if patched.Name != "Renamed" || patched.Status != "PAUSED" || patched.NextRunAt != nil {
			t.Fatalf("patched %+v", patched)
		}
		mustDo(t, c, http.MethodPatch, "/v1/topics/"+defaults.ID, map[string]any{"status": "STOPPED"}, 200)
		if got := getTopic(t, c, defaults.ID); got.Status != "STOPPED" || got.NextRunAt != nil {
			t.Fatalf("stopped %+v", got)
		}
		for _, body := range []map[string]any{{"status": "ACTIVE"}, {"status": "PAUSED"}, {"name": "again"}} {
			wantError(t, do(t, c, http.MethodPatch, "/v1/topics/"+defaults.ID, body), 409, "CONFLICT")
		}

		// GET list: paging rules, the status filter and the pagination.
		wantError(t, do(t, c, http.MethodGet, "/v1/topics?page=0", nil), 400, "VALIDATION_ERROR", "query.page")
		wantError(t, do(t, c, http.MethodGet, "/v1/topics?page_size=0", nil), 400, "VALIDATION_ERROR", "query.page_size")
		wantError(t, do(t, c, http.MethodGet, "/v1/topics?page_size=101", nil), 400, "VALIDATION_ERROR", "query.page_size")
		wantError(t, do(t, c, http.MethodGet, "/v1/topics?status=DELETED", nil), 400, "VALIDATION_ERROR", "query.status")
		wantError(t, do(t, c, http.MethodGet, "/v1/topics?page=x", nil), 400, "VALIDATION_ERROR", "query.page")
		four := createTopic(t, c, map[string]any{"name": "four", "keywords": []string{"marketing"}, "max_results": 10})
		createTopic(t, c, map[string]any{"name": "five", "keywords": []string{"marketing"}, "max_results": 10})
		// Five topics: Lower, four, five ACTIVE; Renamed PAUSED; the default one STOPPED.
		for q, want := range map[string]topicPage{
			"":                           {Page: 1, PageSize: 10, TotalCount: 5, TotalPages: 1},
			"?page_size=2":               {Page: 1, PageSize: 2, TotalCount: 5, TotalPages: 3},
			"?page=3&page_size=2":        {Page: 3, PageSize: 2, TotalCount: 5, TotalPages: 3},
			"?status=ACTIVE":             {Page: 1, PageSize: 10, TotalCount: 3, TotalPages: 1},
			"?status=paused":             {Page: 1, PageSize: 10, TotalCount: 1, TotalPages: 1},
			"?status=STOPPED":            {Page: 1, PageSize: 10, TotalCount: 1, TotalPages: 1},
			"?status=expired":            {Page: 1, PageSize: 10, TotalCount: 0, TotalPages: 0},
			"?status=active&page_size=1": {Page: 1, PageSize: 1, TotalCount: 3, TotalPages: 3},
		} {
			if got := topicsTotal(t, c, q); got != want {
				t.Errorf("GET /v1/topics%s pagination = %+v, want %+v", q, got, want)
			}
		}
		var seen = map[string]bool{}
		var prev string
		for page := 1; page <= 4; page++ {
			var body struct {
				Data []topicView `json:"data"`
			}
			if err := json.Unmarshal(mustDo(t, c, http.MethodGet, fmt.Sprintf("/v1/topics?page=%d&page_size=2", page), nil, 200).Body, &body); err != nil {
				t.Fatal(err)
			}
			if want := min(2, max(0, 5-2*(page-1))); len(body.Data) != want {
				t.Fatalf("page %d holds %d topics, want %d", page, len(body.Data), want)
			}
			for _, tp := range body.Data {
				if seen[tp.ID] || (prev != "" && tp.Created > prev) {
					t.Fatalf("page %d: %s listed twice or out of order", page, tp.ID)
				}
				seen[tp.ID], prev = true, tp.Created
			}
		}
		var active struct {
			Data []topicView `json:"data"`
		}
		if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/topics?status=active", nil, 200).Body, &active); err != nil {
			t.Fatal(err)
		}
		for _, tp := range active.Data {
			if tp.Status != "ACTIVE" {
				t.Fatalf("status=active listed %+v", tp)
			}
		}

		// Credits summary periods.
		sum := "/v1/topics/" + lower.ID + "/credits-summary"
		wantError(t, do(t, c, http.MethodGet, sum+"?from=yesterday", nil), 400, "VALIDATION_ERROR", "query.from")
		wantError(t, do(t, c, http.MethodGet, sum+"?to=2026-13-01", nil), 400, "VALIDATION_ERROR", "query.to")
		wantError(t, do(t, c, http.MethodGet, sum+"?from=nope&to=never", nil), 400, "VALIDATION_ERROR", "query.from", "query.to")
		wantError(t, do(t, c, http.MethodGet, sum+"?from=2026-02-01&to=2026-01-01", nil), 400, "VALIDATION_ERROR", "query.to")
		var def creditsSummary
		if err := mustDo(t, c, http.MethodGet, sum, nil, 200).Data(&def); err != nil {
			t.Fatal(err)
		}
		if def.Period.Source != "billing_period" || def.Period.From != credits.PeriodStart(start).Format(apiTime) ||
			def.AllocationMethod != "split_evenly" || len(def.EngagementCreditsByInterval) != 5 {
			t.Fatalf("default summary %+v", def)
		}
		if s := summaryOf(t, c, lower.ID, start.Add(-time.Hour), start.Add(time.Hour)); s.Period.Source != "query" {
			t.Fatalf("summary with a period: %+v", s)
		}

		// Unknown and malformed ids, another account's topic: 404 on
		// every endpoint.
		owned := four.ID
		waitUntil(t, ts, "a linked post", func() bool { return getTopic(t, c, owned).PostsCount > 0 })
		posts, _ := listAll[topicPost](t, c, "/v1/topics/"+owned+"/posts")
		postID := posts[0].URN
		mustDo(t, c, http.MethodGet, "/v1/topics/"+owned+"/posts/"+postID+"/engagements", nil, 200)
		other := newKey(t, ts, newAccount(t, ts, "other", "ENTERPRISE", ""), "*")
		unknown := "01900000-0000-7000-8000-000000000000"
		for _, tc := range []struct {
			c    *client.Client
			id   string
			post string
		}{{c, unknown, postID}, {c, "not-an-id", postID}, {c, owned, "7123456789012345678"}, {c, owned, "nope"}, {other, owned, postID}} {
			endpoints := []struct {
				method, path string
				body         any
			}{
				{http.MethodGet, "/v1/topics/" + tc.id, nil},
				{http.MethodPatch, "/v1/topics/" + tc.id, map[string]any{"status": "PAUSED"}},
				{http.MethodDelete, "/v1/topics/" + tc.id, nil},
				{http.MethodGet, "/v1/topics/" + tc.id + "/posts", nil},
				{http.MethodGet, "/v1/topics/" + tc.id + "/engagements", nil},
				{http.MethodGet, "/v1/topics/" + tc.id + "/credits-summary", nil},
				{http.MethodGet, "/v1/topics/" + tc.id + "/posts/" + tc.post + "/engagements", nil},
			}
			if tc.id == owned && tc.c == c {
				endpoints = endpoints[len(endpoints)-1:] // the topic is there, the post is not
			}
			for _, ep := range endpoints {
				wantError(t, do(t, tc.c, ep.method, ep.path, ep.body), 404, "NOT_FOUND")
			}
		}
		if got := getTopic(t, c, owned); got.Status != "ACTIVE" && got.Status != "PAUSED" {
			t.Fatalf("another account's requests changed the topic: %+v", got)
		}
		if pg := topicsTotal(t, other, ""); pg.TotalCount != 0 {
			t.Fatalf("the other account lists %d topics", pg.TotalCount)
		}

		// Deleted: 404 everywhere after.
		var del struct {
			ID      string `json:"id"`
			Deleted bool   `json:"deleted"`
		}
		if err := mustDo(t, c, http.MethodDelete, "/v1/topics/"+lower.ID, nil, 200).Data(&del); err != nil || del.ID != lower.ID || !del.Deleted {
			t.Fatalf("delete answered %+v, %v", del, err)
		}
		mustDo(t, c, http.MethodPatch, "/v1/topics/"+lower.ID, map[string]any{"status": "ACTIVE"}, 404)
		if pg := topicsTotal(t, c, ""); pg.TotalCount != 4 {
			t.Fatalf("after a deletion %d topics are listed", pg.TotalCount)
		}
	})
}

// TestTopicAccess: topics need the ENTERPRISE or CUSTOM plan, topics:write
// to change and topics:read to read, and a key.
func TestTopicAccess(t *testing.T) {
	// Access is decided before any SQL of the topics: one engine is enough.
	ts := topicServer(t, store.SQLite, clock.NewFake(time.Now().UTC().Truncate(time.Hour)))
	c := ts.Client
	tp := createTopic(t, c, map[string]any{"name": "bootstrap", "keywords": []string{"sales"}, "max_results": 10})

	type endpoint struct {
		method, path string
		body         any
		write        bool
	}
	endpoints := func(id string) []endpoint {
		return []endpoint{
			{http.MethodPost, "/v1/topics", map[string]any{"name": "x", "keywords": []string{"sales"}}, true},
			{http.MethodGet, "/v1/topics", nil, false},
			{http.MethodGet, "/v1/topics/" + id, nil, false},
			{http.MethodPatch, "/v1/topics/" + id, map[string]any{"name": "renamed"}, true},
			{http.MethodGet, "/v1/topics/" + id + "/posts", nil, false},
			{http.MethodGet, "/v1/topics/" + id + "/engagements", nil, false},
			{http.MethodGet, "/v1/topics/" + id + "/posts/7123456789012345678/engagements", nil, false},
			{http.MethodGet, "/v1/topics/" + id + "/credits-summary", nil, false},
			{http.MethodDelete, "/v1/topics/" + id, nil, true},
		}
	}

	t.Run("no key", func(t *testing.T) {
		for _, ep := range endpoints(tp.ID) {
			wantError(t, do(t, c.WithKey(""), ep.method, ep.path, ep.body), 401, "AUTH_REQUIRED")
			wantError(t, do(t, c.WithKey("trawl_not_a_key"), ep.method, ep.path, ep.body), 401, "INVALID_API_KEY")
		}
	})
	t.Run("STARTER plan", func(t *testing.T) {
		starter := newKey(t, ts, newAccount(t, ts, "starter", "STARTER", ""), "*")
		for _, ep := range endpoints(tp.ID) {
			wantError(t, do(t, starter, ep.method, ep.path, ep.body), 403, "PLAN_REQUIRED")
		}
	})
	t.Run("permissions", func(t *testing.T) {
		acct := newAccount(t, ts, "enterprise", "ENTERPRISE", "")
		writer := newKey(t, ts, acct, "topics:read,topics:write")
		reader := newKey(t, ts, acct, "topics:read")
		writeOnly := newKey(t, ts, acct, "topics:write")
		unrelated := newKey(t, ts, acct, "searches:read,searches:write")
		own := createTopic(t, writer, map[string]any{"name": "own", "keywords": []string{"sales"}, "max_results": 10})
		for _, ep := range endpoints(own.ID) {
			r := do(t, reader, ep.method, ep.path, ep.body)
			switch {
			case ep.write:
				wantError(t, r, 403, "FORBIDDEN")
				if e := r.Err(); !strings.Contains(string(r.Body), "topics:write") {
					t.Fatalf("%s %s: the error does not name topics:write: %+v", ep.method, ep.path, e)
				}
			case strings.Contains(ep.path, "/posts/"):
				wantError(t, r, 404, "NOT_FOUND") // read, but no such post
			default:
				if r.Status != 200 {
					t.Fatalf("read-only key: %s %s = %d %s", ep.method, ep.path, r.Status, r.Body)
				}
			}
			r = do(t, unrelated, ep.method, ep.path, ep.body)
			wantError(t, r, 403, "FORBIDDEN")
			if !ep.write {
				wantError(t, do(t, writeOnly, ep.method, ep.path, ep.body), 403, "FORBIDDEN")
			}
		}
		if got := getTopic(t, writer, own.ID); got.Name != "own" || got.Status != "ACTIVE" {
			t.Fatalf("forbidden requests changed the topic: %+v", got)
		}
		if pg := topicsTotal(t, writer, ""); pg.TotalCount != 1 {
			t.Fatalf("forbidden requests created topics: %+v", pg)
		}
		// The writer may do all of it.
		mustDo(t, writer, http.MethodPatch, "/v1/topics/"+own.ID, map[string]any{"status": "PAUSED"}, 200)
		mustDo(t, writer, http.MethodDelete, "/v1/topics/"+own.ID, nil, 200)
	})
}

// TestTopicsSharingPostsAreBilledOnce: two topics of an account that link
// the same posts pay for each post and engagement once, and their credits
// summaries split what they share evenly and add up to the ledger; another
// account pays for the same posts itself.
func TestTopicsSharingPostsAreBilledOnce(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		start := time.Now().UTC().Truncate(24 * time.Hour).Add(-17 * time.Hour) // 07:00 UTC
		clk := clock.NewFake(start)
		ts := topicServer(t, engine, clk)
		c := ts.Client
		from, to := credits.PeriodStart(start), start.Add(time.Hour)

		// Created together, so that their discoveries and hydrations race.
		wide := createTopic(t, c, map[string]any{"name": "wide", "keywords": []string{"sales"}, "time_frame": "past-24h", "max_results": 20})
		narrow := createTopic(t, c, map[string]any{"name": "narrow", "keywords": []string{"sales"}, "time_frame": "past-24h", "max_results": 10})
		waitSettled(t, ts, topicRef{c, wide.ID}, topicRef{c, narrow.ID})
		for _, id := range []string{wide.ID, narrow.ID} {
			mustDo(t, c, http.MethodPatch, "/v1/topics/"+id, map[string]any{"status": "PAUSED"}, 200)
		}

		// Which topics link each post and each engagement.
		postTopics, engTopics := map[string]int{}, map[string]int{}
		type share struct{ posts, engagements []string }
		shares := map[string]*share{}
		for _, id := range []string{wide.ID, narrow.ID} {
			s := &share{}
			shares[id] = s
			posts, _ := listAll[topicPost](t, c, "/v1/topics/"+id+"/posts")
			for _, p := range posts {
				postTopics[p.URN]++
				s.posts = append(s.posts, p.URN)
				es, _ := listAll[topicEngagement](t, c, "/v1/topics/"+id+"/posts/"+p.URN+"/engagements")
				for _, e := range es {
					engTopics[e.ID]++
					s.engagements = append(s.engagements, e.ID)
				}
			}
			tp := getTopic(t, c, id)
			if int64(len(s.posts)) != tp.PostsCount || int64(len(s.engagements)) != tp.EngagementsCount || tp.LastError != nil {
				t.Fatalf("topic %s lists %d posts and %d engagements: %+v, last_error %s", id, len(s.posts), len(s.engagements), tp, crashDeref(tp.LastError))
			}
		}
		sharedPosts := 0
		for _, n := range postTopics {
			if n == 2 {
				sharedPosts++
			}
		}
		if sharedPosts == 0 || len(postTopics) == sharedPosts || len(engTopics) == 0 {
			t.Fatalf("%d posts, %d shared, %d engagements: the topics should share some posts, not all", len(postTopics), sharedPosts, len(engTopics))
		}
		paid := ledger(t, c, from, to)
		if want := int64(len(postTopics) + len(engTopics)); paid != want {
			t.Fatalf("social_topics = %d, want %d distinct posts + %d distinct engagements = %d", paid, len(postTopics), len(engTopics), want)
		}
		var total float64
		for _, id := range []string{wide.ID, narrow.ID} {
			s := summaryOf(t, c, id, from, to)
			var wantPosts, wantEngagements float64
			for _, urn := range shares[id].posts {
				wantPosts += 1 / float64(postTopics[urn])
			}
			for _, e := range shares[id].engagements {
				wantEngagements += 1 / float64(engTopics[e])
			}
			if math.Abs(s.NewPostCredits-wantPosts) > 0.001 || math.Abs(s.EngagementCredits-wantEngagements) > 0.001 ||
				math.Abs(s.TotalCredits-wantPosts-wantEngagements) > 0.001 ||
				s.BilledPostsCount != int64(len(shares[id].posts)) || s.BilledEngagementsCount != int64(len(shares[id].engagements)) {
				t.Fatalf("summary of %s = %+v, want %.4f post and %.4f engagement credits", id, s, wantPosts, wantEngagements)
			}
			var byInterval float64
			for _, iv := range s.EngagementCreditsByInterval {
				byInterval += iv.Credits
			}
			if math.Abs(byInterval-s.EngagementCredits) > 0.001*5 {
				t.Fatalf("engagement credits by interval of %s add up to %v, not %v", id, byInterval, s.EngagementCredits)
			}
			total += s.TotalCredits
		}
		if math.Abs(total-float64(paid)) > 0.002 {
			t.Fatalf("the summaries add up to %v, the ledger says %d", total, paid)
		}

		// Another account's topic on the same posts pays for them itself.
		other := newKey(t, ts, newAccount(t, ts, "other", "ENTERPRISE", ""), "*")
		mine := createTopic(t, other, map[string]any{"name": "mine", "keywords": []string{"sales"}, "time_frame": "past-24h", "max_results": 20})
		waitSettled(t, ts, topicRef{other, mine.ID})
		mustDo(t, other, http.MethodPatch, "/v1/topics/"+mine.ID, map[string]any{"status": "PAUSED"}, 200)
		tp := getTopic(t, other, mine.ID)
		posts, _ := listAll[topicPost](t, other, "/v1/topics/"+mine.ID+"/posts")
		overlap := 0
		for _, p := range posts {
			if postTopics[p.URN] > 0 {
				overlap++
			}
		}
		if overlap == 0 {
			t.Fatalf("the other account's topic shares no post with the first: %+v", tp)
		}
		if tp.EngagementsCount == 0 {
			// Its discovery ran in the millisecond the others' did: the
			// posts it found were stored, and hydrated, by theirs.
			t.Fatalf("the other account's topic links none of the engagements of %d posts it shares: %+v", overlap, tp)
		}
		if got := ledger(t, other, from, to); got != tp.PostsCount+tp.EngagementsCount {
			t.Fatalf("the other account paid %d for %d posts and %d engagements", got, tp.PostsCount, tp.EngagementsCount)
		}
		if s := summaryOf(t, other, mine.ID, from, to); math.Abs(s.TotalCredits-float64(tp.PostsCount+tp.EngagementsCount)) > 0.001 {
			t.Fatalf("summary of the other account's topic: %+v", s)
		}
		if got := ledger(t, c, from, to); got != paid {
			t.Fatalf("the first account's ledger moved from %d to %d", paid, got)
		}
	})
}

// TestTopicOutOfCreditsStopsAndResumes: accounts whose credits cover a
// discovery's posts but not their engagements (fresh posts, and posts that
// another account's topic collected already), and one whose credits do not
// cover a discovery, stop where they are, never spend more than their
// allocation, store nothing unbilled, and resume in the next billing month.
func TestTopicOutOfCreditsStopsAndResumes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		// 07:00 UTC on the last day of the month, so that the next month
		// (and its new allocation) comes before any follow-up or daily run.
		start := credits.PeriodEnd(time.Now()).Add(-17 * time.Hour)
		next := credits.PeriodEnd(start).Add(time.Minute)
		// A week of sales posts has engagements enough to run out of
		// credits; a day of marketing posts is cheap enough to spend first.
		topicBody := func(name, keyword string) map[string]any {
			frame := map[string]string{"sales": "past-week", "marketing": "past-24h"}[keyword]
			return map[string]any{"name": name, "keywords": []string{keyword}, "time_frame": frame, "max_results": 10}
		}

		// What the topics cost, measured on a server with the same clock
		// and plenty of credits: the sandbox is a function of the clock.
		var posts, engagements, cost2 int64
		var perPost []int64
		{
			clk := clock.NewFake(start)
			probe := topicServer(t, engine, clk)
			pc := probe.Client
			tp := createTopic(t, pc, topicBody("probe", "sales"))
			waitSettled(t, probe, topicRef{pc, tp.ID})
			got := getTopic(t, pc, tp.ID)
			posts, engagements = got.PostsCount, got.EngagementsCount
			ps, _ := listAll[topicPost](t, pc, "/v1/topics/"+tp.ID+"/posts")
			for _, p := range ps {
				perPost = append(perPost, p.EngagementsCount)
			}
			clk.Set(next)
			tp2 := createTopic(t, pc, topicBody("probe 2", "marketing"))
			waitSettled(t, probe, topicRef{pc, tp2.ID})
			got2 := getTopic(t, pc, tp2.ID)
			cost2 = got2.PostsCount + got2.EngagementsCount
			probe.stop()
		}
		if posts < 2 || engagements < 2 {
			t.Fatalf("the probe found %d posts and %d engagements: too few to run out of credits", posts, engagements)
		}
		t.Logf("the topic links %d posts with %v engagements; the second topic costs %d in the next month", posts, perPost, cost2)

		clk := clock.NewFake(start)
		ts := topicServer(t, engine, clk)
		thisMonth := func(c *client.Client) int64 {
			return ledger(t, c, credits.PeriodStart(start), credits.PeriodEnd(start))
		}
		nextMonth := func(c *client.Client) int64 { return ledger(t, c, credits.PeriodStart(next), next) }
		// paidFor checks that what the account paid this month is within its
		// allocation and is exactly what its only topic links.
		paidFor := func(r topicRef, alloc int64, month func(*client.Client) int64, before int64) topicView {
			t.Helper()
			tp := getTopic(t, r.c, r.id)
			paid := month(r.c)
			if paid > alloc || before+paid != tp.PostsCount+tp.EngagementsCount {
				t.Fatalf("paid %d (and %d before) of %d credits for %d posts and %d engagements", paid, before, alloc, tp.PostsCount, tp.EngagementsCount)
			}
			if s := summaryOf(t, r.c, r.id, start.Add(-time.Hour), next); s.BilledPostsCount != tp.PostsCount ||
				s.BilledEngagementsCount != tp.EngagementsCount || s.TotalCredits != float64(tp.PostsCount+tp.EngagementsCount) {
				t.Fatalf("summary %+v of a topic with %d posts and %d engagements", s, tp.PostsCount, tp.EngagementsCount)
			}
			ps, _ := listAll[topicPost](t, r.c, "/v1/topics/"+r.id+"/posts")
			if n := countPostEngagements(t, r.c, r.id, ps); n != tp.EngagementsCount || int64(len(ps)) != tp.PostsCount {
				t.Fatalf("the topic lists %d posts and %d engagements, counts %d and %d", len(ps), n, tp.PostsCount, tp.EngagementsCount)
			}
			return tp
		}
		outOfCredits := func(tp topicView) bool {
			return tp.LastError != nil && strings.Contains(strings.ToLower(*tp.LastError), "credits")
		}

		// x can pay for the posts, not for all their engagements; w only
		// for the posts. Their posts are new to the service.
		allocX := max(engagements, posts)
		x := topicRef{c: newKey(t, ts, newAccount(t, ts, "short", "ENTERPRISE", fmt.Sprint(allocX)), "*")}
		w := topicRef{c: newKey(t, ts, newAccount(t, ts, "posts only", "ENTERPRISE", fmt.Sprint(posts)), "*")}
		x.id = createTopic(t, x.c, topicBody("short", "sales")).ID
		w.id = createTopic(t, w.c, topicBody("posts only", "sales")).ID
		waitUntil(t, ts, "the out-of-credits errors", func() bool {
			return outOfCredits(getTopic(t, x.c, x.id)) && outOfCredits(getTopic(t, w.c, w.id))
		})
		waitSettled(t, ts, x, w)
		blockedX := paidFor(x, allocX, thisMonth, 0)
		blockedW := paidFor(w, posts, thisMonth, 0)
		for _, tp := range []topicView{blockedX, blockedW} {
			if !outOfCredits(tp) || tp.PostsCount != posts || tp.EngagementsCount >= engagements || tp.Status != "ACTIVE" || tp.LastRun == nil {
				t.Fatalf("out of credits: %+v (the posts fit, %d engagements do not)", tp, engagements)
			}
		}
		if blockedW.EngagementsCount != 0 {
			t.Fatalf("an account with credits for the posts only links %d engagements", blockedW.EngagementsCount)
		}

		// z can pay for the posts, not their engagements, which another
		// account's topic has collected already.
		z := topicRef{c: newKey(t, ts, newAccount(t, ts, "late", "ENTERPRISE", fmt.Sprint(allocX)), "*")}
		z.id = createTopic(t, z.c, topicBody("late", "sales")).ID
		waitUntil(t, ts, "the discovery of collected posts", func() bool { return getTopic(t, z.c, z.id).LastError != nil })
		waitSettled(t, ts, z)
		blockedZ := paidFor(z, allocX, thisMonth, 0)
		if !outOfCredits(blockedZ) || blockedZ.PostsCount != posts || blockedZ.EngagementsCount >= engagements || blockedZ.LastRun == nil {
			t.Fatalf("out of credits on collected posts: %+v (the posts fit, %d engagements do not)", blockedZ, engagements)
		}

		// y cannot pay for a discovery: it spent its credits on lookups.
		allocY := cost2
		y := topicRef{c: newKey(t, ts, newAccount(t, ts, "spent", "ENTERPRISE", fmt.Sprint(allocY)), "*")}
		spendCredits(t, y.c, allocY-1)
		y.id = createTopic(t, y.c, topicBody("spent", "marketing")).ID
		waitUntil(t, ts, "the failed discovery", func() bool { return getTopic(t, y.c, y.id).LastError != nil })
		failed := getTopic(t, y.c, y.id)
		if !outOfCredits(failed) || failed.PostsCount != 0 || failed.EngagementsCount != 0 || failed.LastRun != nil || failed.Status != "ACTIVE" {
			t.Fatalf("a discovery out of credits left %+v", failed)
		}
		if got := thisMonth(y.c); got != 0 {
			t.Fatalf("a failed discovery spent %d credits on social_topics", got)
		}
		if ps, _ := listAll[topicPost](t, y.c, "/v1/topics/"+y.id+"/posts"); len(ps) != 0 {
			t.Fatalf("a failed discovery linked %d posts", len(ps))
		}

		// The next month brings the allocations back: everyone resumes.
		clk.Set(next)
		waitUntil(t, ts, "the blocked topics to resume", func() bool {
			return getTopic(t, x.c, x.id).LastError == nil && getTopic(t, z.c, z.id).LastError == nil && getTopic(t, y.c, y.id).LastRun != nil
		})
		waitSettled(t, ts, x, z, y, w)
		for _, r := range []struct {
			topicRef
			before int64
		}{{x, blockedX.PostsCount + blockedX.EngagementsCount}, {z, blockedZ.PostsCount + blockedZ.EngagementsCount}} {
			tp := paidFor(r.topicRef, allocX, nextMonth, r.before)
			if tp.EngagementsCount != engagements || tp.PostsCount != posts || tp.LastError != nil {
				t.Fatalf("after the month turned: %+v, want %d engagements", tp, engagements)
			}
			if got := thisMonth(r.c); got != r.before {
				t.Fatalf("last month's ledger moved from %d to %d", r.before, got)
			}
		}
		ran := paidFor(y, allocY, nextMonth, 0)
		if ran.LastError != nil || ran.PostsCount == 0 || ran.EngagementsCount == 0 || ran.PostsCount+ran.EngagementsCount != cost2 {
			t.Fatalf("after the month turned: %+v, want %d credits' worth", ran, cost2)
		}

		// w's posts wait for more engagements than a month's allocation: it
		// links those of the posts that fit, and waits for the rest.
		tpW := paidFor(w, posts, nextMonth, blockedW.PostsCount)
		fits := false
		for _, n := range perPost {
			fits = fits || (n > 0 && n <= posts)
		}
		switch {
		case engagements <= posts:
			if tpW.EngagementsCount != engagements || tpW.LastError != nil {
				t.Fatalf("after the month turned: %+v, want %d engagements", tpW, engagements)
			}
		case fits:
			if tpW.EngagementsCount == 0 || !outOfCredits(tpW) {
				t.Fatalf("after the month turned: %+v, want some of the %d engagements, and waiting for the rest", tpW, engagements)
			}
		default:
			t.Logf("no post has 1 to %d engagements: %v", posts, perPost)
		}
	})
}

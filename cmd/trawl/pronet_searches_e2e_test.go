package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/store"
)

// End-to-end tests of the pronet saved searches against the sandbox, whose
// world the tests rebuild from the same seed to know who wrote what. The
// sandbox logs every pronet request with its query, which is how a test
// sees what a run asked for.

// pronetSearchView is a saved search with the pronet fields.
type pronetSearchView struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Status       string  `json:"status"`
	TotalResults int64   `json:"total_results"`
	LastRunAt    *string `json:"last_run_at"`
	NextRunAt    *string `json:"next_run_at"`
	Query        struct {
		Keywords             []string `json:"keywords"`
		KeywordsAnd          []string `json:"keywords_and"`
		KeywordsNot          []string `json:"keywords_not"`
		MonitoringType       string   `json:"monitoring_type"`
		ProfileURL           string   `json:"profile_url"`
		MentionsMember       []string `json:"mentions_member"`
		MentionsOrganization []string `json:"mentions_organization"`
	} `json:"query"`
	Filters struct {
		TimeFrame    string   `json:"time_frame"`
		MaxResults   int      `json:"max_results"`
		Frequency    string   `json:"frequency"`
		JobTitles    []string `json:"job_titles"`
		SearchType   *string  `json:"search_type"`
		ContentType  string   `json:"content_type"`
		PronetSortBy string   `json:"pronet_sort_by"`
	} `json:"filters"`
	Stats *struct {
		ResultsToday int64 `json:"results_today"`
	} `json:"stats"`
	LastError *string `json:"last_error"`
}

type pronetResult struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Author struct {
		Name       string `json:"name"`
		Username   string `json:"username"`
		ProfileURL string `json:"profile_url"`
		Avatar     string `json:"avatar"`
	} `json:"author"`
	Content struct {
		Text string `json:"text"`
		URL  string `json:"url"`
	} `json:"content"`
	Engagement struct {
		Likes    int  `json:"likes"`
		Comments int  `json:"comments"`
		Shares   *int `json:"shares"`
	} `json:"engagement"`
	PublishedAt string `json:"published_at"`
}

func pronetServer(t *testing.T, engine store.Dialect, provider string, clk *clock.Fake) *testServer {
	t.Helper()
	ts := startServerAt(t, providerEnv(t, engine, provider, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_LOG_LEVEL": "debug",
		"TRAWL_RATE_LIMIT_CUSTOM": "100000", "TRAWL_RATE_LIMIT_STARTER": "100000"}), clk.Now)
	t.Cleanup(func() {
		if t.Failed() {
			logs := ts.Stderr.String()
			t.Logf("server log tail:\n%s", logs[max(0, len(logs)-6000):])
		}
	})
	return ts
}

// pronetProtocol is how the sandbox of a provider's protocol logs the calls it answers (at
// debug level): the message of a call and the attribute naming its operation.
type pronetProtocol struct {
	msg, key string
	ops      map[string]string // "search", "profile_posts" → the path or actor
}

// pronetProtocols: a call is one HTTP request for the contract and HarvestAPI, and one actor
// run for Apify (its status polls and dataset reads are part of that call, and a later page
// read from a cached run's dataset is no call at all).
var pronetProtocols = map[string]pronetProtocol{
	providerContract: {"sandbox pronet request", "path",
		map[string]string{"search": "/posts/search", "profile_posts": "/profile/posts"}},
	providerHarvestAPI: {"sandbox harvestapi request", "path",
		map[string]string{"search": "/linkedin/post-search", "profile_posts": "/linkedin/profile-posts"}},
	providerApify: {"sandbox apify run", "actor",
		map[string]string{"search": "harvestapi~linkedin-post-search", "profile_posts": "harvestapi~linkedin-profile-posts"}},
}

// pronetRequests are the parameters of the calls of op the provider's sandbox answered, in
// order, in the provider's own names: the query, or an actor run's input members (a list as
// its values, numbers and booleans as JSON writes them).
func pronetRequests(t *testing.T, ts *testServer, provider, op string) []url.Values {
	t.Helper()
	proto := pronetProtocols[provider]
	var out []url.Values
	for _, line := range strings.Split(ts.Stderr.String(), "\n") {
		var l map[string]any
		if json.Unmarshal([]byte(line), &l) != nil || l["msg"] != proto.msg || l[proto.key] != proto.ops[op] {
			continue
		}
		if proto.key == "path" {
			q, _ := url.ParseQuery(l["query"].(string))
			out = append(out, q)
			continue
		}
		var in map[string]any
		if err := json.Unmarshal([]byte(l["input"].(string)), &in); err != nil {
			t.Fatalf("actor input %q: %v", l["input"], err)
		}
		q := url.Values{}
		for k, v := range in {
			vs, ok := v.([]any)
			if !ok {
				vs = []any{v}
			}
			for _, x := range vs {
				if s, ok := x.(string); ok {
					q.Add(k, s)
				} else {
					b, _ := json.Marshal(x)
					q.Add(k, string(b))
				}
			}
		}
		out = append(out, q)
	}
	return out
}

// askedAfter reports how a profile-posts call fails to ask for the posts published after
// after, "" when it does not: the contract takes the time; HarvestAPI takes only a window
// (scrapePostedLimit), which must reach back to it; Apify's actor only a day (postedLimitDate),
// the UTC day of after. With either vendor Trawl drops what the window or day lets through.
func askedAfter(provider string, q url.Values, after, now time.Time) string {
	switch provider {
	case providerHarvestAPI:
		window := map[string]time.Duration{"24h": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour,
			"3months": 90 * 24 * time.Hour, "6months": 180 * 24 * time.Hour, "year": 365 * 24 * time.Hour}[q.Get("scrapePostedLimit")]
		if window < now.Sub(after) {
			return fmt.Sprintf("scrapePostedLimit=%q does not reach back to %s", q.Get("scrapePostedLimit"), after)
		}
	case providerApify:
		if got, want := q.Get("postedLimitDate"), after.UTC().Format("2006-01-02"); got != want {
			return fmt.Sprintf("postedLimitDate=%q, want %q", got, want)
		}
	default:
		if want := after.UTC().Format("2006-01-02T15:04:05.000Z"); q.Get("after") != want {
			return fmt.Sprintf("after=%q, want %q", q.Get("after"), want)
		}
	}
	return ""
}

// asked reports how q differs from want (each parameter with exactly those values; an empty
// list: not sent), "" when it does not.
func asked(q, want url.Values) string {
	var diffs []string
	for k, v := range want {
		if !slices.Equal(q[k], v) {
			diffs = append(diffs, fmt.Sprintf("%s=%q, want %q", k, q[k], v))
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, "; ")
}

func createPronet(t *testing.T, c *client.Client, kind string, body any) pronetSearchView {
	t.Helper()
	r := mustDo(t, c, http.MethodPost, "/v1/searches/pronet/"+kind, body, 201)
	if r.Header.Get("x-spent-credits") != "1" {
		t.Fatalf("creation spent %q credits, want 1", r.Header.Get("x-spent-credits"))
	}
	var s pronetSearchView
	if err := r.Data(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func getPronet(t *testing.T, c *client.Client, id string) pronetSearchView {
	t.Helper()
	var s pronetSearchView
	if err := mustDo(t, c, http.MethodGet, "/v1/searches/"+id, nil, 200).Data(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// allPronetResults pages through a search's results (query without limit
// and cursor) and returns them with the total the first page reports.
func allPronetResults(t *testing.T, c *client.Client, id string, q url.Values) ([]pronetResult, int64) {
	t.Helper()
	items, total, stable := pagePronetResults(t, c, id, q)
	if !stable {
		t.Fatalf("total_count changed while paging the results of %s", id)
	}
	return items, total
}

// pagePronetResults is allPronetResults that reports, instead of failing,
// a total that changed while paging (as it may while authors' profiles are
// being read).
func pagePronetResults(t *testing.T, c *client.Client, id string, q url.Values) (_ []pronetResult, _ int64, stable bool) {
	t.Helper()
	var (
		out   []pronetResult
		total int64 = -1
	)
	q = cloneValues(q)
	q.Set("limit", "7")
	for {
		var body struct {
			Data       []pronetResult `json:"data"`
			Pagination pageInfo       `json:"pagination"`
		}
		if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/searches/"+id+"/results?"+q.Encode(), nil, 200).Body, &body); err != nil {
			t.Fatal(err)
		}
		if total < 0 {
			total = *body.Pagination.TotalCount
		} else if *body.Pagination.TotalCount != total {
			return nil, 0, false
		}
		out = append(out, body.Data...)
		if !body.Pagination.HasMore {
			return out, total, true
		}
		q.Set("cursor", *body.Pagination.NextCursor)
	}
}

func runSearch(t *testing.T, c *client.Client, id string) int {
	t.Helper()
	var run struct {
		NewResults int `json:"new_results"`
	}
	if err := mustDo(t, c, http.MethodPost, "/v1/searches/"+id+"/run", nil, 200).Data(&run); err != nil {
		t.Fatal(err)
	}
	return run.NewResults
}

// checkPronetItem: a pronet result in the standard shape.
func checkPronetItem(t *testing.T, it pronetResult) {
	t.Helper()
	if it.Source != "pronet" || !strings.HasPrefix(it.Content.URL, "https://www.linkedin.com/feed/update/urn:li:activity:") ||
		it.Author.Username == "" || it.Author.Name == "" || it.Author.Avatar == "" || it.Engagement.Shares == nil || it.PublishedAt == "" {
		t.Fatalf("result not in the standard shape: %+v", it)
	}
	if !strings.Contains(it.Author.ProfileURL, "/company/") && it.Author.ProfileURL != "https://www.linkedin.com/in/"+it.Author.Username {
		t.Fatalf("author profile_url %q for username %q", it.Author.ProfileURL, it.Author.Username)
	}
}

func TestPronetKeywordSearchLifecycle(t *testing.T) {
	forEachEngineAndProvider(t, func(t *testing.T, engine store.Dialect, provider string) {
		clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
		ts := pronetServer(t, engine, provider, clk)
		c := ts.Client
		world := sandbox.New(sandbox.Config{Seed: 1, Now: clk.Now}).World()
		searches := func() []url.Values { return pronetRequests(t, ts, provider, "search") }
		// What the runs ask the provider, in its own names (docs/providers.md): HarvestAPI
		// sends no content type for "posts" (every kind); Apify's search actor takes neither a
		// content type nor an author title, which Trawl applies to the posts a run fetched, and
		// pages by runs over ranges of the actor's pages (startPage 1 is the first range).
		const keywords = `("sales" OR "pipeline") NOT "hiring"`
		ask := map[string]struct{ first, again, later, patched url.Values }{
			providerContract: {
				first:   url.Values{"keywords": {keywords}, "datePosted": {"past-week"}, "sortBy": {"date_posted"}, "contentType": {"posts"}, "authorTitle": nil},
				again:   url.Values{"datePosted": {"past-24h"}, "page": {"1"}},
				later:   url.Values{"datePosted": {"past-24h"}},
				patched: url.Values{"contentType": {"videos"}, "sortBy": {"relevance"}, "authorTitle": {"Founder"}},
			},
			providerHarvestAPI: {
				first:   url.Values{"search": {keywords}, "postedLimit": {"week"}, "sortBy": {"date"}, "contentType": nil, "authorKeywords": nil},
				again:   url.Values{"postedLimit": {"24h"}, "page": {"1"}},
				later:   url.Values{"postedLimit": {"24h"}},
				patched: url.Values{"contentType": {"videos"}, "sortBy": {"relevance"}, "authorKeywords": {"Founder"}},
			},
			providerApify: {
				first:   url.Values{"searchQueries": {keywords}, "postedLimit": {"week"}, "sortBy": {"date"}},
				again:   url.Values{"postedLimit": {"24h"}, "startPage": {"1"}},
				later:   url.Values{"postedLimit": {"24h"}},
				patched: url.Values{"sortBy": {"relevance"}},
			},
		}[provider]

		s := createPronet(t, c, "posts", map[string]any{"name": "sales talk", "keywords": []string{"sales", "pipeline"},
			"keywords_not": []string{"hiring"}, "max_results": 100, "frequency": "daily"})
		if s.Status != "active" || s.Query.MonitoringType != "pronet-posts" || s.Filters.Frequency != "DAILY" ||
			s.Filters.TimeFrame != "past-week" || s.Filters.ContentType != "posts" || s.Filters.PronetSortBy != "date_posted" ||
			s.Filters.SearchType != nil || !slices.Equal(s.Query.KeywordsNot, []string{"hiring"}) || s.NextRunAt == nil {
			t.Fatalf("created search = %+v", s)
		}
		// The first run comes at once.
		waitUntil(t, ts, "the first run", func() bool { return getPronet(t, c, s.ID).LastRunAt != nil })
		first := getPronet(t, c, s.ID)
		if first.TotalResults == 0 || first.Stats == nil || first.Stats.ResultsToday != first.TotalResults {
			t.Fatalf("first run = %+v", first)
		}
		reqs := searches()
		if len(reqs) == 0 {
			t.Fatal("the first run asked the provider nothing")
		}
		for _, q := range reqs {
			if d := asked(q, ask.first); d != "" {
				t.Fatalf("first run asked %v: %s", q, d)
			}
		}
		items, total := allPronetResults(t, c, s.ID, nil)
		if total != first.TotalResults || int64(len(items)) != total {
			t.Fatalf("%d results, total %d, search says %d", len(items), total, first.TotalResults)
		}
		seen := map[string]bool{}
		newest := ""
		for _, it := range items {
			checkPronetItem(t, it)
			if seen[it.ID] {
				t.Fatalf("result %s twice", it.ID)
			}
			seen[it.ID] = true
			text := strings.ToLower(it.Content.Text)
			if !strings.Contains(text, "sales") && !strings.Contains(text, "pipeline") || strings.Contains(text, "hiring") {
				t.Fatalf("result %q does not match the keywords", it.Content.Text)
			}
			newest = max(newest, it.PublishedAt)
		}

		// A new-post workflow linked to the search fires on what later runs collect.
		def := `{"trigger":{"kind":"workflows/new-post"},"actions":[{"id":"note","kind":"builtin:set","inputs":{"values":{"url":"{{ trigger.post_url }}","src":"{{ trigger.source }}"}}}],
			"edges":[{"from":"$source","to":"note"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "pronet leads", "workflow": json.RawMessage(def), "search_id": s.ID, "status": "PUBLISHED", "enabled": true})

		// Run again at once: nothing new (dedupe), and the run asks only for
		// the last day, the narrowest window that reaches the newest post.
		before := len(searches())
		if n := runSearch(t, c, s.ID); n != 0 {
			t.Fatalf("a second run at once stored %d posts again", n)
		}
		again := searches()[before:]
		if len(again) == 0 {
			t.Fatal("the second run asked the provider nothing")
		}
		for _, q := range again {
			if d := asked(q, ask.again); d != "" {
				t.Fatalf("second run asked %v, want the first page of the last day only: %s", q, d)
			}
		}

		// Six hours later the run collects only posts newer than those it has.
		clk.Advance(6 * time.Hour)
		before = len(searches())
		added := runSearch(t, c, s.ID)
		if added == 0 {
			t.Fatal("six hours later the run found nothing new")
		}
		for _, q := range searches()[before:] {
			if d := asked(q, ask.later); d != "" {
				t.Fatalf("third run asked %v: %s", q, d)
			}
		}
		items, total = allPronetResults(t, c, s.ID, nil)
		if total != first.TotalResults+int64(added) {
			t.Fatalf("total %d after %d new, first %d", total, added, first.TotalResults)
		}
		fresh := 0
		for _, it := range items {
			if !seen[it.ID] {
				fresh++
				if it.PublishedAt <= newest {
					t.Fatalf("new result %s published %s, not after the newest collected %s", it.ID, it.PublishedAt, newest)
				}
			}
		}
		if fresh != added {
			t.Fatalf("%d results are new, the run said %d", fresh, added)
		}

		// One new-post execution per new pronet result.
		executions := func() []map[string]any {
			var page struct {
				Data []struct {
					Trigger map[string]any `json:"trigger"`
				} `json:"data"`
			}
			if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions?page_size=100", nil, 200).Body, &page); err != nil {
				t.Fatal(err)
			}
			var out []map[string]any
			for _, x := range page.Data {
				out = append(out, x.Trigger)
			}
			return out
		}
		waitUntil(t, ts, "one execution per new result", func() bool { return len(executions()) == added })
		for _, tr := range executions() {
			if tr["source"] != "pronet" || tr["search_id"] != s.ID || !strings.Contains(tr["post_url"].(string), "urn:li:activity:") || tr["result"] == nil {
				t.Fatalf("new-post payload %v", tr)
			}
		}

		// Results filtered by their author: the authors become people whose
		// profiles are read in the background; then a country or a title
		// keeps exactly the results whose author has it, with exact totals.
		country, title := "", ""
		byCountry, byTitle := map[string]bool{}, map[string]bool{}
		for _, it := range items {
			if strings.Contains(it.Author.ProfileURL, "/company/") {
				continue // company pages are nobody's profile
			}
			p, err := world.PersonByPronet(it.Author.Username)
			if err != nil {
				t.Fatal(err)
			}
			if country == "" {
				country, title = p.CountryCode, strings.Fields(p.Title)[len(strings.Fields(p.Title))-1]
			}
			byCountry[it.ID] = p.CountryCode == country
			byTitle[it.ID] = strings.Contains(strings.ToLower(p.Title), strings.ToLower(title))
		}
		want := func(m map[string]bool) []string {
			var ids []string
			for _, it := range items {
				if m[it.ID] {
					ids = append(ids, it.ID)
				}
			}
			return ids
		}
		for _, f := range []struct {
			q    url.Values
			want []string
		}{
			{url.Values{"country": {strings.ToLower(country)}}, want(byCountry)},
			{url.Values{"job_title": {strings.ToUpper(title)}}, want(byTitle)},
		} {
			waitUntil(t, ts, "authors' profiles matching "+f.q.Encode(), func() bool {
				got, n, stable := pagePronetResults(t, c, s.ID, f.q)
				if !stable {
					return false
				}
				var ids []string
				for _, it := range got {
					ids = append(ids, it.ID)
				}
				return slices.Equal(ids, f.want) && n == int64(len(f.want))
			})
			if len(f.want) == 0 {
				t.Fatalf("the oracle expects no result for %v", f.q)
			}
			// The same filter as CSV: the same rows, in the same order.
			q := cloneValues(f.q)
			q.Set("format", "csv")
			r := mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID+"/results?"+q.Encode(), nil, 200)
			rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
			if err != nil || len(rows) != len(f.want)+1 || rows[0][0] != "id" {
				t.Fatalf("CSV of %v: %d rows, %v", f.q, len(rows), err)
			}
			for i, id := range f.want {
				if rows[i+1][0] != id || rows[i+1][1] != "pronet" {
					t.Fatalf("CSV row %d = %v, want result %s", i+1, rows[i+1][:2], id)
				}
			}
		}

		// PATCH changes the pronet filters, and the next run asks for them.
		var patched pronetSearchView
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"name": "founders' videos",
			"filters": map[string]any{"content_type": "videos", "pronet_sort_by": "RELEVANCE", "job_titles": []string{"Founder"}, "time_frame": "past-month"}}, 200).Data(&patched)
		if patched.Name != "founders' videos" || patched.Filters.ContentType != "videos" || patched.Filters.PronetSortBy != "relevance" ||
			!slices.Equal(patched.Filters.JobTitles, []string{"Founder"}) || patched.Filters.TimeFrame != "past-month" || patched.Stats != nil {
			t.Fatalf("patched search = %+v", patched)
		}
		if got := getPronet(t, c, s.ID); got.Filters.ContentType != "videos" || got.Filters.PronetSortBy != "relevance" {
			t.Fatalf("GET after PATCH = %+v", got)
		}
		before = len(searches())
		runSearch(t, c, s.ID)
		if len(searches()) == before {
			t.Fatal("the run after PATCH asked the provider nothing")
		}
		for _, q := range searches()[before:] {
			if d := asked(q, ask.patched); d != "" {
				t.Fatalf("run after PATCH asked %v: %s", q, d)
			}
		}

		// Pause and resume: a paused search does not run; a resumed one runs at once.
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"status": "paused"}, 200).Data(&patched)
		if patched.Status != "paused" || patched.NextRunAt != nil {
			t.Fatalf("paused search = %+v", patched)
		}
		mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 409)
		lastRun := *getPronet(t, c, s.ID).LastRunAt
		clk.Advance(time.Minute)
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"status": "active"}, 200).Data(&patched)
		if patched.Status != "active" || patched.NextRunAt == nil {
			t.Fatalf("resumed search = %+v", patched)
		}
		waitUntil(t, ts, "the resumed run", func() bool { return *getPronet(t, c, s.ID).LastRunAt != lastRun })

		// The list shows it among the others; delete stops it at once.
		var list struct {
			Data []pronetSearchView `json:"data"`
		}
		json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/searches", nil, 200).Body, &list)
		if len(list.Data) != 1 || list.Data[0].Query.MonitoringType != "pronet-posts" {
			t.Fatalf("list = %+v", list.Data)
		}
		mustDo(t, c, http.MethodDelete, "/v1/searches/"+s.ID, nil, 200)
		mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID, nil, 404)
		mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID+"/results", nil, 404)
		mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 404)
	})
}

func TestPronetProfileMentionsAndTitles(t *testing.T) {
	forEachEngineAndProvider(t, func(t *testing.T, engine store.Dialect, provider string) {
		clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
		ts := pronetServer(t, engine, provider, clk)
		c := ts.Client
		world := sandbox.New(sandbox.Config{Seed: 1, Now: clk.Now}).World()

		t.Run("profile monitor follows with a watermark", func(t *testing.T) {
			s := createPronet(t, c, "profile", map[string]any{"name": "Jane", "profile_url": "https://linkedin.com/in/jane-doe/", "max_results": 10})
			if s.Query.MonitoringType != "pronet-profile" || s.Query.ProfileURL != "https://www.linkedin.com/in/jane-doe" ||
				s.Filters.ContentType != "" || s.Filters.PronetSortBy != "" {
				t.Fatalf("profile monitor = %+v", s)
			}
			waitUntil(t, ts, "the first run", func() bool { return getPronet(t, c, s.ID).LastRunAt != nil })
			items, total := allPronetResults(t, c, s.ID, nil)
			if total == 0 {
				t.Fatal("the first run collected nothing")
			}
			for _, it := range items {
				checkPronetItem(t, it)
				if it.Author.Username != "jane-doe" {
					t.Fatalf("the monitor collected a post by %s", it.Author.Username)
				}
			}
			profilePosts := func() []url.Values { return pronetRequests(t, ts, provider, "profile_posts") }
			reqs := profilePosts()
			if len(reqs) == 0 {
				t.Fatal("the first run asked nothing")
			}
			if q := reqs[0]; asked(q, map[string]url.Values{
				providerContract:   {"username": {"jane-doe"}},
				providerHarvestAPI: {"profilePublicIdentifier": {"jane-doe"}},
				providerApify:      {"targetUrls": {"https://www.linkedin.com/in/jane-doe/"}},
			}[provider]) != "" || askedAfter(provider, q, clk.Now().Add(-7*24*time.Hour), clk.Now()) != "" {
				t.Fatalf("first run asked %v: %s", q, askedAfter(provider, q, clk.Now().Add(-7*24*time.Hour), clk.Now()))
			}
			newest := items[0].PublishedAt
			// Again at once: only posts after the newest one collected.
			before := len(profilePosts())
			if n := runSearch(t, c, s.ID); n != 0 {
				t.Fatalf("a second run at once stored %d posts", n)
			}
			assertAfter := func(from int) {
				t.Helper()
				reqs := profilePosts()[from:]
				if len(reqs) == 0 {
					t.Fatal("the run asked nothing")
				}
				want, err := time.Parse(time.RFC3339Nano, newest)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range reqs {
					if d := askedAfter(provider, q, want, clk.Now()); d != "" {
						t.Fatalf("run asked %v, want the posts after the newest collected, %s: %s", q, newest, d)
					}
				}
			}
			assertAfter(before)
			clk.Advance(2 * 24 * time.Hour)
			before = len(profilePosts())
			added := runSearch(t, c, s.ID)
			assertAfter(before)
			items, total = allPronetResults(t, c, s.ID, nil)
			if added == 0 || total != int64(len(items)) || items[0].PublishedAt <= newest {
				t.Fatalf("two days later: %d new, newest %s", added, items[0].PublishedAt)
			}
		})

		t.Run("previews are free", func(t *testing.T) {
			u0, _ := c.Usage(t.Context(), "", "")
			var preview struct {
				Data []pronetResult `json:"data"`
				Meta struct {
					Count          int    `json:"count"`
					TotalAvailable int    `json:"total_available"`
					MonitoringType string `json:"monitoring_type"`
				} `json:"meta"`
			}
			r := mustDo(t, c, http.MethodPost, "/v1/searches/pronet/posts/preview", map[string]any{"keywords": []string{"sales"}, "max_results": 10, "frequency": "HOURLY"}, 200)
			json.Unmarshal(r.Body, &preview)
			if preview.Meta.MonitoringType != "pronet-posts" || preview.Meta.Count != len(preview.Data) || preview.Meta.Count == 0 || preview.Meta.Count > 10 {
				t.Fatalf("posts preview meta = %+v", preview.Meta)
			}
			for _, it := range preview.Data {
				checkPronetItem(t, it)
			}
			r = mustDo(t, c, http.MethodPost, "/v1/searches/pronet/profile/preview", map[string]any{"name": "ignored", "profile_url": "https://www.linkedin.com/in/jane-doe"}, 200)
			json.Unmarshal(r.Body, &preview)
			if preview.Meta.MonitoringType != "pronet-profile" || preview.Meta.Count == 0 {
				t.Fatalf("profile preview meta = %+v", preview.Meta)
			}
			// A missing profile is a 404, except on Apify, whose actor pushes nothing for it: an
			// empty preview (docs/providers.md, "Apify adapter").
			if provider == providerApify {
				r = mustDo(t, c, http.MethodPost, "/v1/searches/pronet/profile/preview", map[string]any{"profile_url": "https://www.linkedin.com/in/missing-x"}, 200)
				if json.Unmarshal(r.Body, &preview) != nil || preview.Meta.Count != 0 || len(preview.Data) != 0 {
					t.Fatalf("preview of a missing profile on apify = %.300s", r.Body)
				}
			} else {
				mustDo(t, c, http.MethodPost, "/v1/searches/pronet/profile/preview", map[string]any{"profile_url": "https://www.linkedin.com/in/missing-x"}, 404)
			}
			u1, _ := c.Usage(t.Context(), "", "")
			if u1.Credits.TotalConsumed != u0.Credits.TotalConsumed || u1.Monitors.Total != u0.Monitors.Total {
				t.Fatalf("previews spent or created: %+v then %+v", u0, u1)
			}
		})

		t.Run("mentions without keywords", func(t *testing.T) {
			m := world.MostMentioned()[0]
			s := createPronet(t, c, "posts", map[string]any{"name": "mentions", "mentions_member": []string{m.PronetURN()}, "max_results": 50})
			if !slices.Equal(s.Query.MentionsMember, []string{m.PronetURN()}) || len(s.Query.Keywords) != 0 {
				t.Fatalf("mention search = %+v", s)
			}
			searches := func() []url.Values { return pronetRequests(t, ts, provider, "search") }
			before := len(searches())
			if provider == providerApify {
				// The search actor has no mention filter and its posts carry no member ids
				// (docs/providers.md): the run is refused naming the provider, asks nothing, and
				// the search records why.
				e := mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 422).Err()
				if e.Code != "PROVIDER_UNSUPPORTED" || !strings.Contains(e.Message, "apify") {
					t.Fatalf("mention run on apify = %+v", e)
				}
				if n := len(searches()) - before; n != 0 {
					t.Fatalf("the refused run started %d actor runs", n)
				}
				if got := getPronet(t, c, s.ID); got.LastError == nil || !strings.Contains(*got.LastError, "apify") || got.Status != "active" {
					t.Fatalf("after a refused run the search is %+v (last_error %v)", got, got.LastError)
				}
				return
			}
			runSearch(t, c, s.ID)
			mentions, keywords := url.Values{"mentionsMember": {m.PronetURN()}}, "keywords"
			if provider == providerHarvestAPI {
				mentions, keywords = url.Values{"mentioningMember": {strings.TrimPrefix(m.PronetURN(), "urn:li:member:")}}, "search"
			}
			if len(searches()) == before {
				t.Fatal("the mention run asked the provider nothing")
			}
			for _, q := range searches()[before:] {
				if d := asked(q, mentions); d != "" || q.Get(keywords) != "" {
					t.Fatalf("mention run asked %v: %s", q, d)
				}
			}
			items, _ := allPronetResults(t, c, s.ID, nil)
			if len(items) == 0 {
				t.Fatalf("no post of the week mentions %s", m.FullName())
			}
			for _, it := range items {
				if !strings.Contains(it.Content.Text, m.FullName()) {
					t.Fatalf("result %s does not mention %s: %q", it.ID, m.FullName(), it.Content.Text)
				}
			}
		})

		t.Run("job titles keep authors who hold one", func(t *testing.T) {
			s := createPronet(t, c, "posts", map[string]any{"name": "titles", "keywords": []string{"sales"}, "job_titles": []string{"founder", "Head of"},
				"content_type": "posts", "pronet_sort_by": "date_posted", "time_frame": "past-month", "max_results": 100})
			if !slices.Equal(s.Filters.JobTitles, []string{"founder", "Head of"}) || s.Filters.TimeFrame != "past-month" {
				t.Fatalf("titles search = %+v", s)
			}
			runSearch(t, c, s.ID)
			items, _ := allPronetResults(t, c, s.ID, nil)
			if len(items) == 0 {
				t.Fatal("no founder or head of anything posted about sales in a month")
			}
			for _, it := range items {
				p, err := world.PersonByPronet(it.Author.Username)
				title := strings.ToLower(p.Title)
				if err != nil || !strings.Contains(title, "founder") && !strings.Contains(title, "head of") {
					t.Fatalf("result by %s, %q", it.Author.Username, p.Title)
				}
			}
		})

		t.Run("HOURLY needs ENTERPRISE or CUSTOM", func(t *testing.T) {
			starter := newKey(t, ts, newAccount(t, ts, "starter", "STARTER", ""), "*")
			for _, tc := range []struct{ kind, body string }{
				{"posts", `{"name": "x", "keywords": ["a"], "frequency": "HOURLY"}`},
				{"profile", `{"name": "x", "profile_url": "https://www.linkedin.com/in/jane-doe", "frequency": "hourly"}`},
			} {
				if e := mustDo(t, starter, http.MethodPost, "/v1/searches/pronet/"+tc.kind, tc.body, 403).Err(); e.Code != "PLAN_REQUIRED" {
					t.Errorf("HOURLY %s on STARTER: %+v", tc.kind, e)
				}
			}
			s := createPronet(t, starter, "posts", map[string]any{"name": "x", "keywords": []string{"a"}})
			if e := mustDo(t, starter, http.MethodPatch, "/v1/searches/"+s.ID, `{"filters": {"frequency": "HOURLY"}}`, 403).Err(); e.Code != "PLAN_REQUIRED" {
				t.Errorf("PATCH to HOURLY on STARTER: %+v", e)
			}
			if got := createPronet(t, c, "profile", map[string]any{"name": "x", "profile_url": "https://www.linkedin.com/in/jane-doe", "frequency": "HOURLY"}); got.Filters.Frequency != "HOURLY" {
				t.Fatalf("HOURLY on CUSTOM = %+v", got)
			}
		})
	})
}

func TestPronetSearchValidation(t *testing.T) {
	ts := startServer(t, serverEnv(t, store.SQLite, nil))
	c := ts.Client
	long := func(n int) string { return strings.Repeat("x", n) }
	list := func(n int, f func(i int) string) string {
		var parts []string
		for i := range n {
			parts = append(parts, strconv.Quote(f(i)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	word := func(i int) string { return "k" + strconv.Itoa(i) }
	const posts, profile = "/v1/searches/pronet/posts", "/v1/searches/pronet/profile"
	cases := []struct {
		name, path, body, field string
	}{
		{"missing name", posts, `{"keywords": ["a"]}`, "body.name"},
		{"empty name", posts, `{"name": "", "keywords": ["a"]}`, "body.name"},
		{"long name", posts, `{"name": "` + long(256) + `", "keywords": ["a"]}`, "body.name"},
		{"11 keywords", posts, `{"name": "x", "keywords": ` + list(11, word) + `}`, "body.keywords"},
		{"11 in total", posts, `{"name": "x", "keywords": ["a","b","c","d","e"], "keywords_and": ["f","g","h"], "keywords_not": ["i","j","k"]}`, "body.keywords"},
		{"no keywords nor mention", posts, `{"name": "x", "job_titles": ["CEO"]}`, "body.keywords"},
		{"only exclusions", posts, `{"name": "x", "keywords_not": ["spam"]}`, "body.keywords"},
		{"empty keyword", posts, `{"name": "x", "keywords": ["ok", " "]}`, "body.keywords[1]"},
		{"only quotes", posts, `{"name": "x", "keywords": ["ok"], "keywords_and": ["\"\""]}`, "body.keywords_and[0]"},
		{"long keyword", posts, `{"name": "x", "keywords_not": ["` + long(101) + `"], "keywords": ["a"]}`, "body.keywords_not[0]"},
		{"11 job titles", posts, `{"name": "x", "keywords": ["a"], "job_titles": ` + list(11, word) + `}`, "body.job_titles"},
		{"long job title", posts, `{"name": "x", "keywords": ["a"], "job_titles": ["` + long(101) + `"]}`, "body.job_titles[0]"},
		{"empty job title", posts, `{"name": "x", "keywords": ["a"], "job_titles": ["CEO", ""]}`, "body.job_titles[1]"},
		{"content_type", posts, `{"name": "x", "keywords": ["a"], "content_type": "reels"}`, "body.content_type"},
		{"pronet_sort_by", posts, `{"name": "x", "keywords": ["a"], "pronet_sort_by": "likes"}`, "body.pronet_sort_by"},
		{"member URN", posts, `{"name": "x", "mentions_member": ["urn:li:member:1", "jane-doe"]}`, "body.mentions_member[1]"},
		{"fsd URN", posts, `{"name": "x", "mentions_member": ["urn:li:fsd_profile:ACoAAB"]}`, "body.mentions_member[0]"},
		{"11 members", posts, `{"name": "x", "mentions_member": ` + list(11, func(i int) string { return "urn:li:member:" + strconv.Itoa(i+1) }) + `}`, "body.mentions_member"},
		{"company id", posts, `{"name": "x", "mentions_organization": ["acme"]}`, "body.mentions_organization[0]"},
		{"11 companies", posts, `{"name": "x", "mentions_organization": ` + list(11, func(i int) string { return strconv.Itoa(i + 1) }) + `}`, "body.mentions_organization"},
		{"time_frame past-year", posts, `{"name": "x", "keywords": ["a"], "time_frame": "past-year"}`, "body.time_frame"},
		{"time_frame", posts, `{"name": "x", "keywords": ["a"], "time_frame": "yesterday"}`, "body.time_frame"},
		{"max_results low", posts, `{"name": "x", "keywords": ["a"], "max_results": 9}`, "body.max_results"},
		{"max_results high", posts, `{"name": "x", "keywords": ["a"], "max_results": 101}`, "body.max_results"},
		{"frequency", posts, `{"name": "x", "keywords": ["a"], "frequency": "YEARLY"}`, "body.frequency"},
		{"wrong type", posts, `{"name": "x", "keywords": "a"}`, "body.keywords"},
		{"unknown field", posts, `{"name": "x", "keywords": ["a"], "search_type": "Latest"}`, "body.search_type"},
		{"profile url host", profile, `{"name": "x", "profile_url": "https://x.com/jane-doe"}`, "body.profile_url"},
		{"company url", profile, `{"name": "x", "profile_url": "https://www.linkedin.com/company/acme"}`, "body.profile_url"},
		{"profile url missing", profile, `{"name": "x"}`, "body.profile_url"},
		{"profile name", profile, `{"profile_url": "https://www.linkedin.com/in/jane-doe"}`, "body.name"},
		{"profile max_results", profile, `{"name": "x", "profile_url": "https://www.linkedin.com/in/jane-doe", "max_results": 500}`, "body.max_results"},
		{"profile frequency", profile, `{"name": "x", "profile_url": "https://www.linkedin.com/in/jane-doe", "frequency": "never"}`, "body.frequency"},
		{"profile keywords", profile, `{"name": "x", "profile_url": "https://www.linkedin.com/in/jane-doe", "keywords": ["a"]}`, "body.keywords"},
		{"posts preview validates", posts + "/preview", `{"keywords": ["a"], "content_type": "reels"}`, "body.content_type"},
		{"profile preview validates", profile + "/preview", `{"profile_url": "https://www.linkedin.com/in/"}`, "body.profile_url"},
	}
	for _, tc := range cases {
		r := mustDo(t, c, http.MethodPost, tc.path, tc.body, 400)
		if e := r.Err(); e.Code != "VALIDATION_ERROR" || !e.HasField(tc.field) {
			t.Errorf("%s: %s, want VALIDATION_ERROR naming %s", tc.name, r.Body, tc.field)
		}
	}

	kw := createPronet(t, c, "posts", map[string]any{"name": "kw", "keywords": []string{"a"}})
	pr := createPronet(t, c, "profile", map[string]any{"name": "pr", "profile_url": "https://www.linkedin.com/in/jane-doe"})
	mb := createSearch(t, c, map[string]any{"name": "mb", "keywords": []string{"a"}})
	for _, tc := range []struct{ id, body, field string }{
		{kw.ID, `{"filters": {"time_frame": "past-year"}}`, "body.filters.time_frame"},
		{kw.ID, `{"filters": {"content_type": "reels"}}`, "body.filters.content_type"},
		{kw.ID, `{"filters": {"pronet_sort_by": "likes"}}`, "body.filters.pronet_sort_by"},
		{kw.ID, `{"filters": {"job_titles": ["` + long(101) + `"]}}`, "body.filters.job_titles[0]"},
		{kw.ID, `{"filters": {"max_results": 5}}`, "body.filters.max_results"},
		{pr.ID, `{"filters": {"job_titles": ["CEO"]}}`, "body.filters.job_titles"},
		{pr.ID, `{"filters": {"content_type": "videos"}}`, "body.filters.content_type"},
		{mb.ID, `{"filters": {"content_type": "videos"}}`, "body.filters.content_type"},
		{mb.ID, `{"filters": {"pronet_sort_by": "relevance"}}`, "body.filters.pronet_sort_by"},
	} {
		if e := mustDo(t, c, http.MethodPatch, "/v1/searches/"+tc.id, tc.body, 400).Err(); e.Code != "VALIDATION_ERROR" || !e.HasField(tc.field) {
			t.Errorf("PATCH %s: %+v, want a detail naming %s", tc.body, e, tc.field)
		}
	}
	// Nothing rejected was created or charged.
	u, _ := c.Usage(t.Context(), "", "")
	if u.Monitors.Total != 3 || u.Credits.TotalConsumed != 3 {
		t.Fatalf("usage after rejected requests = %+v", u)
	}
	if got := getPronet(t, c, kw.ID); got.Filters.ContentType != "posts" || got.Filters.TimeFrame != "past-week" || got.Filters.MaxResults != 50 {
		t.Fatalf("rejected PATCHes changed the search: %+v", got)
	}
}

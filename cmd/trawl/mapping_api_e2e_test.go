package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// TestMappingAPI drives POST /v1/social/mapping and POST /v1/discover/creators
// over HTTP against a pool that a topic collected from the sandbox: every
// field's validation, the plan and permission gates, includes, credits
// under concurrency and 422 with nothing charged.
func TestMappingAPI(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		env := serverEnv(t, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_RATE_LIMIT_CUSTOM": "100000",
			"TRAWL_RATE_LIMIT_ENTERPRISE": "100000", "TRAWL_RATE_LIMIT_STARTER": "100000"})
		ts := startServer(t, env)
		c := ts.Client
		var tp topicView
		if err := mustDo(t, c, http.MethodPost, "/v1/topics", map[string]any{"name": "sales", "keywords": []string{"sales"},
			"time_frame": "past-24h", "max_results": 20}, 201).Data(&tp); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, ts, "engagers with profiles", func() bool {
			es, _ := listAll[topicEngagement](t, c, "/v1/topics/"+tp.ID+"/engagements")
			for _, e := range es {
				if e.Prospect.Company == "" {
					return false
				}
			}
			return len(es) >= 10
		})
		// Wait for the topic's hydrations to settle: the answers below are
		// compared with each other.
		salesAll := map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30, "page_size": 50}
		var pool mappingAnswer
		waitUntil(t, ts, "the pool to settle", func() bool {
			tpNow := getTopic(t, c, tp.ID)
			var a mappingAnswer
			if err := mustDo(t, c, http.MethodPost, "/v1/social/mapping", salesAll, 200).Data(&a); err != nil {
				t.Fatal(err)
			}
			settled := a.Total == pool.Total && tpNow.EngagementsCount == tp.EngagementsCount
			pool, tp = a, tpNow
			return settled && pool.Total >= 10
		})

		t.Run("posting lists on /metrics", func(t *testing.T) {
			// PostgreSQL's tick builds them; SQLite has none.
			if _, ok := metricValue(t, c, "trawl_mapping_posting_blocks"); engine == store.SQLite {
				if ok {
					t.Fatal("SQLite exports trawl_mapping_posting_blocks")
				}
				return
			}
			waitUntil(t, ts, "the posting lists", func() bool {
				blocks, _ := metricValue(t, c, "trawl_mapping_posting_blocks")
				posts, _ := metricValue(t, c, "trawl_mapping_posting_posts")
				bytes, _ := metricValue(t, c, "trawl_mapping_posting_bytes")
				return blocks >= 1 && posts > 0 && bytes > 0
			})
		})
		t.Run("validation", func(t *testing.T) { testMappingValidation(t, c) })
		t.Run("bounded keywords", func(t *testing.T) { testMappingBoundedKeywords(t, ts) })
		t.Run("gates", func(t *testing.T) { testMappingGates(t, ts) })
		t.Run("includes", func(t *testing.T) { testMappingIncludes(t, c) })
		t.Run("odd keywords", func(t *testing.T) {
			for _, kw := range []string{`"sales"`, "c++", "!!!", "NEAR", "sales OR", "-", "*", "sales:", "#sales", "Sales"} {
				for _, path := range []string{"/v1/social/mapping", "/v1/discover/creators"} {
					body := map[string]any{"engaged_with_keywords": []string{kw}, "engaged_with_days": 30}
					if path == "/v1/discover/creators" {
						body = map[string]any{"posted_about_keywords": []string{kw}, "posted_about_days": 30}
					}
					if r := post(t, c, path, body); r.Status != 200 {
						t.Errorf("%s %q = %d %s", path, kw, r.Status, r.Body)
					}
				}
			}
		})
		t.Run("credits under concurrency", func(t *testing.T) { testMappingCreditsConcurrent(t, ts) })
		t.Run("creators charge per result", func(t *testing.T) {
			acct := newAccountKey(t, ts, "STARTER", "", "discover:creators:read")
			r := mustDo(t, acct, http.MethodPost, "/v1/discover/creators", map[string]any{"posted_about_keywords": []string{"sales"},
				"posted_about_days": 30, "page_size": 50}, 200)
			var a struct {
				Results []struct {
					Company     string `json:"company"`
					CompanyLogo string `json:"company_logo"`
				} `json:"results"`
				Total int64 `json:"total"`
			}
			if err := r.Data(&a); err != nil {
				t.Fatal(err)
			}
			if a.Total == 0 || spentHeader(r) != int64(len(a.Results)) {
				t.Fatalf("creators: total %d, %d results, x-spent-credits %q", a.Total, len(a.Results), r.Header.Get("x-spent-credits"))
			}
			// The company fields come from the profile, its current company's logo too.
			logos := 0
			for _, c := range a.Results {
				if strings.HasPrefix(c.CompanyLogo, "https://") {
					logos++
				}
			}
			if logos == 0 {
				t.Errorf("no creator shows a company_logo: %+v", a.Results)
			}
			r = mustDo(t, acct, http.MethodPost, "/v1/discover/creators", map[string]any{"posted_about_keywords": []string{"sales"},
				"posted_about_days": 30, "page": 1000}, 200)
			if spentHeader(r) != 0 {
				t.Fatalf("an empty page: x-spent-credits %q", r.Header.Get("x-spent-credits"))
			}
			u := usageOf(t, acct)
			if u.Credits.ByFeature["discover_creators"] != int64(len(a.Results)) || u.Credits.TotalConsumed != int64(len(a.Results)) {
				t.Fatalf("usage %+v, want %d for discover_creators", u.Credits, len(a.Results))
			}
		})

		filtered, filteredPeople := narrowingFilters(t, ts)
		// The same data behind a limit of one candidate, and a budget of
		// keyword matches of 2 MiB.
		ts.stop()
		env["TRAWL_MAPPING_MAX_CANDIDATES"] = "1"
		env["TRAWL_MAPPING_CACHE_BYTES"] = "2097152"
		ts = startServer(t, env)
		t.Run("too broad charges nothing", func(t *testing.T) { testMappingTooBroadAPI(t, ts) })
		t.Run("match budget set", func(t *testing.T) {
			if n, _ := metricValue(t, ts.Client, "trawl_mapping_keyword_match_budget_bytes"); n != 2097152 {
				t.Errorf("trawl_mapping_keyword_match_budget_bytes = %v, want TRAWL_MAPPING_CACHE_BYTES's 2097152", n)
			}
			bad := func(k string) string {
				if k == "TRAWL_MAPPING_CACHE_BYTES" {
					return "1000"
				}
				return env[k]
			}
			if _, err := runCLI(t, bad, "migrate"); err == nil || !strings.Contains(err.Error(), "TRAWL_MAPPING_CACHE_BYTES") {
				t.Errorf("a budget of 1000 bytes: err = %v, want it to name TRAWL_MAPPING_CACHE_BYTES", err)
			}
		})
		t.Run("the limit weighs what the filters leave", func(t *testing.T) {
			ts = testMappingLimitWeighsFilters(t, ts, filtered, filteredPeople)
		})
	})
}

// validationCase is a body and the field its 400 must name.
type validationCase struct {
	body  string
	field string
}

func testMappingValidation(t *testing.T, c *client.Client) {
	const m = `"engaged_with_keywords": ["sales"], "engaged_with_days": 7`
	const cr = `"posted_about_keywords": ["sales"], "posted_about_days": 7`
	// Each firmographic field, as both bodies share them.
	shared := func(base string) []validationCase {
		return []validationCase{
			{`{` + base + `, "job_titles": ["cto", " "]}`, "body.job_titles[1]"},
			{`{` + base + `, "job_titles": "cto"}`, "body.job_titles"},
			{`{` + base + `, "job_titles_excludes": [""]}`, "body.job_titles_excludes[0]"},
			{`{` + base + `, "company_domain_includes": ["acme.com", "acme"]}`, "body.company_domain_includes[1]"},
			{`{` + base + `, "company_domain_includes": ["https://acme.com/"]}`, "body.company_domain_includes[0]"},
			{`{` + base + `, "company_domain_excludes": ["acme .com"]}`, "body.company_domain_excludes[0]"},
			{`{` + base + `, "company_domain_includes": ["", "acme"]}`, "body.company_domain_includes[1]"},
			{`{` + base + `, "company_domain_excludes": [" ", "acme.com", "acme@com"]}`, "body.company_domain_excludes[2]"},
			{`{` + base + `, "company_sizes": ["huge"]}`, "body.company_sizes[0]"},
			{`{` + base + `, "company_sizes": ["1-10", "10-50"]}`, "body.company_sizes[1]"},
			{`{` + base + `, "company_sizes_excludes": ["10000+"]}`, "body.company_sizes_excludes[0]"},
			{`{` + base + `, "industries": [""]}`, "body.industries[0]"},
			{`{` + base + `, "industries_excludes": ["Software", ""]}`, "body.industries_excludes[1]"},
			{`{` + base + `, "location_country": ["Narnia"]}`, "body.location_country[0]"},
			{`{` + base + `, "location_country": ["US", "XX"]}`, "body.location_country[1]"},
			{`{` + base + `, "location_excludes": ["USA", "Atlantis"]}`, "body.location_excludes[1]"},
			{`{` + base + `, "followers": ["1000-5000", "10-"]}`, "body.followers[1]"},
			{`{` + base + `, "followers": ["lots"]}`, "body.followers[0]"},
			{`{` + base + `, "followers": ["5000-1000"]}`, "body.followers[0]"},
			{`{` + base + `, "followers": ["-5+"]}`, "body.followers[0]"},
			{`{` + base + `, "followers": [1000]}`, "body.followers[0]"},
			{`{` + base + `, "job_titles": ["cto", "` + strings.Repeat("x", 101) + `"]}`, "body.job_titles[1]"},
			{`{` + base + `, "job_titles_excludes": ` + jsonList(11, "cto") + `}`, "body.job_titles_excludes"},
			{`{` + base + `, "company_domain_includes": ["` + strings.Repeat("a", 251) + `.com"]}`, "body.company_domain_includes[0]"},
			{`{` + base + `, "industries": ["Software", "` + strings.Repeat("é", 101) + `"]}`, "body.industries[1]"},
			{`{` + base + `, "industries_excludes": ` + jsonList(101, "Software") + `}`, "body.industries_excludes"},
			{`{` + base + `, "location_country": ` + jsonList(251, "US") + `}`, "body.location_country"},
			{`{` + base + `, "followers": ` + jsonList(11, "10+") + `}`, "body.followers"},
			{`{` + base + `, "company_sizes": ` + jsonList(9, "1-10") + `}`, "body.company_sizes"},
			{`{` + base + `, "page": 0}`, "body.page"},
			{`{` + base + `, "page": 10000001}`, "body.page"},
			{`{` + base + `, "page": 9223372036854775807, "page_size": 50}`, "body.page"},
			{`{` + base + `, "page": "2"}`, "body.page"},
			{`{` + base + `, "page_size": 20}`, "body.page_size"},
			{`{` + base + `, "page_size": 100}`, "body.page_size"},
			{`{` + base + `, "colour": "red"}`, "body.colour"},
		}
	}
	mappingCases := append(shared(m),
		validationCase{`{"engaged_with_days": 7}`, "body.engaged_with_keywords"},
		validationCase{`{"engaged_with_keywords": [], "engaged_with_days": 7}`, "body.engaged_with_keywords"},
		validationCase{`{"engaged_with_keywords": ["sales", " "], "engaged_with_days": 7}`, "body.engaged_with_keywords[1]"},
		validationCase{`{"engaged_with_keywords": ["a","b","c","d","e","f","g","h","i","j","k"], "engaged_with_days": 7}`, "body.engaged_with_keywords"},
		validationCase{`{"engaged_with_keywords": "sales", "engaged_with_days": 7}`, "body.engaged_with_keywords"},
		validationCase{`{"engaged_with_keywords": ["sales"]}`, "body.engaged_with_days"},
		validationCase{`{"engaged_with_keywords": ["sales"], "engaged_with_days": 0}`, "body.engaged_with_days"},
		validationCase{`{"engaged_with_keywords": ["sales"], "engaged_with_days": 31}`, "body.engaged_with_days"},
		validationCase{`{"engaged_with_keywords": ["sales"], "engaged_with_days": 1.5}`, "body.engaged_with_days"},
		validationCase{`{` + m + `, "engaged_with_topic_strength": -1}`, "body.engaged_with_topic_strength"},
		validationCase{`{` + m + `, "engaged_with_topic_strength": 6}`, "body.engaged_with_topic_strength"},
		validationCase{`{` + m + `, "includes": ["first_name", "email"]}`, "body.includes[1]"},
		validationCase{`{` + m + `, "includes": ["post"]}`, "body.includes[0]"},
		validationCase{`{` + m + `, "posted_about_days": 7}`, "body.posted_about_days"},
	)
	creatorCases := append(shared(cr),
		validationCase{`{"posted_about_days": 7}`, "body.posted_about_keywords"},
		validationCase{`{"posted_about_keywords": [], "posted_about_days": 7}`, "body.posted_about_keywords"},
		validationCase{`{"posted_about_keywords": [""], "posted_about_days": 7}`, "body.posted_about_keywords[0]"},
		validationCase{`{"posted_about_keywords": ["sales"]}`, "body.posted_about_days"},
		validationCase{`{"posted_about_keywords": ["sales"], "posted_about_days": 0}`, "body.posted_about_days"},
		validationCase{`{"posted_about_keywords": ["sales"], "posted_about_days": 31}`, "body.posted_about_days"},
		validationCase{`{` + cr + `, "posted_about_topic_strength": -1}`, "body.posted_about_topic_strength"},
		validationCase{`{` + cr + `, "posted_about_topic_strength": 6}`, "body.posted_about_topic_strength"},
		validationCase{`{` + cr + `, "includes": ["first_name"]}`, "body.includes"},
		validationCase{`{` + cr + `, "engaged_with_days": 7}`, "body.engaged_with_days"},
	)
	for path, cases := range map[string][]validationCase{"/v1/social/mapping": mappingCases, "/v1/discover/creators": creatorCases} {
		for _, tc := range cases {
			r := post(t, c, path, tc.body)
			e := r.Err()
			if e == nil || e.Status != 400 || e.Code != "VALIDATION_ERROR" || !e.HasField(tc.field) {
				t.Errorf("%s %s = %d %s, want 400 naming %s", path, tc.body, r.Status, r.Body, tc.field)
				continue
			}
			if got := r.Header.Get("x-spent-credits"); got != "0" {
				t.Errorf("%s %s: x-spent-credits = %q, want 0 on a 400", path, tc.body, got)
			}
		}
		r := post(t, c, path, `{"engaged_with_keywords": `)
		if e := r.Err(); e == nil || e.Status != 400 || e.Code != "BAD_REQUEST" {
			t.Errorf("%s: malformed JSON = %d %s", path, r.Status, r.Body)
		}
	}
	// Every problem is listed at once.
	r := post(t, c, "/v1/social/mapping", `{"engaged_with_keywords": [""], "engaged_with_days": 7, "followers": ["x"], "location_country": ["Narnia"]}`)
	if e := r.Err(); e == nil || !e.HasField("body.engaged_with_keywords[0]") || !e.HasField("body.followers[0]") || !e.HasField("body.location_country[0]") {
		t.Errorf("three problems = %d %s", r.Status, r.Body)
	}
	// What is valid: lower-case enums are not the spec's, but names,
	// codes, ranges with commas and every bucket are.
	for _, body := range []string{
		`{` + m + `, "location_country": ["us", "United Kingdom", "germany"], "location_excludes": ["FR"]}`,
		`{` + m + `, "followers": ["1,000-5,000", "10000+", "0-0"]}`,
		`{` + m + `, "company_sizes": ["1-10","11-50","51-200","201-500","501-1000","1001-5000","5001-10000","10001+"]}`,
		`{` + m + `, "page_size": 25, "page": 3, "engaged_with_topic_strength": 0}`,
		`{` + m + `, "engaged_with_topic_strength": 5, "engaged_with_days": 30}`,
		`{` + m + `, "company_domain_includes": ["www.acme.com", "eu.acme.co.uk"]}`,
		// Pages far past the end, up to the deepest allowed, are empty
		// and cost nothing.
		`{` + m + `, "page": 1000000}`,
		`{` + m + `, "page": 10000000, "page_size": 50}`,
	} {
		if r := post(t, c, "/v1/social/mapping", body); r.Status != 200 || (strings.Contains(body, `000000`) && spentHeader(r) != 0) {
			t.Errorf("%s = %d %s", body, r.Status, r.Body)
		}
	}
	for _, body := range []string{
		`{` + cr + `, "location_country": ["us", "United Kingdom"], "followers": ["1,000-5,000", "10000+"], "posted_about_topic_strength": 0}`,
		`{` + cr + `, "page": 10000000, "page_size": 50}`,
	} {
		// The pool follows the wall clock, so whether a creator matches
		// varies; what is charged must equal what is returned.
		r := post(t, c, "/v1/discover/creators", body)
		var page struct {
			Results []json.RawMessage `json:"results"`
		}
		if r.Status != 200 || r.Data(&page) != nil || spentHeader(r) != int64(len(page.Results)) {
			t.Errorf("%s = %d %s", body, r.Status, r.Body)
		}
	}
}

// jsonList is a JSON array of n times v.
func jsonList(n int, v string) string {
	b, _ := json.Marshal(slices.Repeat([]string{v}, n))
	return string(b)
}

// testMappingBoundedKeywords sends what grew a process's memory without
// bound (issue 33): ten random keywords of 50,000 characters, free on a
// STARTER key. Each keyword too long or of too many words is named, the
// request is refused before it is matched, and nothing is charged; the
// longest keywords allowed are answered.
func testMappingBoundedKeywords(t *testing.T, ts *testServer) {
	starter := newAccountKey(t, ts, "STARTER", "", "*")
	custom := ts.Client
	random := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(rand.IntN(26))
		}
		return string(b)
	}
	hostile := make([]string, 10)
	for i := range hostile {
		hostile[i] = random(50_000)
	}
	body := map[string]any{"posted_about_keywords": hostile, "posted_about_days": 30}
	r := post(t, starter, "/v1/discover/creators", body)
	e := r.Err()
	if e == nil || e.Status != 400 || e.Code != "VALIDATION_ERROR" {
		t.Fatalf("ten keywords of 50,000 characters = %d %s", r.Status, r.Body[:min(len(r.Body), 500)])
	}
	for i := range hostile {
		if field := fmt.Sprintf("body.posted_about_keywords[%d]", i); !e.HasField(field) {
			t.Errorf("the 400 does not name %s", field)
		}
	}
	if got := r.Header.Get("x-spent-credits"); got != "0" {
		t.Errorf("a 400: x-spent-credits = %q, want 0", got)
	}
	// One bad keyword among good ones is named by its index, in either body.
	long, wordy := random(101), strings.Repeat("go ", 10)+"go"
	for path, tc := range map[string]struct {
		body  map[string]any
		field string
	}{
		"/v1/discover/creators": {map[string]any{"posted_about_keywords": []string{"sales", "revops", "pipeline", long}, "posted_about_days": 30},
			"body.posted_about_keywords[3]"},
		"/v1/social/mapping": {map[string]any{"engaged_with_keywords": []string{"sales", wordy}, "engaged_with_days": 30},
			"body.engaged_with_keywords[1]"},
	} {
		r := post(t, custom, path, tc.body)
		if e := r.Err(); e == nil || e.Status != 400 || e.Code != "VALIDATION_ERROR" || !e.HasField(tc.field) || len(e.Details) != 1 {
			t.Errorf("%s = %d %s, want 400 naming %s alone", path, r.Status, r.Body, tc.field)
		}
	}
	if u := usageOf(t, starter); u.Credits.TotalConsumed != 0 {
		t.Errorf("refused queries consumed %d credits", u.Credits.TotalConsumed)
	}
	// The longest keywords allowed: 100 characters, and 10 words.
	longest := make([]string, 10)
	for i := range longest {
		longest[i] = random(100)
	}
	longest[9] = strings.TrimSpace(strings.Repeat("sales ", 10))
	if r := post(t, starter, "/v1/discover/creators", map[string]any{"posted_about_keywords": longest, "posted_about_days": 30}); r.Status != 200 {
		t.Errorf("the longest keywords allowed = %d %s", r.Status, r.Body)
	}
	if r := post(t, custom, "/v1/social/mapping", map[string]any{"engaged_with_keywords": longest, "engaged_with_days": 30}); r.Status != 200 {
		t.Errorf("the longest keywords allowed = %d %s", r.Status, r.Body)
	}
	if n, ok := metricValue(t, custom, "trawl_mapping_keyword_match_bytes"); !ok || n <= 0 {
		t.Errorf("trawl_mapping_keyword_match_bytes = %v, %v; want the bytes the kept matches take", n, ok)
	}
}

func testMappingGates(t *testing.T, ts *testServer) {
	mappingBody := map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30}
	creatorsBody := map[string]any{"posted_about_keywords": []string{"sales"}, "posted_about_days": 30}
	starter := newAccountKey(t, ts, "STARTER", "", "*")
	if e := post(t, starter, "/v1/social/mapping", mappingBody).Err(); e == nil || e.Status != 403 || e.Code != "PLAN_REQUIRED" {
		t.Errorf("STARTER mapping = %+v", e)
	}
	if r := post(t, starter, "/v1/discover/creators", creatorsBody); r.Status != 200 || spentHeader(r) < 0 {
		t.Errorf("STARTER creators = %d %.300s", r.Status, r.Body)
	}
	for _, plan := range []string{"ENTERPRISE", "CUSTOM"} {
		ok := newAccountKey(t, ts, plan, "", "social:mapping:read")
		if r := post(t, ok, "/v1/social/mapping", mappingBody); r.Status != 200 {
			t.Errorf("%s mapping = %d %.300s", plan, r.Status, r.Body)
		}
		if e := post(t, ok, "/v1/discover/creators", creatorsBody).Err(); e == nil || e.Status != 403 || e.Code != "FORBIDDEN" || !e.HasField("header.x-api-key") {
			t.Errorf("%s creators without discover:creators:read = %+v", plan, e)
		}
		creatorsOnly := newAccountKey(t, ts, plan, "", "discover:creators:read,topics:read")
		if e := post(t, creatorsOnly, "/v1/social/mapping", mappingBody).Err(); e == nil || e.Status != 403 || e.Code != "FORBIDDEN" || !e.HasField("header.x-api-key") {
			t.Errorf("%s mapping without social:mapping:read = %+v", plan, e)
		}
		if r := post(t, creatorsOnly, "/v1/discover/creators", creatorsBody); r.Status != 200 {
			t.Errorf("%s creators = %d %.300s", plan, r.Status, r.Body)
		}
	}
	if r, _ := ts.Client.WithKey("").Do(t.Context(), http.MethodPost, "/v1/social/mapping", mappingBody); r.Status != 401 {
		t.Errorf("no key = %d %s", r.Status, r.Body)
	}
}

// testMappingIncludes: each member alone, and nothing else, is in every result.
func testMappingIncludes(t *testing.T, c *client.Client) {
	members := []string{"first_name", "last_name", "pronet_url", "avatar", "location", "company", "company_domain",
		"job_title", "followers", "post.text", "post.url", "post.date", "post.likes", "post.comments", "engagement.type"}
	for _, member := range members {
		r := mustDo(t, c, http.MethodPost, "/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"sales"},
			"engaged_with_days": 30, "includes": []string{member}}, 200)
		var flat struct {
			Results []map[string]json.RawMessage `json:"results"`
		}
		if err := r.Data(&flat); err != nil {
			t.Fatal(err)
		}
		if len(flat.Results) == 0 {
			t.Fatalf("includes %s: no results", member)
		}
		for _, res := range flat.Results {
			outer, inner, nested := strings.Cut(member, ".")
			if len(res) != 1 || res[outer] == nil {
				t.Fatalf("includes %s: result %v", member, keysOf(res))
			}
			if nested {
				var obj map[string]any
				if err := json.Unmarshal(res[outer], &obj); err != nil || len(obj) != 1 || obj[inner] == nil {
					t.Fatalf("includes %s: %s = %s", member, outer, res[outer])
				}
				if member == "engagement.type" && obj["type"] != "like" && obj["type"] != "comment" {
					t.Fatalf("engagement.type = %v", obj["type"])
				}
			}
		}
	}
	// Omitted: every member.
	r := mustDo(t, c, http.MethodPost, "/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30}, 200)
	var all struct {
		Results []map[string]json.RawMessage `json:"results"`
	}
	if err := r.Data(&all); err != nil {
		t.Fatal(err)
	}
	for _, res := range all.Results {
		var post, eng map[string]any
		_ = json.Unmarshal(res["post"], &post)
		_ = json.Unmarshal(res["engagement"], &eng)
		for _, m := range members {
			outer, inner, nested := strings.Cut(m, ".")
			if _, ok := res[outer]; !ok {
				t.Fatalf("no includes: result lacks %s: %v", outer, keysOf(res))
			}
			if nested {
				holder := post
				if outer == "engagement" {
					holder = eng
				}
				if _, ok := holder[inner]; !ok {
					t.Fatalf("no includes: result lacks %s", m)
				}
			}
		}
	}
	// Several members, nested ones merged.
	r = mustDo(t, c, http.MethodPost, "/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30,
		"includes": []string{"company", "post.url", "post.likes"}}, 200)
	var some struct {
		Results []map[string]json.RawMessage `json:"results"`
	}
	if err := r.Data(&some); err != nil {
		t.Fatal(err)
	}
	for _, res := range some.Results {
		var post map[string]any
		if err := json.Unmarshal(res["post"], &post); err != nil || len(res) != 2 || res["company"] == nil || len(post) != 2 || post["url"] == nil || post["likes"] == nil {
			t.Fatalf("includes company, post.url, post.likes: %v, post %v", keysOf(res), post)
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// testMappingCreditsConcurrent: 20 pages of 10 results at once against a
// balance of 50 — five are answered, the rest refused, and the ledger holds
// exactly what the answers said they spent.
func testMappingCreditsConcurrent(t *testing.T, ts *testServer) {
	poor := newAccountKey(t, ts, "ENTERPRISE", "50", "social:mapping:read")
	body := map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30, "page_size": 10}
	// The bootstrap account checks that the page holds 10 results.
	var first mappingAnswer
	if err := mustDo(t, ts.Client, http.MethodPost, "/v1/social/mapping", body, 200).Data(&first); err != nil || len(first.Results) != 10 {
		t.Fatalf("a page holds %d results (%v)", len(first.Results), err)
	}
	const parallel = 20
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		answers []*client.Response
	)
	start := make(chan struct{})
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r, err := poor.Do(t.Context(), http.MethodPost, "/v1/social/mapping", body)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			answers = append(answers, r)
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	var spent, ok int64
	for _, r := range answers {
		switch r.Status {
		case 200:
			var a mappingAnswer
			if err := r.Data(&a); err != nil {
				t.Fatal(err)
			}
			if spentHeader(r) != int64(len(a.Results)) || len(a.Results) != 10 {
				t.Errorf("200 with %d results spent %q", len(a.Results), r.Header.Get("x-spent-credits"))
			}
			spent += spentHeader(r)
			ok++
		case 403:
			if e := r.Err(); e.Code != "INSUFFICIENT_CREDITS" {
				t.Errorf("403 %s", r.Body)
			}
			if r.Header.Get("x-spent-credits") != "" && r.Header.Get("x-spent-credits") != "0" {
				t.Errorf("a refusal spent %q", r.Header.Get("x-spent-credits"))
			}
		default:
			t.Errorf("unexpected %d %s", r.Status, r.Body)
		}
	}
	u := usageOf(t, poor)
	if spent > 50 || u.Credits.ByFeature["social_mapping"] != spent || u.Credits.TotalConsumed != spent {
		t.Fatalf("%d answered spending %d; ledger %+v", ok, spent, u.Credits)
	}
	// Each page costs 10 and the balance was 50: exactly five fit.
	if ok != 5 || spent != 50 {
		t.Errorf("%d of %d answered, spending %d; want 5 and 50", ok, parallel, spent)
	}
	// Out of credits, a page still costs its results, and an empty one nothing.
	if e := post(t, poor, "/v1/social/mapping", body).Err(); e == nil || e.Code != "INSUFFICIENT_CREDITS" {
		t.Errorf("after the balance is spent: %+v", e)
	}
	r := mustDo(t, poor, http.MethodPost, "/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"sales"},
		"engaged_with_days": 30, "page": 1000}, 200)
	if spentHeader(r) != 0 {
		t.Errorf("an empty page spent %q", r.Header.Get("x-spent-credits"))
	}
	if u2 := usageOf(t, poor); u2.Credits.TotalConsumed != spent {
		t.Errorf("ledger moved to %d", u2.Credits.TotalConsumed)
	}
}

func testMappingTooBroadAPI(t *testing.T, ts *testServer) {
	acct := newAccountKey(t, ts, "ENTERPRISE", "", "*")
	for _, tc := range []struct {
		path string
		body map[string]any
		what string
	}{
		{"/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30}, "engagements"},
		{"/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30,
			"location_country": []string{"US"}, "page_size": 50}, "engagements"},
		{"/v1/discover/creators", map[string]any{"posted_about_keywords": []string{"sales"}, "posted_about_days": 30}, "authors"},
	} {
		r := post(t, acct, tc.path, tc.body)
		e := r.Err()
		if e == nil || e.Status != 422 || e.Code != "QUERY_TOO_BROAD" || !strings.Contains(e.Message, tc.what) || e.Suggestion == "" {
			t.Errorf("%s %v = %d %s", tc.path, tc.body, r.Status, r.Body)
			continue
		}
		// The message says how many, and the limit.
		if fields := strings.Fields(e.Message); !containsNumberAbove(fields, 1) || !strings.Contains(e.Message, " 1 ") {
			t.Errorf("%s: message %q", tc.path, e.Message)
		}
		if r.Header.Get("x-spent-credits") != "" && r.Header.Get("x-spent-credits") != "0" {
			t.Errorf("%s: 422 spent %q", tc.path, r.Header.Get("x-spent-credits"))
		}
	}
	// Narrow enough: answered.
	r := post(t, acct, "/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"zzzqqq"}, "engaged_with_days": 30})
	if r.Status != 200 || spentHeader(r) != 0 {
		t.Errorf("a query weighing nothing = %d %s", r.Status, r.Body)
	}
	if u := usageOf(t, acct); u.Credits.TotalConsumed != 0 || len(nonZero(u.Credits.ByFeature)) != 0 {
		t.Errorf("422s charged %+v", u.Credits)
	}
}

func containsNumberAbove(fields []string, n int64) bool {
	for _, f := range fields {
		if v, err := strconv.ParseInt(strings.Trim(f, ".,"), 10, 64); err == nil && v > n {
			return true
		}
	}
	return false
}

func nonZero(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// TestNewTopicsKeywordsKeptAtOnce: a process that creates a topic asks the
// keyword index about its keywords at once (not at the next tick, an hour
// away here), so the first mapping query over them is a kept one; the
// metrics show what the process keeps.
func TestNewTopicsKeywordsKeptAtOnce(t *testing.T) {
	ts := startServer(t, serverEnv(t, store.SQLite, nil))
	c := ts.Client
	kept := func() float64 {
		t.Helper()
		n, ok := metricValue(t, c, "trawl_mapping_keyword_matches")
		if !ok {
			t.Fatal("no trawl_mapping_keyword_matches on /metrics")
		}
		return n
	}
	if n := kept(); n != 0 {
		t.Fatalf("%v keywords kept before any topic", n)
	}
	createTopic(t, c, map[string]any{"name": "RevOps", "keywords": []string{"revops", "sales ops"}})
	deadline := time.Now().Add(30 * time.Second)
	for kept() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the new topic's keywords are not kept after 30 s: %v", kept())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// metricValue reads a series without labels from /metrics; false when the
// process does not export it.
func metricValue(t *testing.T, c *client.Client, name string) (float64, bool) {
	t.Helper()
	r := mustDo(t, c, http.MethodGet, "/metrics", nil, 200)
	for line := range strings.Lines(string(r.Body)) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatal(err)
			}
			return n, true
		}
	}
	return 0, false
}

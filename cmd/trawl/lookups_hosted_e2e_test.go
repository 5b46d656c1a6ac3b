package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/store"
)

// lookupsCharged returns a check that r spent want credits of feature and that the usage
// summary agrees, keeping the running totals in byFeature.
func lookupsCharged(c *client.Client, byFeature map[string]int64) func(t *testing.T, feature string, r *client.Response, want int) {
	return func(t *testing.T, feature string, r *client.Response, want int) {
		t.Helper()
		if got := spentHeader(r); got != int64(want) {
			t.Fatalf("x-spent-credits = %q, want %d", r.Header.Get("x-spent-credits"), want)
		}
		byFeature[feature] += int64(want)
		if u := usageOf(t, c); u.Credits.ByFeature[feature] != byFeature[feature] {
			t.Fatalf("usage %s = %d, want %d (by_feature %v)", feature, u.Credits.ByFeature[feature], byFeature[feature], u.Credits.ByFeature)
		}
	}
}

// refusedLookups checks that each request is answered with status and code and charges nothing.
func refusedLookups(t *testing.T, c *client.Client, cases []refusedLookup) {
	t.Helper()
	for _, rc := range cases {
		r := post(t, c, rc.path, rc.body)
		e := r.Err()
		if e == nil || e.Status != rc.status || e.Code != rc.code || (rc.field != "" && !e.HasField(rc.field)) {
			t.Errorf("%s %s = %d %.400s, want %d %s naming %q", rc.path, rc.body, r.Status, r.Body, rc.status, rc.code, rc.field)
			continue
		}
		if got := r.Header.Get("x-spent-credits"); got != "0" {
			t.Errorf("%s %s: x-spent-credits = %q, want 0", rc.path, rc.body, got)
		}
	}
}

type refusedLookup struct {
	path, body  string
	status      int
	code, field string
}

func TestCompanyEnrichLookup(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		charged := lookupsCharged(c, map[string]int64{})
		world := sandbox.New(sandbox.Config{Seed: 1, Now: time.Now}).World()
		co := world.Companies()[5]

		for _, companyURL := range []string{co.URL(), "https://" + co.Domain + "/about", co.Domain} {
			r := post(t, c, "/v1/company/enrich", map[string]any{"companyUrl": companyURL})
			var a struct {
				Success bool           `json:"success"`
				Data    map[string]any `json:"data"`
			}
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || !a.Success {
				t.Fatalf("company enrich %s = %d %s", companyURL, r.Status, r.Body)
			}
			d := a.Data
			if k := missingKey(d, "pronet_company_id", "pronet_url", "name", "domain", "size", "industry", "location",
				"company_logo", "city", "country", "description", "employees_count", "state", "revenue", "total_funding",
				"monthly_visitors", "technologies", "annual_growth_rate"); k != "" {
				t.Fatalf("company data lacks %s: %s", k, r.Body)
			}
			if d["name"] != co.Name || d["domain"] != co.Domain || d["pronet_url"] != "https://www.linkedin.com/company/"+co.Slug ||
				d["size"] != co.SizeBand || d["city"] != co.City || d["country"] != co.Country {
				t.Fatalf("company data = %v, want %+v", d, co)
			}
			if techs, ok := d["technologies"].([]any); !ok || techs == nil {
				t.Fatalf("technologies = %v, want a list", d["technologies"])
			}
			charged(t, "company_enrich", r, 1)
		}

		refusedLookups(t, c, []refusedLookup{
			{"/v1/company/enrich", `{}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": ""}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": "acme"}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": "https://www.linkedin.com/in/jane-doe"}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": "ftp://acme.io"}`, 400, "VALIDATION_ERROR", "body.companyUrl"},
			{"/v1/company/enrich", `{"companyUrl": "acme.io", "extra": 1}`, 400, "VALIDATION_ERROR", "body.extra"},
			{"/v1/company/enrich", `{"companyUrl": "https://www.linkedin.com/company/missing-acme"}`, 404, "NOT_FOUND", ""},
			{"/v1/company/enrich", `{"companyUrl": "no-such-company.example"}`, 404, "NOT_FOUND", ""},
			{"/v1/company/enrich", `{"companyUrl": "https://www.linkedin.com/company/error-acme"}`, 502, "UPSTREAM_ERROR", ""},
			{"/v1/company/enrich", `{"companyUrl": "https://www.linkedin.com/company/ratelimited-acme"}`, 429, "RATE_LIMITED", ""},
		})
		charged(t, "company_enrich", &client.Response{Header: map[string][]string{"X-Spent-Credits": {"0"}}}, 0)

		narrow := newAccountKey(t, ts, "STARTER", "", "enrich:profile:read")
		refusedLookups(t, narrow, []refusedLookup{
			{"/v1/company/enrich", `{"companyUrl": "acme.io"}`, 403, "FORBIDDEN", "header.x-api-key"},
		})
		allowed := newAccountKey(t, ts, "STARTER", "", "enrich:company:read")
		if r := post(t, allowed, "/v1/company/enrich", map[string]any{"companyUrl": co.URL()}); r.Status != 200 || spentHeader(r) != 1 {
			t.Errorf("company enrich with enrich:company:read = %d %.300s", r.Status, r.Body)
		}
	})
}

type postPage struct {
	Comments    []map[string]any `json:"comments"`
	Total       int              `json:"total"`
	TotalPage   int              `json:"totalPage"`
	CurrentPage int              `json:"currentPage"`
}

// postLookupsByProvider is what a post lookup answers where a vendor differs from the
// contract, as docs/providers.md documents it per adapter.
var postLookupsByProvider = map[string]struct {
	// emptyNotMissing are the lookups of a missing post that answer an empty page (total 0)
	// instead of 404: an Apify list actor pushes nothing for a post that does not exist, which
	// cannot be told from a post without comments or reactions (the conformance suite's
	// EmptyWhenMissing). A lookup of the post itself is still a 404.
	emptyNotMissing map[string]bool
}{
	providerApify: {emptyNotMissing: map[string]bool{"/v1/post/comments": true, "/v1/post/engagements": true}},
}

func TestPostLookups(t *testing.T) {
	forEachEngineAndProvider(t, func(t *testing.T, engine store.Dialect, provider string) {
		ts := startServer(t, providerEnv(t, engine, provider, nil))
		c := ts.Client
		charged := lookupsCharged(c, map[string]int64{})
		world := sandbox.New(sandbox.Config{Seed: 1, Now: time.Now}).World()
		co := world.Companies()[3]

		// A roster page's posts can be looked up one by one; take the most commented.
		r := post(t, c, "/v1/company/posts", map[string]any{"companyUrl": co.URL()})
		var posts struct {
			Data []struct {
				URN           string `json:"urn"`
				PostURL       string `json:"postUrl"`
				CommentsCount int    `json:"commentsCount"`
				Reactions     int    `json:"totalReactionCount"`
			} `json:"data"`
		}
		if r.Status != 200 || json.Unmarshal(r.Body, &posts) != nil || len(posts.Data) == 0 {
			t.Fatalf("company posts = %d %.300s", r.Status, r.Body)
		}
		charged(t, "company_posts", r, len(posts.Data))
		best := posts.Data[0]
		for _, p := range posts.Data {
			if p.CommentsCount > best.CommentsCount {
				best = p
			}
		}
		if best.CommentsCount < 3 || best.Reactions < 3 {
			t.Fatalf("no post with enough engagement among %d", len(posts.Data))
		}

		t.Run("by url", func(t *testing.T) {
			for _, u := range []string{best.PostURL, "urn:li:activity:" + best.URN} {
				r := post(t, c, "/v1/post/by-url", map[string]any{"postUrl": u})
				var a struct {
					Data map[string]any `json:"data"`
				}
				if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil {
					t.Fatalf("by-url %s = %d %.300s", u, r.Status, r.Body)
				}
				checkPostRecord(t, mustJSON(t, a.Data))
				counts, _ := a.Data["counts"].(map[string]any)
				if a.Data["urn"] != best.URN || a.Data["postUrl"] != best.PostURL || counts == nil ||
					counts["comments"] != a.Data["commentsCount"] || counts["reactions"] != a.Data["totalReactionCount"] {
					t.Fatalf("post = %.600s", r.Body)
				}
				if _, ok := a.Data["article"]; !ok {
					t.Fatalf("post record without article: %.300s", r.Body)
				}
				charged(t, "post_lookups", r, 1)
			}
		})

		t.Run("comments pages and limit", func(t *testing.T) {
			r := post(t, c, "/v1/post/comments", map[string]any{"postUrn": best.URN, "limit": 2})
			var a struct{ Data postPage }
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || len(a.Data.Comments) != 2 || a.Data.CurrentPage != 1 ||
				a.Data.Total < 3 || a.Data.TotalPage != (a.Data.Total+1)/2 {
				t.Fatalf("post comments limit 2 = %d %.500s", r.Status, r.Body)
			}
			charged(t, "post_lookups", r, 2)
			r = post(t, c, "/v1/post/comments", map[string]any{"postUrn": best.PostURL, "page": 2, "limit": 2})
			var b struct{ Data postPage }
			if r.Status != 200 || json.Unmarshal(r.Body, &b) != nil || b.Data.CurrentPage != 2 || len(b.Data.Comments) == 0 ||
				b.Data.Comments[0]["urn"] == a.Data.Comments[0]["urn"] {
				t.Fatalf("post comments page 2 = %d %.500s", r.Status, r.Body)
			}
			charged(t, "post_lookups", r, len(b.Data.Comments))
			// The same limit on company comments, charged there.
			r = post(t, c, "/v1/company/comments", map[string]any{"postUrn": best.URN, "limit": 1})
			if err := json.Unmarshal(r.Body, &a); r.Status != 200 || err != nil || len(a.Data.Comments) != 1 {
				t.Fatalf("company comments limit 1 = %d %.500s", r.Status, r.Body)
			}
			charged(t, "company_comments", r, 1)
		})

		t.Run("engagements", func(t *testing.T) {
			r := post(t, c, "/v1/post/engagements", map[string]any{"postUrl": best.PostURL, "limit": 3})
			var a struct {
				Data struct {
					CurrentPage int              `json:"currentPage"`
					Items       []map[string]any `json:"items"`
					Total       int              `json:"total"`
					TotalPages  int              `json:"totalPages"`
				}
			}
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || len(a.Data.Items) != 3 || a.Data.CurrentPage != 1 ||
				a.Data.Total < 3 || a.Data.TotalPages != (a.Data.Total+2)/3 {
				t.Fatalf("engagements = %d %.500s", r.Status, r.Body)
			}
			if k := missingKey(a.Data.Items[0], "urn", "username", "fullName", "headline", "profileUrl", "profilePicture", "reactionType"); k != "" {
				t.Fatalf("engagement item lacks %s: %v", k, a.Data.Items[0])
			}
			charged(t, "post_lookups", r, 3)
			r = post(t, c, "/v1/post/engagements", map[string]any{"postUrl": best.URN, "page": 1000})
			if err := json.Unmarshal(r.Body, &a); r.Status != 200 || err != nil || len(a.Data.Items) != 0 {
				t.Fatalf("a page past the end = %d %.300s", r.Status, r.Body)
			}
			charged(t, "post_lookups", r, 0)
		})

		t.Run("company posts limit", func(t *testing.T) {
			r := post(t, c, "/v1/company/posts", map[string]any{"companyUrl": co.URL(), "limit": 2})
			var a struct{ Data []json.RawMessage }
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || len(a.Data) != min(2, len(posts.Data)) {
				t.Fatalf("company posts limit 2 = %d %.300s", r.Status, r.Body)
			}
			charged(t, "company_posts", r, len(a.Data))
		})

		t.Run("refused and failed lookups charge nothing", func(t *testing.T) {
			missing := `"urn:li:activity:9` + strings.Repeat("9", 18) + `"`
			cases := []refusedLookup{
				{"/v1/post/by-url", `{}`, 400, "VALIDATION_ERROR", "body.postUrl"},
				{"/v1/post/by-url", `{"postUrl": "https://www.linkedin.com/in/jane-doe"}`, 400, "VALIDATION_ERROR", "body.postUrl"},
				{"/v1/post/by-url", `{"postUrl": "urn:li:share:123"}`, 400, "VALIDATION_ERROR", "body.postUrl"},
				{"/v1/post/comments", `{"postUrn": "abc"}`, 400, "VALIDATION_ERROR", "body.postUrn"},
				{"/v1/post/comments", `{"postUrn": "7262340993178763264", "limit": 0}`, 400, "VALIDATION_ERROR", "body.limit"},
				{"/v1/post/comments", `{"postUrn": "7262340993178763264", "limit": 101}`, 400, "VALIDATION_ERROR", "body.limit"},
				{"/v1/post/comments", `{"postUrn": "7262340993178763264", "page": 0}`, 400, "VALIDATION_ERROR", "body.page"},
				{"/v1/post/engagements", `{"postUrl": ""}`, 400, "VALIDATION_ERROR", "body.postUrl"},
				{"/v1/post/engagements", `{"postUrl": "7262340993178763264", "limit": "ten"}`, 400, "VALIDATION_ERROR", "body.limit"},
				{"/v1/company/posts", `{"companyUrl": "https://www.linkedin.com/company/acme", "limit": 0}`, 400, "VALIDATION_ERROR", "body.limit"},
				{"/v1/company/posts", `{"companyUrl": "https://www.linkedin.com/company/acme", "limit": 51}`, 400, "VALIDATION_ERROR", "body.limit"},
				{"/v1/company/comments", `{"postUrn": "7262340993178763264", "limit": -1}`, 400, "VALIDATION_ERROR", "body.limit"},
				{"/v1/post/by-url", `{"postUrl": ` + missing + `}`, 404, "NOT_FOUND", ""},
				{"/v1/post/comments", `{"postUrn": ` + missing + `}`, 404, "NOT_FOUND", ""},
				{"/v1/post/engagements", `{"postUrl": ` + missing + `}`, 404, "NOT_FOUND", ""},
				{"/v1/post/by-url", `{"postUrl": "error-1"}`, 400, "VALIDATION_ERROR", "body.postUrl"},
			}
			empty := postLookupsByProvider[provider].emptyNotMissing
			cases = slices.DeleteFunc(cases, func(rc refusedLookup) bool {
				if rc.status != 404 || !empty[rc.path] {
					return false
				}
				r := post(t, c, rc.path, rc.body)
				var a struct {
					Data struct {
						Comments []json.RawMessage `json:"comments"`
						Items    []json.RawMessage `json:"items"`
						Total    int               `json:"total"`
					}
				}
				if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || a.Data.Total != 0 || len(a.Data.Comments)+len(a.Data.Items) != 0 ||
					r.Header.Get("x-spent-credits") != "0" {
					t.Errorf("%s %s on %s = %d %.300s, want an empty page charging nothing", rc.path, rc.body, provider, r.Status, r.Body)
				}
				return true
			})
			refusedLookups(t, c, cases)
			charged(t, "post_lookups", &client.Response{Header: map[string][]string{"X-Spent-Credits": {"0"}}}, 0)
		})

		t.Run("the ledger names each endpoint", func(t *testing.T) {
			r, err := c.Do(context.Background(), http.MethodGet, "/v1/credits/usage?limit=100", nil)
			var ledger struct {
				Data []struct{ Action, Feature string }
			}
			if err != nil || r.Status != 200 || json.Unmarshal(r.Body, &ledger) != nil {
				t.Fatalf("credits usage = %v %.300s", err, r.Body)
			}
			seen := map[string]string{}
			for _, e := range ledger.Data {
				seen[e.Action] = e.Feature
			}
			for action, feature := range map[string]string{"POST /v1/post/by-url": "post_lookups", "POST /v1/post/comments": "post_lookups",
				"POST /v1/post/engagements": "post_lookups", "POST /v1/company/comments": "company_comments"} {
				if seen[action] != feature {
					t.Errorf("ledger action %q under %q, want %q (ledger %v)", action, seen[action], feature, seen)
				}
			}
			// The breakdown lists the new feature (and the document says it may).
			if r, err := c.Do(context.Background(), http.MethodGet, "/v1/credits/breakdown", nil); err != nil || r.Status != 200 ||
				!strings.Contains(string(r.Body), `"post_lookups"`) {
				t.Errorf("breakdown = %v %.300s", err, r.Body)
			}
		})

		t.Run("a failing provider is a 502", func(t *testing.T) {
			failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte(`{"success": false, "message": "provider down", "data": null}`))
			}))
			t.Cleanup(failing.Close)
			down := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_PRONET_API_URL": failing.URL, "TRAWL_PRONET_API_KEY": "k"}))
			refusedLookups(t, down.Client, []refusedLookup{
				{"/v1/post/by-url", `{"postUrl": "7262340993178763264"}`, 502, "UPSTREAM_ERROR", ""},
				{"/v1/post/comments", `{"postUrn": "7262340993178763264"}`, 502, "UPSTREAM_ERROR", ""},
				{"/v1/post/engagements", `{"postUrl": "7262340993178763264"}`, 502, "UPSTREAM_ERROR", ""},
			})
			if u := usageOf(t, down.Client); u.Credits.TotalConsumed != 0 {
				t.Errorf("failed lookups spent %d credits", u.Credits.TotalConsumed)
			}
		})

		t.Run("permissions", func(t *testing.T) {
			narrow := newAccountKey(t, ts, "STARTER", "", "searches:read")
			refusedLookups(t, narrow, []refusedLookup{
				{"/v1/post/by-url", `{"postUrl": "7262340993178763264"}`, 403, "FORBIDDEN", "header.x-api-key"},
				{"/v1/post/comments", `{"postUrn": "7262340993178763264"}`, 403, "FORBIDDEN", "header.x-api-key"},
				{"/v1/post/engagements", `{"postUrl": "7262340993178763264"}`, 403, "FORBIDDEN", "header.x-api-key"},
			})
		})
	})
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

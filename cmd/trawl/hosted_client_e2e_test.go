package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// A client of the hosted API (reference/hosted-api.md) moves to Trawl by
// changing its base URL: these are its requests as it sends them (the real
// platform names in paths, members and values) and the members it reads
// from the answers. With TRAWL_API_NAMES=hosted the answers speak its
// names; the spec's names keep answering beside them. Every answer is also
// checked against the /openapi.json of its server (contract_test.go).

// hostedCall is one request of the hosted client and what its answer must hold.
type hostedCall struct {
	name, method, path string
	body               string
	status             int
	// want maps a path into the answer (data.query.monitoring_type,
	// data.0.source) to the value it must have; has lists paths that must
	// be present; contains, strings the raw answer must hold.
	want     map[string]any
	has      []string
	contains []string
}

func TestHostedClientDropIn(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_API_NAMES": "hosted",
			"TRAWL_RATE_LIMIT_CUSTOM": "100000"}))
		c := ts.Client
		ids := map[string]string{}
		calls := []hostedCall{
			{name: "twitter keyword monitor", method: "POST", path: "/v1/searches/twitter/posts",
				body:   `{"name": "Hosted X", "keywords": ["ai"], "twitter_language": "en", "frequency": "every-12h", "time_frame": "past-6-months", "max_results": 10.0, "search_type": "Latest"}`,
				status: 201, want: map[string]any{"data.query.monitoring_type": "twitter-posts", "data.query.twitter_language": "en",
					"data.filters.frequency": "every-12h", "data.filters.time_frame": "past-6-months", "data.filters.max_results": 10.0},
				has: []string{"data.id", "credits_charged", "message", "success"}},
			{name: "the spec's path and member still answer", method: "POST", path: "/v1/searches/microblog/posts",
				body:   `{"name": "Spec X", "keywords": ["ai"], "microblog_language": "pt-BR", "frequency": "DAILY"}`,
				status: 201, want: map[string]any{"data.query.monitoring_type": "twitter-posts", "data.query.twitter_language": "pt-BR", "data.filters.frequency": "daily"}},
			{name: "twitter keyword preview", method: "POST", path: "/v1/searches/twitter/posts/preview",
				body:   `{"keywords": ["ai"], "twitter_language": "en", "frequency": "hourly"}`,
				status: 200, want: map[string]any{"meta.monitoring_type": "twitter-posts"}, has: []string{"data", "meta.count"}},
			{name: "twitter profile monitor", method: "POST", path: "/v1/searches/twitter/profile",
				body:   `{"name": "Jack", "profile_url": "https://twitter.com/jack", "frequency": "weekly", "max_results": 20}`,
				status: 201, want: map[string]any{"data.query.monitoring_type": "twitter-profile", "data.filters.frequency": "weekly"}},
			{name: "linkedin keyword monitor", method: "POST", path: "/v1/searches/linkedin/posts",
				body:   `{"name": "Hosted LI", "keywords": ["revops"], "mentions_organization": [1337], "linkedin_sort_by": "relevance", "frequency": "every-12h", "time_frame": "past-month", "content_type": "videos"}`,
				status: 201, want: map[string]any{"data.query.monitoring_type": "linkedin-posts", "data.filters.linkedin_sort_by": "relevance", "data.filters.frequency": "every-12h"}},
			{name: "linkedin keyword preview", method: "POST", path: "/v1/searches/linkedin/posts/preview",
				body:   `{"keywords": ["revops"], "linkedin_sort_by": "date_posted"}`,
				status: 200, want: map[string]any{"meta.monitoring_type": "linkedin-posts"}},
			{name: "linkedin profile monitor", method: "POST", path: "/v1/searches/linkedin/profile",
				body:   `{"name": "Jane", "profile_url": "https://www.linkedin.com/in/jane-doe", "frequency": "monthly", "time_frame": "past-month"}`,
				status: 201, want: map[string]any{"data.query.monitoring_type": "linkedin-profile", "data.filters.time_frame": "past-month"}},
			{name: "linkedin profile preview", method: "POST", path: "/v1/searches/linkedin/profile/preview",
				body:   `{"profile_url": "https://www.linkedin.com/in/jane-doe", "time_frame": "past-24h"}`,
				status: 200, want: map[string]any{"meta.monitoring_type": "linkedin-profile"}},
			{name: "both names of one member", method: "POST", path: "/v1/searches/linkedin/posts",
				body:   `{"name": "Twice", "keywords": ["revops"], "pronet_sort_by": "relevance", "linkedin_sort_by": "date_posted"}`,
				status: 400, want: map[string]any{"error.code": "VALIDATION_ERROR", "success": false},
				contains: []string{`"body.linkedin_sort_by"`, "pronet_sort_by"}},
			{name: "a rule broken under a hosted name is named so", method: "POST", path: "/v1/searches/twitter/posts",
				body:   `{"name": "Bad", "keywords": ["ai"], "twitter_language": "not a language"}`,
				status: 400, contains: []string{`"body.twitter_language"`, `"/twitter_language"`, "language code"}},
			{name: "a hosted value the rules refuse", method: "POST", path: "/v1/searches/linkedin/posts",
				body:   `{"name": "Too far", "keywords": ["revops"], "time_frame": "past-6-months"}`,
				status: 400, contains: []string{`"body.time_frame"`, "past-month"}},
			{name: "list monitors", method: "GET", path: "/v1/searches?status=active&limit=50",
				status: 200, has: []string{"pagination.has_more"}},
			{name: "edit a linkedin monitor", method: "PATCH", path: "/v1/searches/{linkedin keyword monitor}",
				body:   `{"name": "Renamed", "status": "paused", "filters": {"frequency": "every-12h", "linkedin_sort_by": "date_posted", "time_frame": "past-week", "max_results": 25.0, "job_titles": ["founder"]}}`,
				status: 200, want: map[string]any{"data.name": "Renamed", "data.status": "paused", "data.filters.linkedin_sort_by": "date_posted",
					"data.filters.frequency": "every-12h", "data.query.monitoring_type": "linkedin-posts"}},
			{name: "new keywords for a twitter monitor", method: "PATCH", path: "/v1/searches/{twitter keyword monitor}",
				body:   `{"query": {"keywords": ["ml", "llm"], "keywords_and": [], "keywords_not": ["crypto"]}}`,
				status: 200, want: map[string]any{"data.query.keywords.1": "llm", "data.query.keywords_not.0": "crypto", "data.query.twitter_language": "en"}},
			{name: "new mentions for a linkedin monitor", method: "PATCH", path: "/v1/searches/{linkedin keyword monitor}",
				body:   `{"query": {"keywords": ["sales ops"]}, "filters": {"mentions_member": ["urn:li:member:123456789"], "mentions_organization": [1441]}}`,
				status: 200, want: map[string]any{"data.query.keywords.0": "sales ops", "data.query.mentions_member.0": "urn:li:member:123456789", "data.query.mentions_organization.0": "1441"}},
			{name: "too many keywords in a patch", method: "PATCH", path: "/v1/searches/{twitter keyword monitor}",
				body:   `{"name": "Not saved", "query": {"keywords": ["a1", "a2", "a3", "a4", "a5", "a6"], "keywords_not": ["b1", "b2", "b3", "b4", "b5"]}}`,
				status: 400, contains: []string{`"body.query.keywords"`, "at most 10"}},
			{name: "a bad sort in a patch, under its hosted name", method: "PATCH", path: "/v1/searches/{linkedin keyword monitor}",
				body:   `{"filters": {"linkedin_sort_by": "popularity"}}`,
				status: 400, contains: []string{`"body.filters.linkedin_sort_by"`, `"/filters/linkedin_sort_by"`}},
			{name: "keywords for a profile monitor", method: "PATCH", path: "/v1/searches/{twitter profile monitor}",
				body:   `{"query": {"keywords": ["ai"]}}`,
				status: 400, contains: []string{`"body.query.keywords"`}},
			{name: "mentions for a twitter monitor", method: "PATCH", path: "/v1/searches/{twitter keyword monitor}",
				body:   `{"filters": {"mentions_member": ["urn:li:member:123456789"]}}`,
				status: 400, contains: []string{`"body.filters.mentions_member"`}},
			{name: "a bad mention", method: "PATCH", path: "/v1/searches/{linkedin keyword monitor}",
				body:   `{"filters": {"mentions_member": ["jane"]}}`,
				status: 400, contains: []string{`"body.filters.mentions_member[0]"`}},
			{name: "one monitor with stats", method: "GET", path: "/v1/searches/{twitter keyword monitor}",
				status: 200, want: map[string]any{"data.query.monitoring_type": "twitter-posts", "data.monitoring_type": "twitter-posts",
					"data.name": "Hosted X", "data.query.keywords.1": "llm"}, has: []string{"data.stats.results_today"}},
			{name: "results with the hosted filters", method: "GET", path: "/v1/searches/{twitter keyword monitor}/results?limit=50&job_title=founder&company=acme&industry=software&country=us",
				status: 200, has: []string{"pagination.has_more", "data"}},
			{name: "results by seniority", method: "GET", path: "/v1/searches/{linkedin keyword monitor}/results?limit=50&seniority=Director",
				status: 200, has: []string{"pagination.has_more", "pagination.total_count", "data", "meta.search_id"},
				want: map[string]any{"meta.from": nil}},
			{name: "results from a time, echoed in meta", method: "GET", path: "/v1/searches/{linkedin keyword monitor}/results?from=2026-01-01T00:00:00Z",
				status: 200, want: map[string]any{"meta.from": "2026-01-01T00:00:00Z", "pagination.has_more": false, "pagination.next_cursor": nil},
				has: []string{"meta.search_id", "pagination.total_count"}},
			{name: "an unknown seniority", method: "GET", path: "/v1/searches/{linkedin keyword monitor}/results?seniority=boss",
				status: 400, contains: []string{`"query.seniority"`, "cxo"}},
			{name: "a workflow", method: "POST", path: "/v1/workflows",
				body:   `{"name": "Hooked", "workflow": {"trigger": {"kind": "workflows/webhook"}, "actions": [{"id": "keep", "kind": "builtin:set", "inputs": {"values": {"pronet_url": "kept as written"}}}], "edges": [{"from": "$source", "to": "keep"}]}}`,
				status: 201, want: map[string]any{"data.workflow.actions.0.inputs.values.pronet_url": "kept as written"}},
			{name: "executions by page and page_size", method: "GET", path: "/v1/workflows/{a workflow}/executions?page=1&page_size=20",
				// The hosted shape, in hosted mode only: spec mode keeps data the
				// list and pagination beside it (docs/decisions.md, "Hosted shapes").
				status: 200, want: map[string]any{"data.page": 1.0, "data.page_size": 20.0, "data.total": 0.0, "data.has_more": false},
				has: []string{"data.items"}},
			{name: "enrich a person", method: "POST", path: "/v1/profile/enrich",
				body:   `{"profileUrl": "https://www.linkedin.com/in/jane-doe"}`,
				status: 200, want: map[string]any{"data.prospect.linkedin_url": "https://www.linkedin.com/in/jane-doe"},
				has: []string{"data.prospect.linkedin_urn", "data.experience"}},
			{name: "social mapping includes linkedin_url", method: "POST", path: "/v1/social/mapping",
				body:   `{"engaged_with_keywords": ["revops"], "engaged_with_days": 30, "includes": ["linkedin_url", "job_title", "post.url"], "page": 1, "page_size": 10}`,
				status: 200, has: []string{"data.results", "data.page", "data.total"}},
			{name: "a topic", method: "POST", path: "/v1/topics",
				body:   `{"name": "Doomed", "keywords": ["revops"], "max_results": 10.0}`,
				status: 201, want: map[string]any{"credits_charged": 0.0}, has: []string{"data.id", "data.keywords_and"}},
			{name: "delete a topic", method: "DELETE", path: "/v1/topics/{a topic}",
				status: 200, want: map[string]any{"data.id": "{a topic}", "data.deleted": true}},
			{name: "a doomed monitor", method: "POST", path: "/v1/searches/twitter/profile",
				body:   `{"name": "Doomed", "profile_url": "https://twitter.com/doomed"}`,
				status: 201, has: []string{"data.id", "credits_charged"}},
			{name: "delete a monitor", method: "DELETE", path: "/v1/searches/{a doomed monitor}",
				status: 200, want: map[string]any{"data.id": "{a doomed monitor}", "data.deleted": true}},
			{name: "the document describes the hosted names", method: "GET", path: "/openapi.json",
				status: 200, contains: []string{`"/v1/searches/twitter/posts"`, `"/v1/searches/linkedin/profile/preview"`, `"linkedin_url"`, `"linkedinUrl"`, `"twitter-posts"`}},
		}
		runHostedCalls(t, c, ids, calls)
		t.Run("no monitor was left by the refused bodies", func(t *testing.T) {
			r, err := c.Do(context.Background(), "GET", "/v1/searches?limit=100", nil)
			if err != nil {
				t.Fatal(err)
			}
			var a struct {
				Data []struct {
					Name           string `json:"name"`
					MonitoringType string `json:"monitoring_type"`
				} `json:"data"`
			}
			if err := json.Unmarshal(r.Body, &a); err != nil {
				t.Fatal(err)
			}
			if len(a.Data) != 5 {
				t.Errorf("%d monitors, want the 5 created: %s", len(a.Data), r.Body)
			}
			for _, s := range a.Data {
				if !strings.HasPrefix(s.MonitoringType, "twitter-") && !strings.HasPrefix(s.MonitoringType, "linkedin-") {
					t.Errorf("monitor %q has monitoring_type %q, not a hosted one", s.Name, s.MonitoringType)
				}
			}
		})
		t.Run("topic engagers carry linkedin_post_id and linkedin_url", func(t *testing.T) {
			r := hostedDo(t, c, "POST", "/v1/topics", `{"name": "RevOps", "keywords": ["revops"], "max_results": 10.0, "time_frame": "past-week"}`)
			var created struct {
				Data struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			if r.Status != 201 || json.Unmarshal(r.Body, &created) != nil {
				t.Fatalf("create topic = %d %.300s", r.Status, r.Body)
			}
			var engagers []map[string]any
			waitUntil(t, ts, "the topic's engagers", func() bool {
				r := hostedDo(t, c, "GET", "/v1/topics/"+created.Data.ID+"/engagements?page=1&page_size=10", "")
				var a struct {
					Data []map[string]any `json:"data"`
				}
				if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil {
					t.Fatalf("engagements = %d %.300s", r.Status, r.Body)
				}
				engagers = a.Data
				return len(engagers) > 0
			})
			for _, e := range engagers {
				prospect, _ := e["prospect"].(map[string]any)
				if _, ok := e["linkedin_post_id"]; !ok || e["pronet_post_id"] != nil || prospect == nil {
					t.Fatalf("an engager without linkedin_post_id: %v", e)
				}
				if _, ok := prospect["linkedin_url"]; !ok || prospect["pronet_url"] != nil {
					t.Fatalf("a prospect without linkedin_url: %v", prospect)
				}
				if n, ok := e["discovery_interval"].(float64); !ok || (n != 0 && n != 1 && n != 3 && n != 5) {
					t.Fatalf("discovery_interval %v is not 0, 1, 3 or 5", e["discovery_interval"])
				}
				for _, m := range []string{"id", "prospect_id", "engagement"} {
					if _, ok := e[m]; !ok {
						t.Fatalf("an engager without %s: %v", m, e)
					}
				}
			}
			for _, call := range []hostedCall{
				{name: "topic engagers paged", method: "GET", path: "/v1/topics/" + created.Data.ID + "/engagements?page=1&page_size=10",
					status: 200, want: map[string]any{"pagination.page": 1.0, "pagination.page_size": 10.0},
					has: []string{"pagination.total_count", "pagination.total_pages"}},
				{name: "topics paged", method: "GET", path: "/v1/topics?page=1&page_size=10",
					status: 200, want: map[string]any{"pagination.page": 1.0}, has: []string{"pagination.total_count", "pagination.total_pages", "data.0.id"}},
				{name: "credits summary", method: "GET", path: "/v1/topics/" + created.Data.ID + "/credits-summary",
					status: 200, want: map[string]any{"allocation_method": "split_evenly", "period.source": "billing_period",
						"data.engagement_credits_by_interval.0.interval": 0.0, "data.engagement_credits_by_interval.1.interval": 1.0,
						"data.engagement_credits_by_interval.3.interval": 5.0},
					has: []string{"period.from", "period.to", "data.engagement_credits_by_interval.0.billed_engagements_count", "data.billed_engagements_count"}},
			} {
				checkHostedAnswer(t, call, hostedDo(t, c, call.method, call.path, call.body))
			}
		})
		t.Run("result media are URL strings", func(t *testing.T) {
			r := hostedDo(t, c, "POST", "/v1/searches/twitter/posts/preview", `{"keywords": ["ai"]}`)
			var a struct {
				Data []struct {
					Content map[string]any `json:"content"`
				} `json:"data"`
			}
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil {
				t.Fatalf("preview = %d %.300s", r.Status, r.Body)
			}
			for _, it := range a.Data {
				media, ok := it.Content["media"]
				if !ok || media == nil {
					continue
				}
				list, _ := media.([]any)
				for _, m := range list {
					if _, ok := m.(string); !ok {
						t.Fatalf("content.media holds %v, not a URL: %v", m, it.Content)
					}
				}
			}
		})
		t.Run("comment authors carry linkedinUrl", func(t *testing.T) {
			hostedCommentAuthors(t, c)
		})
		t.Run("the endpoints beside the spec", func(t *testing.T) {
			hostedOnlyCalls(t, c, ids)
		})
	})
}

// TestHostedNamesInSpecMode: without the setting a server takes the hosted
// client's requests and answers with the spec's names.
func TestHostedNamesInSpecMode(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		for _, call := range []hostedCall{
			{name: "twitter path, spec answer", method: "POST", path: "/v1/searches/twitter/posts",
				body:   `{"name": "Hosted X", "keywords": ["ai"], "twitter_language": "en", "frequency": "every-12h"}`,
				status: 201, want: map[string]any{"data.query.monitoring_type": "microblog-posts", "data.query.microblog_language": "en", "data.filters.frequency": "EVERY_12H"}},
			{name: "linkedin preview, spec answer", method: "POST", path: "/v1/searches/linkedin/posts/preview",
				body:   `{"keywords": ["revops"], "linkedin_sort_by": "relevance"}`,
				status: 200, want: map[string]any{"meta.monitoring_type": "pronet-posts"}},
			{name: "enrich, spec answer", method: "POST", path: "/v1/profile/enrich",
				body:   `{"profileUrl": "https://www.linkedin.com/in/jane-doe"}`,
				status: 200, has: []string{"data.prospect.pronet_url", "data.prospect.pronet_urn"}},
		} {
			checkHostedAnswer(t, call, hostedDo(t, ts.Client, call.method, call.path, call.body))
		}
	})
}

func hostedDo(t *testing.T, c *client.Client, method, path, body string) *client.Response {
	t.Helper()
	var b any
	if body != "" {
		b = body
	}
	r, err := c.Do(context.Background(), method, path, b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkHostedAnswer reports what r lacks of call's expectations and returns
// the decoded answer.
func checkHostedAnswer(t *testing.T, call hostedCall, r *client.Response) any {
	t.Helper()
	if r.Status != call.status {
		t.Errorf("%s: %s %s = %d, want %d: %.600s", call.name, call.method, call.path, r.Status, call.status, r.Body)
		return nil
	}
	for _, s := range call.contains {
		if !strings.Contains(string(r.Body), s) {
			t.Errorf("%s: the answer lacks %s: %.600s", call.name, s, r.Body)
		}
	}
	if call.path == "/openapi.json" {
		return nil
	}
	var answer any
	if err := json.Unmarshal(r.Body, &answer); err != nil {
		t.Errorf("%s: %v: %.300s", call.name, err, r.Body)
		return nil
	}
	for p, want := range call.want {
		if got, ok := lookupJSON(answer, p); !ok || got != want {
			t.Errorf("%s: %s = %v (present %v), want %v: %.600s", call.name, p, got, ok, want, r.Body)
		}
	}
	for _, p := range call.has {
		if _, ok := lookupJSON(answer, p); !ok {
			t.Errorf("%s: the answer lacks %s: %.600s", call.name, p, r.Body)
		}
	}
	return answer
}

// lookupJSON follows a dotted path (members and list indexes) into v.
func lookupJSON(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[part]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// hostedCommentAuthors reads the comments of a company post that has some
// and checks their authors carry linkedinUrl, not pronetUrl.
func hostedCommentAuthors(t *testing.T, c *client.Client) {
	r := hostedDo(t, c, "POST", "/v1/company/posts", `{"companyUrl": "https://www.linkedin.com/company/acme/"}`)
	var posts struct {
		Data []struct {
			URN           string `json:"urn"`
			CommentsCount int    `json:"commentsCount"`
		} `json:"data"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &posts) != nil {
		t.Fatalf("company posts = %d %.300s", r.Status, r.Body)
	}
	for _, p := range posts.Data {
		if p.CommentsCount == 0 {
			continue
		}
		r := hostedDo(t, c, "POST", "/v1/company/comments", `{"postUrn": "`+p.URN+`"}`)
		var a struct {
			Data struct {
				Comments []struct {
					Author map[string]any `json:"author"`
				} `json:"comments"`
			} `json:"data"`
		}
		if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || len(a.Data.Comments) == 0 {
			t.Fatalf("comments = %d %.300s", r.Status, r.Body)
		}
		for _, cm := range a.Data.Comments {
			if _, ok := cm.Author["linkedinUrl"]; !ok || cm.Author["pronetUrl"] != nil {
				t.Errorf("a comment author without linkedinUrl (or with pronetUrl): %v", cm.Author)
			}
		}
		return
	}
	t.Skip("no company post with comments")
}

// runHostedCalls makes each call in turn, {name} in a path or a wanted
// value standing for the id of what the call of that name created (kept in
// ids, which also takes a test run's id under "test run"), and checks its
// answer.
func runHostedCalls(t *testing.T, c *client.Client, ids map[string]string, calls []hostedCall) {
	t.Helper()
	for _, call := range calls {
		path := call.path
		for name, id := range ids {
			path = strings.ReplaceAll(path, "{"+name+"}", id)
		}
		var body any
		if call.body != "" {
			body = call.body
		}
		r, err := c.Do(context.Background(), call.method, path, body)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{}
		for p, v := range call.want {
			if s, ok := v.(string); ok && strings.HasPrefix(s, "{") && ids[strings.Trim(s, "{}")] != "" {
				v = ids[strings.Trim(s, "{}")]
			}
			want[p] = v
		}
		call.want = want
		answer := checkHostedAnswer(t, call, r)
		if id, ok := lookupJSON(answer, "data.id"); ok && call.status == http.StatusCreated {
			ids[call.name], _ = id.(string)
		}
		if id, ok := lookupJSON(answer, "data.test_run_id"); ok {
			ids["test run"], _ = id.(string)
		}
	}
}

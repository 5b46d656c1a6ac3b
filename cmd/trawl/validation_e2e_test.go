package main

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// TestEveryProblemInOneAnswer sends bodies that break both their schema
// (a type, a range, an enum) and the rules checked beyond it (an empty
// keyword, a follower range, a profile URL, a workflow's steps): one
// answer names every field, once, and nothing is created or charged.
func TestEveryProblemInOneAnswer(t *testing.T) {
	ts := startServer(t, serverEnv(t, store.SQLite, nil))
	c := ts.Client
	w := createWorkflow(t, c, map[string]any{"name": "Tell Slack", "workflow": map[string]any{
		"actions": []any{map[string]any{"id": "keep", "kind": "builtin:filter", "inputs": map[string]any{"condition": "{{ trigger.likes > 1 }}"}}},
		"edges":   []any{map[string]any{"from": "$source", "to": "keep"}},
	}})

	cases := []struct {
		name, path string
		body       string
		fields     []string
	}{
		{"keyword search", "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["ok", " "], "max_results": 5}`,
			[]string{"body.max_results", "body.keywords[1]"}},
		{"keyword preview", "/v1/searches/microblog/posts/preview", `{"keywords": [" "], "max_results": 1000}`,
			[]string{"body.max_results", "body.keywords[0]"}},
		{"profile monitor", "/v1/searches/microblog/profile", `{"name": "x", "profile_url": "https://facebook.com/jack", "frequency": "YEARLY"}`,
			[]string{"body.frequency", "body.profile_url"}},
		{"pronet search", "/v1/searches/pronet/posts", `{"name": "x", "keywords": ["ok", ""], "time_frame": "yesterday"}`,
			[]string{"body.time_frame", "body.keywords[1]"}},
		{"topic", "/v1/topics", `{"name": 5, "keywords": [" "], "max_results": 1000}`,
			[]string{"body.name", "body.max_results", "body.keywords[0]"}},
		{"social mapping", "/v1/social/mapping",
			`{"engaged_with_keywords": ["revops", ""], "engaged_with_days": 31, "page_size": 11, "followers": ["abc"], "company_sizes": ["huge"]}`,
			[]string{"body.company_sizes[0]", "body.engaged_with_days", "body.page_size", "body.engaged_with_keywords[1]", "body.followers[0]"}},
		{"creators", "/v1/discover/creators", `{"posted_about_keywords": [""], "posted_about_days": 0, "location_country": ["Atlantis"]}`,
			[]string{"body.posted_about_days", "body.posted_about_keywords[0]", "body.location_country[0]"}},
		{"profile posts", "/v1/profile/posts", `{"profileUrl": "https://facebook.com/jane", "page": -1, "after": "yesterday"}`,
			[]string{"body.page", "body.after", "body.profileUrl"}},
		{"secret", "/v1/secrets", `{"name": "1password", "value": 5}`,
			[]string{"body.value", "body.name"}},
		{"test run", "/v1/workflows/" + w.ID + "/test",
			`{"overrides": {"likes": "many", "date_posted": "yesterday"}, "test_config": {"action_mocks": {"ghost": {"enabled": true}}}}`,
			[]string{"body.overrides.likes", "body.overrides.date_posted", "body.test_config.action_mocks.ghost"}},
	}
	for _, tc := range cases {
		r := mustDo(t, c, http.MethodPost, tc.path, tc.body, 400)
		e := r.Err()
		var got []string
		for _, d := range e.Details {
			got = append(got, d.Field)
		}
		slices.Sort(got)
		slices.Sort(tc.fields)
		if e.Code != "VALIDATION_ERROR" || !slices.Equal(got, tc.fields) {
			t.Errorf("%s: %s names %q, want %q", tc.name, e.Code, got, tc.fields)
		}
	}

	// A workflow's steps are checked against the catalogue and the
	// account's data (the saved search it links).
	r := mustDo(t, c, http.MethodPost, "/v1/workflows", `{"name": "", "enabled": "yes", "search_id": "no-such-search", "workflow": {
		"actions": [{"id": "c", "kind": "no_such_kind"}], "edges": [{"from": "$source", "to": "c"}]}}`, 400)
	e := r.Err()
	for _, f := range []string{"body.enabled", "body.name", "body.search_id", "body.workflow.actions[0].kind"} {
		if !e.HasField(f) {
			t.Errorf("workflow: %s, want a detail naming %s", r.Body, f)
		}
	}

	// A query parameter the endpoint does not take is refused, not ignored:
	// the workflows list pages by limit and offset (or page and page_size),
	// never by cursor.
	e = mustDo(t, c, http.MethodGet, "/v1/workflows?cursor=abc&limit=5", nil, 400).Err()
	if len(e.Details) != 1 || e.Details[0].Field != "query.cursor" || !strings.Contains(e.Details[0].Message, "limit, offset") {
		t.Errorf("unknown query parameter: %+v, want one detail at query.cursor naming the parameters taken", e)
	}
	e = mustDo(t, c, http.MethodGet, "/v1/usage?form=2026-11-01", nil, 400).Err()
	if len(e.Details) != 1 || e.Details[0].Field != "query.form" {
		t.Errorf("misspelt query parameter: %+v, want one detail at query.form", e)
	}

	// A body that is not JSON says so, and no more.
	e = mustDo(t, c, http.MethodPost, "/v1/social/mapping", `{"engaged_with_keywords": ["revops"]`, 400).Err()
	if e.Code != "BAD_REQUEST" || len(e.Details) != 1 || e.Details[0].Field != "body" {
		t.Errorf("broken JSON: %+v, want BAD_REQUEST with one detail at body", e)
	}

	u, err := c.Usage(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if u.Monitors.Total != 0 || u.Credits.TotalConsumed != 0 {
		t.Fatalf("usage after rejected requests = %+v, want nothing created or charged", u)
	}
}

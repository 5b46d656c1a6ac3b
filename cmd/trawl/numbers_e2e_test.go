package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// goTypeRE matches what Go's JSON decoder says of its types and fields
// ("cannot unmarshal number 10.0 into Go struct field postsBody.max_results
// of type int").
var goTypeRE = regexp.MustCompile(`Go (struct|value)|of type|unmarshal|\b(u?int(8|16|32|64)?|float(32|64))\b|interface \{\}|map\[|[a-z]+Body\.`)

// numbersFlow is a workflow whose step has integer settings, written as
// floats by the caller.
func numbersFlow(maxAttempts, timeoutMS string) json.RawMessage {
	return json.RawMessage(`{"actions": [{"id": "keep", "kind": "builtin:filter",
		"inputs": {"condition": "{{ trigger.likes > 1 }}"},
		"retry": {"max_attempts": ` + maxAttempts + `, "backoff_ms": 1.5e3}, "timeout_ms": ` + timeoutMS + `}],
		"edges": [{"from": "$source", "to": "keep"}]}`)
}

// TestWholeNumbersWrittenAsFloats is a client that keeps the spec's
// "number" fields as floats: it sends 10.0 and 1e1 where an integer is
// taken, to a preview, a search's create and PATCH, social mapping,
// creators and a workflow's create, PATCH and test run, and each is
// answered as 10 would be. 10.5 is refused at the field it was sent in,
// by its name and pointer, with nothing stored or charged; no answer
// names a Go type.
func TestWholeNumbersWrittenAsFloats(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client

		// Accepted: what 10 would be.
		var preview struct {
			Data []json.RawMessage `json:"data"`
			Meta struct {
				Count int `json:"count"`
			} `json:"meta"`
		}
		r := mustDo(t, c, http.MethodPost, "/v1/searches/microblog/posts/preview", `{"keywords": ["sales"], "max_results": 1e1}`, 200)
		if err := json.Unmarshal(r.Body, &preview); err != nil || preview.Meta.Count == 0 || preview.Meta.Count > 10 {
			t.Fatalf("preview with max_results 1e1: %s", r.Body)
		}
		s := createSearch(t, c, `{"name": "floats", "keywords": ["sales"], "max_results": 10.0}`)
		if s.Filters.MaxResults != 10 {
			t.Fatalf("search created with max_results 10.0 keeps %d", s.Filters.MaxResults)
		}
		mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, `{"filters": {"max_results": 2.0E+1}}`, 200)
		if got := getSearch(t, c, s.ID).Filters.MaxResults; got != 20 {
			t.Fatalf("PATCH max_results 2.0E+1 kept %d", got)
		}
		mustDo(t, c, http.MethodPost, "/v1/social/mapping",
			`{"engaged_with_keywords": ["sales"], "engaged_with_days": 7.0, "engaged_with_topic_strength": 1e0, "page": 1.0, "page_size": 1e1}`, 200)
		mustDo(t, c, http.MethodPost, "/v1/discover/creators",
			`{"posted_about_keywords": ["sales"], "posted_about_days": 3e1, "posted_about_topic_strength": -0.0, "page_size": 25.0}`, 200)

		var w workflowView
		mustDo(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "floats", "workflow": numbersFlow("2.0", "5e3")}, 201).Data(&w)
		wantSettings(t, getWorkflow(t, c, w.ID), 2, 5000)
		mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"workflow": numbersFlow("3e0", "6.0e3")}, 200)
		wantSettings(t, getWorkflow(t, c, w.ID), 3, 6000)
		run := startTest(t, c, w.ID, `{"overrides": {"likes": 10.0, "comments": 1e1},
			"test_config": {"action_mocks": {"keep": {"enabled": true, "output": {"passed": true}}}}}`)
		if x := execution(t, c, w.ID, run); x.Trigger["likes"] != float64(10) || x.Trigger["comments"] != float64(10) {
			t.Fatalf("test run with likes 10.0 and comments 1e1 saw %v", x.Trigger)
		}

		spent := usage(t, c)

		// Refused: a fraction, at the field sent, with nothing stored.
		refused := []struct {
			method, path, body, field string
		}{
			{http.MethodPost, "/v1/searches/microblog/posts/preview", `{"keywords": ["sales"], "max_results": 10.5}`, "body.max_results"},
			{http.MethodPost, "/v1/searches/microblog/posts", `{"name": "half", "keywords": ["sales"], "max_results": 10.5}`, "body.max_results"},
			{http.MethodPatch, "/v1/searches/" + s.ID, `{"filters": {"max_results": 30.5}}`, "body.filters.max_results"},
			{http.MethodPost, "/v1/social/mapping", `{"engaged_with_keywords": ["sales"], "engaged_with_days": 7.5}`, "body.engaged_with_days"},
			{http.MethodPost, "/v1/discover/creators", `{"posted_about_keywords": ["sales"], "posted_about_days": 30, "page": 1.5}`, "body.page"},
			{http.MethodPost, "/v1/workflows", `{"name": "half", "workflow": ` + string(numbersFlow("2.5", "5000")) + `}`, "body.workflow.actions[0].retry.max_attempts"},
			{http.MethodPatch, "/v1/workflows/" + w.ID, `{"workflow": ` + string(numbersFlow("2", "5000.5")) + `}`, "body.workflow.actions[0].timeout_ms"},
			{http.MethodPost, "/v1/workflows/" + w.ID + "/test", `{"overrides": {"likes": 10.5}}`, "body.overrides.likes"},
			// Whole but beyond any integer field: named the same way.
			{http.MethodPatch, "/v1/workflows/" + w.ID, `{"workflow": ` + string(numbersFlow("2", "1e25")) + `}`, "body.workflow.actions[0].timeout_ms"},
			{http.MethodPost, "/v1/workflows/" + w.ID + "/test", `{"overrides": {"comments": 9223372036854775808}}`, "body.overrides.comments"},
			// Too large even for a float, in a free-form object.
			{http.MethodPost, "/v1/workflows", `{"name": "huge", "workflow": {"actions": [{"id": "a", "kind": "builtin:set",
				"inputs": {"values": {"n": 1e400}}}], "edges": [{"from": "$source", "to": "a"}]}}`, "body.workflow.actions[0].inputs.values.n"},
		}
		for _, tc := range refused {
			r := mustDo(t, c, tc.method, tc.path, tc.body, 400)
			e := r.Err()
			if e.Code != "VALIDATION_ERROR" || len(e.Details) != 1 || e.Details[0].Field != tc.field ||
				e.Details[0].Pointer != strings.NewReplacer("body", "", ".", "/", "[", "/", "]", "").Replace(tc.field) ||
				!strings.HasPrefix(e.Details[0].Message, "must be a") {
				t.Errorf("%s %s %s: %s, want one detail at %s", tc.method, tc.path, tc.body, r.Body, tc.field)
			}
			if goTypeRE.Match(r.Body) {
				t.Errorf("%s %s: the answer names a Go type: %s", tc.method, tc.path, r.Body)
			}
		}
		// A query parameter that is not an integer is named the same way.
		r = mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions?page_size=10.5", nil, 400)
		if e := r.Err(); !e.HasField("query.page_size") || goTypeRE.Match(r.Body) || !strings.Contains(string(r.Body), "must be an integer") {
			t.Errorf("page_size=10.5: %s", r.Body)
		}

		if got := getSearch(t, c, s.ID).Filters.MaxResults; got != 20 {
			t.Errorf("a refused PATCH changed max_results to %d", got)
		}
		wantSettings(t, getWorkflow(t, c, w.ID), 3, 6000)
		var list struct {
			Total int64 `json:"total"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/workflows", nil, 200).Data(&list); err != nil || list.Total != 1 {
			t.Errorf("%d workflows after refused creates, want 1 (%v)", list.Total, err)
		}
		var runs struct {
			Pagination struct {
				TotalCount int64 `json:"total_count"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions", nil, 200).Body, &runs); err != nil || runs.Pagination.TotalCount != 1 {
			t.Errorf("executions after refused test runs: %d, %v; want the one accepted", runs.Pagination.TotalCount, err)
		}
		if after := usage(t, c); after.Monitors.Total != 1 || after.Credits.TotalConsumed != spent.Credits.TotalConsumed {
			t.Errorf("refused requests stored or charged: usage %+v, before them %+v", after, spent)
		}
	})
}

func wantSettings(t *testing.T, w workflowView, maxAttempts, timeoutMS int64) {
	t.Helper()
	var def struct {
		Actions []struct {
			Retry struct {
				MaxAttempts int64 `json:"max_attempts"`
				BackoffMS   int64 `json:"backoff_ms"`
			} `json:"retry"`
			TimeoutMS int64 `json:"timeout_ms"`
		} `json:"actions"`
	}
	if err := json.Unmarshal(w.Workflow, &def); err != nil || len(def.Actions) != 1 {
		t.Fatalf("workflow %s: %v", w.Workflow, err)
	}
	if a := def.Actions[0]; a.Retry.MaxAttempts != maxAttempts || a.Retry.BackoffMS != 1500 || a.TimeoutMS != timeoutMS {
		t.Fatalf("workflow %s, want max_attempts %d, backoff_ms 1500, timeout_ms %d", w.Workflow, maxAttempts, timeoutMS)
	}
}

func usage(t *testing.T, c *client.Client) client.Usage {
	t.Helper()
	u, err := c.Usage(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

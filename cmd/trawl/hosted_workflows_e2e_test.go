package main

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// End-to-end tests of the hosted API's workflow endpoints: the trigger
// catalogue, the examples, publishing numbered versions, execution
// variables and the delete answers.

type publishedView struct {
	VersionID     string  `json:"version_id"`
	VersionNumber int64   `json:"version_number"`
	PublishedAt   string  `json:"published_at"`
	ChangeSummary *string `json:"change_summary"`
}

func publish(t *testing.T, c *client.Client, id string, body any) publishedView {
	t.Helper()
	var p publishedView
	if err := mustDo(t, c, http.MethodPost, "/v1/workflows/"+id+"/publish", body, 200).Data(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

type variablesView struct {
	RunID    string  `json:"run_id"`
	Status   string  `json:"status"`
	HaltedAt *string `json:"halted_at"`
	Steps    map[string]struct {
		Input  map[string]any `json:"input"`
		Output any            `json:"output"`
	} `json:"steps"`
}

func TestWorkflowHostedEndpoints(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_RATE_LIMIT_CUSTOM": "100000"}))
		c := ts.Client

		t.Run("trigger catalogue", func(t *testing.T) {
			var cat struct {
				Items []struct {
					Kind    string         `json:"kind"`
					Name    string         `json:"name"`
					Inputs  []inputField   `json:"inputs"`
					Outputs map[string]any `json:"outputs"`
				} `json:"items"`
				Total int `json:"total"`
			}
			if err := mustDo(t, c, http.MethodGet, "/v1/workflows/triggers", nil, 200).Data(&cat); err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, it := range cat.Items {
				kinds = append(kinds, it.Kind)
				if it.Name == "" || it.Outputs["type"] != "object" {
					t.Errorf("trigger %s: %+v", it.Kind, it)
				}
			}
			want := []string{"workflows/new-post", "workflows/engagement", "workflows/webhook", "workflows/scheduled-trigger"}
			if cat.Total != 4 || !slices.Equal(kinds, want) {
				t.Fatalf("kinds %v total %d", kinds, cat.Total)
			}
			if in := cat.Items[1].Inputs; len(in) != 1 || in[0].Name != "topic_id" || !in[0].Required {
				t.Fatalf("engagement inputs %+v", in)
			}
			if in := cat.Items[3].Inputs; len(in) != 2 || in[0].Name != "cron" || !in[0].Required || in[1].Default != "UTC" {
				t.Fatalf("scheduled inputs %+v", in)
			}
		})

		t.Run("every example is created and test-run", func(t *testing.T) {
			mustDo(t, c, http.MethodPost, "/v1/secrets", map[string]any{"name": "SALES_SLACK", "value": "https://hooks.slack.com/services/T000/B000/XXXX"}, 201)
			var topic struct {
				ID string `json:"id"`
			}
			if err := mustDo(t, c, http.MethodPost, "/v1/topics", map[string]any{"name": "RevOps", "keywords": []string{"revops"}, "max_results": 10}, 201).Data(&topic); err != nil {
				t.Fatal(err)
			}
			var ex struct {
				Items []struct {
					Name, Description, Category string
					Workflow                    json.RawMessage
				} `json:"items"`
				Total int `json:"total"`
			}
			if err := mustDo(t, c, http.MethodGet, "/v1/workflows/examples", nil, 200).Data(&ex); err != nil {
				t.Fatal(err)
			}
			if ex.Total != len(ex.Items) || ex.Total < 4 {
				t.Fatalf("examples: %d of %d", len(ex.Items), ex.Total)
			}
			// A mock answers what the catalogue says the step outputs.
			outputs := map[string]map[string]any{}
			for _, item := range catalogue(t, c, "").Items {
				outputs[item.Kind] = item.Outputs
			}
			for _, e := range ex.Items {
				def := strings.ReplaceAll(string(e.Workflow), `"TOPIC_ID"`, `"`+topic.ID+`"`)
				w := createWorkflow(t, c, map[string]any{"name": e.Name, "description": e.Description, "workflow": json.RawMessage(def)})
				// Steps that act outside Trawl are mocked.
				var parsed struct{ Actions []struct{ ID, Kind string } }
				if err := json.Unmarshal(e.Workflow, &parsed); err != nil {
					t.Fatal(err)
				}
				mocks := map[string]any{}
				for _, a := range parsed.Actions {
					if !strings.HasPrefix(a.Kind, "builtin:") {
						mocks[a.ID] = map[string]any{"enabled": true, "output": mockOutput(outputs[a.Kind])}
					}
				}
				run := startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"likes": 25},
					"test_config": map[string]any{"action_mocks": mocks}})
				if x := waitExecution(t, ts, c, w.ID, run, ended); x.Status != "completed" {
					t.Errorf("example %q ran %s: %s (%v)", e.Name, x.Status, x.keys(), *cmp.Or(x.Error, new(string)))
				}
			}
		})

		t.Run("publish numbers versions and refuses a stale draft", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "Versioned", "workflow": json.RawMessage(`{"actions":[{"id":"s","kind":"builtin:set","inputs":{"values":{"v":"1"}}}],"edges":[{"from":"$source","to":"s"}]}`)})
			var d draftView
			if err := mustDo(t, c, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": json.RawMessage(`{"actions":[{"id":"s","kind":"builtin:set","inputs":{"values":{"v":"2"}}}],"edges":[{"from":"$source","to":"s"}]}`)}, 200).Data(&d); err != nil {
				t.Fatal(err)
			}
			// A stale expectation: 409, nothing published.
			r := do(t, c, http.MethodPost, "/v1/workflows/"+w.ID+"/publish", map[string]any{"expected_draft_last_modified": "2020-01-01T00:00:00.000Z"})
			wantError(t, r, 409, "CONFLICT")
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows/"+w.ID+"/publish", map[string]any{"expected_draft_last_modified": "yesterday"}), 400, "VALIDATION_ERROR", "body.expected_draft_last_modified")
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows/"+w.ID+"/publish", map[string]any{"change_summary": strings.Repeat("x", 2001)}), 400, "VALIDATION_ERROR", "body.change_summary")
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows/"+w.ID+"/publish", map[string]any{"change_sumary": "typo"}), 400, "VALIDATION_ERROR", "body.change_sumary")
			if got := getWorkflow(t, c, w.ID); got.Status != "DRAFT" || got.Version != 1 || !strings.Contains(string(got.Workflow), `"1"`) {
				t.Fatalf("refused publishes changed the workflow: %+v", got)
			}
			p := publish(t, c, w.ID, map[string]any{"change_summary": "v becomes 2", "expected_draft_last_modified": d.LastModified})
			if p.VersionNumber != 2 || p.VersionID == "" || p.PublishedAt == "" || p.ChangeSummary == nil || *p.ChangeSummary != "v becomes 2" {
				t.Fatalf("published %+v", p)
			}
			if got := getWorkflow(t, c, w.ID); got.Status != "PUBLISHED" || got.Version != 2 || !strings.Contains(string(got.Workflow), `"2"`) {
				t.Fatalf("after publish: %+v", got)
			}
			// Without a body: the next version, no summary; PATCH publishes the same way.
			if p2 := publish(t, c, w.ID, nil); p2.VersionNumber != 3 || p2.ChangeSummary != nil || p2.VersionID == p.VersionID {
				t.Fatalf("second publish %+v", p2)
			}
			var pw workflowView
			if err := mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"status": "PUBLISHED"}, 200).Data(&pw); err != nil || pw.Version != 4 {
				t.Fatalf("PATCH publish: %+v %v", pw, err)
			}
			var versions struct {
				Items []struct {
					publishedView
					Workflow json.RawMessage `json:"workflow"`
				} `json:"items"`
				Total int `json:"total"`
			}
			if err := mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/versions", nil, 200).Data(&versions); err != nil || versions.Total != 4 {
				t.Fatalf("versions %+v %v", versions, err)
			}
			if v := versions.Items[2]; v.VersionNumber != 2 || v.VersionID != p.VersionID || v.ChangeSummary == nil || !strings.Contains(string(v.Workflow), `"2"`) {
				t.Fatalf("version 2 %+v", v)
			}
			if v := versions.Items[3]; v.VersionNumber != 1 || !strings.Contains(string(v.Workflow), `"1"`) {
				t.Fatalf("version 1 %+v", v)
			}
			wantError(t, do(t, c, http.MethodGet, "/v1/workflows/01900000-0000-7000-8000-000000000000/versions", nil), 404, "NOT_FOUND")
			// An execution records the version it ran.
			x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{}), ended)
			var raw struct {
				Version int64 `json:"version"`
			}
			if err := mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions/"+x.ID, nil, 200).Data(&raw); err != nil || raw.Version != 4 {
				t.Fatalf("execution version %d %v", raw.Version, err)
			}
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows/01900000-0000-7000-8000-000000000000/publish", nil), 404, "NOT_FOUND")
		})

		t.Run("a published webhook run records its version", func(t *testing.T) {
			hook := createWorkflow(t, c, map[string]any{"name": "hook", "status": "PUBLISHED", "enabled": true,
				"workflow": json.RawMessage(`{"trigger":{"kind":"workflows/webhook"},"actions":[{"id":"s","kind":"builtin:set","inputs":{"values":{"e":"{{ trigger.email }}"}}}],"edges":[{"from":"$source","to":"s"}]}`)})
			if p := publish(t, c, hook.ID, map[string]any{"change_summary": "again"}); p.VersionNumber != 2 {
				t.Fatalf("publish %+v", p)
			}
			st, out := postHook(t, ts.HTTP, *hook.WebhookURL+"?wait=true", http.Header{}, []byte(`{"email":"a@example.com"}`))
			data, _ := out["data"].(map[string]any)
			if st != 200 {
				t.Fatalf("hook %d %v", st, out)
			}
			var raw struct {
				Version int64 `json:"version"`
			}
			if err := mustDo(t, c, http.MethodGet, "/v1/workflows/"+hook.ID+"/executions/"+data["execution_id"].(string), nil, 200).Data(&raw); err != nil || raw.Version != 2 {
				t.Fatalf("webhook execution version %d %v", raw.Version, err)
			}
		})

		t.Run("execution variables", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "vars", "workflow": json.RawMessage(`{"actions":[
				{"id":"s","kind":"builtin:set","inputs":{"values":{"who":"{{ trigger.author_url }}"}}},
				{"id":"call","kind":"http_request","inputs":{"url":"http://127.0.0.1:1/x"}}],
				"edges":[{"from":"$source","to":"s"},{"from":"s","to":"call"}]}`)})
			x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"author_url": "https://x.com/ann"}}), ended)
			var v variablesView
			if err := mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions/"+x.ID+"/variables", nil, 200).Data(&v); err != nil {
				t.Fatal(err)
			}
			out, _ := v.Steps["s"].Output.(map[string]any)
			if v.RunID != x.ID || v.Status != "failed" || v.HaltedAt == nil || *v.HaltedAt != "call" || out["who"] != "https://x.com/ann" ||
				v.Steps["s"].Input == nil || len(v.Steps) != 2 {
				t.Fatalf("variables %+v", v)
			}
			mocked := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"test_config": map[string]any{
				"strict_data_validation": false,
				"action_mocks":           map[string]any{"call": map[string]any{"enabled": true, "output": map[string]any{"status": 200}}}}}), ended)
			if err := mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions/"+mocked.ID+"/variables", nil, 200).Data(&v); err != nil {
				t.Fatal(err)
			}
			if v.Status != "completed" || v.HaltedAt != nil || len(v.Steps) != 2 {
				t.Fatalf("completed variables %+v", v)
			}
			wantError(t, do(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions/01900000-0000-7000-8000-000000000000/variables", nil), 404, "NOT_FOUND")
		})

		t.Run("deletes answer what they deleted", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "gone", "status": "PUBLISHED",
				"workflow": json.RawMessage(`{"actions":[{"id":"s","kind":"builtin:set","inputs":{"values":{}}}],"edges":[{"from":"$source","to":"s"}]}`)})
			var dd struct {
				Deleted    bool   `json:"deleted"`
				WorkflowID string `json:"workflow_id"`
			}
			if err := mustDo(t, c, http.MethodDelete, "/v1/workflows/"+w.ID+"/draft", nil, 200).Data(&dd); err != nil || !dd.Deleted || dd.WorkflowID != w.ID {
				t.Fatalf("draft delete %+v %v", dd, err)
			}
			var wd struct {
				ID      string `json:"id"`
				Deleted bool   `json:"deleted"`
			}
			if err := mustDo(t, c, http.MethodDelete, "/v1/workflows/"+w.ID, nil, 200).Data(&wd); err != nil || !wd.Deleted || wd.ID != w.ID {
				t.Fatalf("workflow delete %+v %v", wd, err)
			}
			wantError(t, do(t, c, http.MethodDelete, "/v1/workflows/"+w.ID, nil), 404, "NOT_FOUND")
		})
	})
}

type inputField struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	Type     string `json:"type"`
	Default  any    `json:"default"`
}

// mockOutput is a value a JSON Schema of the catalogue accepts: an object
// with every member it declares, "x" for a string, 1 for a number.
func mockOutput(schema map[string]any) any {
	switch schema["type"] {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for name, prop := range props {
			p, _ := prop.(map[string]any)
			out[name] = mockOutput(p)
		}
		return out
	case "string":
		return "x"
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	}
	return nil
}

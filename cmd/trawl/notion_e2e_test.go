package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// integrationStepRun runs a one-step workflow of kind with inputs as a
// test run and returns the ended execution.
func integrationStepRun(t *testing.T, ts *testServer, c *client.Client, kind string, inputs map[string]any) executionView {
	t.Helper()
	def := map[string]any{
		"actions": []any{map[string]any{"id": "act", "kind": kind, "inputs": inputs}},
		"edges":   []any{map[string]any{"from": "$source", "to": "act"}},
	}
	w := createWorkflow(t, c, map[string]any{"name": kind, "workflow": def})
	return waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"text": "from the trigger"}}), ended)
}

// stepOutput is the only step's output; the step must have completed.
func stepOutput(t *testing.T, x executionView) map[string]any {
	t.Helper()
	if len(x.Steps) != 1 || x.Steps[0].Status != "completed" {
		t.Fatalf("execution %s: %+v", x.Status, x.Steps)
	}
	out, _ := x.Steps[0].Output.(map[string]any)
	return out
}

// stepError is the only step's error code; the step must have failed.
func stepError(t *testing.T, x executionView) (code, message string) {
	t.Helper()
	if len(x.Steps) != 1 || x.Steps[0].Status != "failed" || x.Steps[0].Error == nil {
		t.Fatalf("execution %s: %+v", x.Status, x.Steps)
	}
	return x.Steps[0].Error.Code, x.Steps[0].Error.Message
}

// TestNotionCreatePage: an account connects Notion, looks its databases
// and a schema up, and adds a page through a workflow step; with a dedupe
// property a second run updates that page; a long text is split as
// Notion requires; a wrong value, an unknown property, a rejected token
// and no connection fail the step with their codes; a rate limit is
// waited out.
func TestNotionCreatePage(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, integrationTestEnv))
		c := ts.Client
		const token = "ntn_e2e_workspace_1"

		x := integrationStepRun(t, ts, c, "notion_create_page", map[string]any{"database_id": "00000000-0000-4000-8000-000000000000", "properties": map[string]any{"Name": "x"}})
		if code, _ := stepError(t, x); code != "NOT_CONNECTED" {
			t.Fatalf("not connected: %s", code)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/notion/databases", nil), 404, "NOT_FOUND")

		mustDo(t, c, http.MethodPost, "/v1/integrations/notion", map[string]any{"credentials": map[string]string{"token": token}}, 201)
		var h integrationHealthView
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/notion/health", nil, 200).Data(&h); err != nil || h.Status != "ok" {
			t.Fatalf("health = %+v, %v", h, err)
		}

		// Lookups.
		var dbs struct {
			Databases []struct{ ID, Title, URL string } `json:"databases"`
			HasMore   bool                              `json:"has_more"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/notion/databases?query=lead", nil, 200).Data(&dbs); err != nil || len(dbs.Databases) != 1 || dbs.Databases[0].Title != "Leads" || dbs.HasMore {
			t.Fatalf("databases = %+v, %v", dbs, err)
		}
		db := dbs.Databases[0].ID
		var schema struct {
			ID         string `json:"id"`
			Title      string `json:"title"`
			Properties []struct {
				Name, Type string
				Options    []string
			} `json:"properties"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/notion/databases/"+db+"/schema", nil, 200).Data(&schema); err != nil || schema.ID != db || len(schema.Properties) != 10 {
			t.Fatalf("schema = %+v, %v", schema, err)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/notion/databases/not-an-id/schema", nil), 400, "VALIDATION_ERROR")

		// A page, then the same lead again: the page is updated.
		long := strings.Repeat("a", 2500)
		props := map[string]any{"Name": "Ada Lovelace", "Email": "ada@example.com", "Company": long, "Score": "42",
			"Stage": "Qualified", "Tags": "vip, partner", "Subscribed": "yes", "Met": "2026-11-20", "Website": "https://ada.example"}
		in := map[string]any{"database_id": db, "properties": props, "content": "{{ trigger.text }}\n\nSecond paragraph.", "dedupe_property": "Email"}
		out := stepOutput(t, integrationStepRun(t, ts, c, "notion_create_page", in))
		id, _ := out["id"].(string)
		if out["created"] != true || !strings.HasPrefix(out["url"].(string), "https://www.notion.so/Ada-Lovelace-"+strings.ReplaceAll(id, "-", "")) {
			t.Fatalf("first run = %v", out)
		}
		props["Score"] = 43
		out = stepOutput(t, integrationStepRun(t, ts, c, "notion_create_page", in))
		if out["created"] != false || out["id"] != id {
			t.Fatalf("second run = %v", out)
		}
		var page struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		auth := map[string]string{"Authorization": "Bearer " + token, "Notion-Version": "2022-06-28"}
		if st := sandboxAPI(t, ts, http.MethodGet, "/notion/v1/pages/"+id, auth, nil, &page); st != 200 || page.Properties["Score"]["number"] != 43.0 {
			t.Fatalf("page = %d %+v", st, page)
		}
		if rt, _ := page.Properties["Company"]["rich_text"].([]any); len(rt) != 2 {
			t.Fatalf("2,500 characters in %d rich texts", len(rt))
		}
		var list struct {
			Results []any `json:"results"`
		}
		sandboxAPI(t, ts, http.MethodPost, "/notion/v1/databases/"+db+"/query", auth, map[string]any{}, &list)
		if len(list.Results) != 1 {
			t.Fatalf("%d pages after two runs", len(list.Results))
		}
		var sawPatch, sawBlocks bool
		for _, call := range ts.integrationCalls("notion") {
			sawPatch = sawPatch || call.Method == "PATCH" && call.Path == "/v1/pages/"+id
			sawBlocks = sawBlocks || call.Method == "POST" && call.Path == "/v1/pages" && strings.Contains(call.Body, `"paragraph"`) && strings.Contains(call.Body, "from the trigger")
		}
		if !sawPatch || !sawBlocks {
			t.Fatalf("request log: patch %v, blocks %v", sawPatch, sawBlocks)
		}

		// Rate limited once (flaky-): waited out, one page.
		out = stepOutput(t, integrationStepRun(t, ts, c, "notion_create_page", map[string]any{"database_id": db, "properties": map[string]any{"Name": "flaky-grace"}}))
		if out["created"] != true {
			t.Fatalf("flaky = %v", out)
		}

		// Wrong inputs: the step says which.
		for _, bad := range []map[string]any{
			{"Score": "many"}, {"Nope": "x"},
		} {
			code, msg := stepError(t, integrationStepRun(t, ts, c, "notion_create_page", map[string]any{"database_id": db, "properties": bad}))
			if code != "INVALID_INPUT" || msg == "" {
				t.Fatalf("%v: %s %s", bad, code, msg)
			}
		}
		code, msg := stepError(t, integrationStepRun(t, ts, c, "notion_create_page", map[string]any{"database_id": "00000000-0000-4000-8000-000000000000", "properties": map[string]any{"Name": "x"}}))
		if code != "NOT_FOUND" || !strings.Contains(msg, "object_not_found") {
			t.Fatalf("unknown database: %s %s", code, msg)
		}

		// A token Notion rejects.
		mustDo(t, c, http.MethodPost, "/v1/integrations/notion", map[string]any{"credentials": map[string]string{"token": "invalid-revoked"}}, 200)
		code, msg = stepError(t, integrationStepRun(t, ts, c, "notion_create_page", map[string]any{"database_id": db, "properties": map[string]any{"Name": "x"}}))
		if code != "CONNECTION_REJECTED" || !strings.Contains(msg, "unauthorized") {
			t.Fatalf("rejected: %s %s", code, msg)
		}
		ts.stop()
		if strings.Contains(ts.Stdout.String()+ts.Stderr.String(), token) {
			t.Fatal("the server logged the token")
		}
	})
}

// integrationTestEnv logs the sandbox's requests and lifts the API's rate
// limit, which a test polling many executions would otherwise reach.
var integrationTestEnv = map[string]string{"TRAWL_LOG_LEVEL": "debug",
	"TRAWL_RATE_LIMIT_STARTER": "100000", "TRAWL_RATE_LIMIT_ENTERPRISE": "100000", "TRAWL_RATE_LIMIT_CUSTOM": "100000"}

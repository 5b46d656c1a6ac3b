package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
)

// End-to-end tests of the workflow engine through test runs: control flow,
// loops, mocks and credits, delays across the clock, cancel and rerun.

type executionView struct {
	ID        string         `json:"id"`
	RunID     string         `json:"run_id"`
	Status    string         `json:"status"`
	Error     *string        `json:"error"`
	EventName string         `json:"event_name"`
	IsTest    bool           `json:"is_test"`
	RerunOf   *string        `json:"rerun_of"`
	Trigger   map[string]any `json:"trigger"`
	Steps     []struct {
		StepID       string         `json:"step_id"`
		Key          string         `json:"key"`
		Status       string         `json:"status"`
		Input        map[string]any `json:"input"`
		Output       any            `json:"output"`
		MappedOutput map[string]any `json:"mapped_output"`
		Error        *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"steps"`
}

func (x executionView) keys() string {
	var parts []string
	for _, s := range x.Steps {
		parts = append(parts, s.Key+":"+s.Status)
	}
	return strings.Join(parts, " ")
}

func startTest(t *testing.T, c *client.Client, workflowID string, body any) string {
	t.Helper()
	var out struct {
		TestRunID   string `json:"test_run_id"`
		TriggerType string `json:"trigger_type"`
	}
	if err := mustDo(t, c, http.MethodPost, "/v1/workflows/"+workflowID+"/test", body, 200).Data(&out); err != nil {
		t.Fatal(err)
	}
	return out.TestRunID
}

func execution(t *testing.T, c *client.Client, workflowID, runID string) executionView {
	t.Helper()
	var x executionView
	if err := mustDo(t, c, http.MethodGet, "/v1/workflows/"+workflowID+"/executions/"+runID, nil, 200).Data(&x); err != nil {
		t.Fatal(err)
	}
	return x
}

func waitExecution(t *testing.T, ts *testServer, c *client.Client, workflowID, runID string, done func(executionView) bool) executionView {
	t.Helper()
	var x executionView
	waitUntil(t, ts, "execution "+runID, func() bool {
		x = execution(t, c, workflowID, runID)
		return done(x)
	})
	return x
}

func ended(x executionView) bool { return x.Status != "running" }

// branching: if likes ≥ 10, loop over three numbers, then count; else exit.
const branchingFlow = `{"actions":[
 {"id":"hot","kind":"builtin:if","inputs":{"condition":"{{ trigger.likes >= 10 }}"}},
 {"id":"each","kind":"builtin:loop","inputs":{"items":"{{ [1, 2, 3] }}"}},
 {"id":"square","kind":"builtin:set","inputs":{"values":{"v":"{{ loop.item * loop.item }}","label":"{{ trigger.author_url }} #{{ loop.index }}"}}},
 {"id":"count","kind":"builtin:set","inputs":{"values":{"n":"{{ steps.each.output.count }}","last":"{{ steps.each.output.results[2].v }}"}}},
 {"id":"cold","kind":"builtin:exit","inputs":{"reason":"not hot"}},
 {"id":"never","kind":"builtin:set","inputs":{"values":{}}}],
 "edges":[{"from":"$source","to":"hot"},
  {"from":"hot","to":"each","conditional":{"type":"if"}},{"from":"hot","to":"cold","conditional":{"type":"else"}},
  {"from":"each","to":"square","conditional":{"type":"loop"}},{"from":"each","to":"count","conditional":{"type":"completed"}},
  {"from":"cold","to":"never"}],
 "column_config":[{"id":"c","stepId":"count","fieldPath":"n","label":"Count"}]}`

func TestExecutionsEndToEnd(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
		ts := topicServer(t, engine, clk)
		c := ts.Client

		t.Run("branches, loops, exit and mapped output", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "branching", "workflow": json.RawMessage(branchingFlow)})
			hot := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"likes": 12, "author_url": "https://x.com/ann"}}), ended)
			if hot.Status != "completed" || !hot.IsTest || hot.EventName != "workflows/new-post" || hot.Trigger["likes"] != float64(12) {
				t.Fatalf("hot run %+v", hot)
			}
			if got, want := hot.keys(), "hot:completed each:completed square#0:completed square#1:completed square#2:completed count:completed cold:skipped never:skipped"; got != want {
				t.Fatalf("hot steps\n got %s\nwant %s", got, want)
			}
			count := hot.Steps[5]
			if out := count.Output.(map[string]any); out["n"] != float64(3) || out["last"] != float64(9) || count.MappedOutput["Count"] != float64(3) {
				t.Fatalf("count step %+v", count)
			}
			if lbl := hot.Steps[2].Output.(map[string]any)["label"]; lbl != "https://x.com/ann #0" {
				t.Fatalf("interpolated label %v", lbl)
			}
			if x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, nil), ended); x.Status != "completed" {
				t.Fatalf("a test run without a body (the sample payload) %s: %s", x.Status, x.keys())
			}
			cold := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"likes": 3}}), ended)
			if got, want := cold.keys(), "hot:completed each:skipped square:skipped count:skipped cold:completed never:skipped"; cold.Status != "completed" || got != want {
				t.Fatalf("cold run %s: %s", cold.Status, got)
			}
		})

		t.Run("a failure inside a loop: the loop fails, what never ran is skipped", func(t *testing.T) {
			def := `{"actions":[
				{"id":"each","kind":"builtin:loop","inputs":{"items":"{{ ['GET', 'FETCH', 'GET'] }}"}},
				{"id":"call","kind":"http_request","inputs":{"url":"https://crm.example.com/leads","method":"{{ loop.item }}"}},
				{"id":"after","kind":"builtin:set","inputs":{"values":{"n":"{{ loop.index }}"}}},
				{"id":"done","kind":"builtin:set","inputs":{"values":{"ok":true}}}],
				"edges":[{"from":"$source","to":"each"},{"from":"each","to":"call","conditional":{"type":"loop"}},
				 {"from":"call","to":"after"},{"from":"each","to":"done","conditional":{"type":"completed"}}]}`
			w := createWorkflow(t, c, map[string]any{"name": "loop fails", "workflow": json.RawMessage(def)})
			x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"test_config": map[string]any{"action_mocks": map[string]any{
				"call": map[string]any{"enabled": true, "output": map[string]any{"status": 200, "headers": map[string]any{}, "body": map[string]any{}}}}}}), ended)
			if got, want := x.keys(), "each:failed call#0:completed after#0:completed call#1:failed done:skipped"; x.Status != "failed" || got != want {
				t.Fatalf("%s\n got %s\nwant %s", x.Status, got, want)
			}
			if e := x.Steps[0].Error; e == nil || e.Code != "ITEM_FAILED" || !strings.Contains(e.Message, "item 1") || x.Steps[3].Error.Code != "INVALID_INPUT" {
				t.Fatalf("loop %+v, item %+v", x.Steps[0], x.Steps[3])
			}
			if skipped := x.Steps[4]; skipped.Input == nil || len(skipped.Input) != 0 || skipped.Output != nil || skipped.Error != nil {
				t.Fatalf("a step that never ran: %+v", skipped)
			}
		})

		t.Run("mocks cost nothing; executed actions cost their price; an empty balance fails the step", func(t *testing.T) {
			def := `{"actions":[{"id":"who","kind":"person_enrichment","inputs":{"profile_url":"https://www.linkedin.com/in/jane-doe"}},
				{"id":"note","kind":"builtin:set","inputs":{"values":{"title":"{{ steps.who.output.prospect.job_title }}"}}}],
				"edges":[{"from":"$source","to":"who"},{"from":"who","to":"note"}]}`
			acct := newAccount(t, ts, "payer", "STARTER", "1")
			pc := newKey(t, ts, acct, "*")
			w := createWorkflow(t, pc, map[string]any{"name": "enrich", "workflow": json.RawMessage(def)})
			day := clk.Now()
			mocked := waitExecution(t, ts, pc, w.ID, startTest(t, pc, w.ID, map[string]any{"test_config": map[string]any{
				"action_mocks": map[string]any{"who": map[string]any{"enabled": true, "output": map[string]any{"prospect": map[string]any{"job_title": "VP Sales"}, "experience": []any{}}}}}}), ended)
			if mocked.Status != "completed" || mocked.Steps[1].Output.(map[string]any)["title"] != "VP Sales" || ledgerOf(t, pc, day) != 0 {
				t.Fatalf("mocked run %+v, spent %d", mocked, ledgerOf(t, pc, day))
			}
			real := waitExecution(t, ts, pc, w.ID, startTest(t, pc, w.ID, map[string]any{}), ended)
			if real.Status != "completed" || real.Steps[0].Output.(map[string]any)["prospect"] == nil || ledgerOf(t, pc, day) != 1 {
				t.Fatalf("real run %+v, spent %d", real, ledgerOf(t, pc, day))
			}
			// The ledger names the workflow whose step spent the credit.
			if l := creditLedgerOf(t, pc, ""); len(l.Data) != 1 || l.Data[0].WorkflowID == nil || *l.Data[0].WorkflowID != w.ID ||
				l.Data[0].SavedSearchID != nil || l.Data[0].Feature != "workflow_execution" || !strings.Contains(l.Data[0].Action, "person_enrichment") {
				t.Fatalf("ledger after the real run: %+v", l)
			}
			broke := waitExecution(t, ts, pc, w.ID, startTest(t, pc, w.ID, map[string]any{}), ended)
			if broke.Status != "failed" || broke.Steps[0].Error == nil || broke.Steps[0].Error.Code != "INSUFFICIENT_CREDITS" || ledgerOf(t, pc, day) != 1 {
				t.Fatalf("unpaid run %+v, spent %d", broke, ledgerOf(t, pc, day))
			}
			if got := broke.keys(); got != "who:failed note:skipped" {
				t.Fatalf("after a failure nothing runs, and what did not run is listed skipped: %s", got)
			}
			wantError(t, do(t, pc, http.MethodPost, "/v1/workflows/"+w.ID+"/test", map[string]any{"test_config": map[string]any{
				"action_mocks": map[string]any{"ghost": map[string]any{"enabled": true}}}}), 400, "VALIDATION_ERROR", "body.test_config.action_mocks.ghost")
			// Another account reaches none of them.
			for _, r := range []struct{ method, path string }{
				{http.MethodGet, "/v1/workflows/" + w.ID + "/executions/" + real.ID},
				{http.MethodGet, "/v1/workflows/" + w.ID + "/executions"},
				{http.MethodPost, "/v1/workflows/" + w.ID + "/executions/" + broke.ID + "/rerun"},
				{http.MethodPost, "/v1/workflows/" + w.ID + "/executions/" + real.ID + "/cancel"},
				{http.MethodPost, "/v1/workflows/" + w.ID + "/test"},
			} {
				var body any
				if r.method == http.MethodPost {
					body = map[string]any{}
				}
				wantError(t, do(t, c, r.method, r.path, body), 404, "NOT_FOUND")
			}
			if x := execution(t, pc, w.ID, broke.ID); x.Status != "failed" {
				t.Fatalf("another account's rerun or cancel changed the execution: %+v", x)
			}
		})

		t.Run("a delay parks the execution until the clock passes it; cancel and rerun", func(t *testing.T) {
			def := `{"actions":[{"id":"before","kind":"builtin:set","inputs":{"values":{"at":"{{ now.Unix() }}"}}},
				{"id":"wait","kind":"builtin:delay","inputs":{"duration":"2h"}},
				{"id":"after","kind":"builtin:set","inputs":{"values":{"done":true}}}],
				"edges":[{"from":"$source","to":"before"},{"from":"before","to":"wait"},{"from":"wait","to":"after"}]}`
			w := createWorkflow(t, c, map[string]any{"name": "later", "workflow": json.RawMessage(def)})
			run := startTest(t, c, w.ID, map[string]any{})
			parking := func(x executionView) bool { return x.keys() == "before:completed wait:running after:pending" }
			parked := waitExecution(t, ts, c, w.ID, run, parking)
			if parked.Status != "running" {
				t.Fatalf("parked %s: %s", parked.Status, parked.keys())
			}
			clk.Advance(time.Hour)
			time.Sleep(1500 * time.Millisecond) // two ticks pass; the delay must hold
			if x := execution(t, c, w.ID, run); x.Status != "running" || !parking(x) {
				t.Fatalf("resumed early: %s", x.keys())
			}
			clk.Advance(time.Hour + time.Minute)
			done := waitExecution(t, ts, c, w.ID, run, ended)
			if done.Status != "completed" || done.keys() != "before:completed wait:completed after:completed" {
				t.Fatalf("after the delay %s: %s", done.Status, done.keys())
			}
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows/"+w.ID+"/executions/"+run+"/cancel", nil), 409, "CONFLICT")
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows/"+w.ID+"/executions/"+run+"/rerun", nil), 409, "CONFLICT")

			second := startTest(t, c, w.ID, map[string]any{})
			waitExecution(t, ts, c, w.ID, second, parking)
			var cancelled executionView
			if err := mustDo(t, c, http.MethodPost, "/v1/workflows/"+w.ID+"/executions/"+second+"/cancel", nil, 200).Data(&cancelled); err != nil {
				t.Fatal(err)
			}
			if cancelled.Status != "failed" || cancelled.Error == nil || *cancelled.Error != "cancelled" || cancelled.keys() != "before:completed wait:failed after:skipped" {
				t.Fatalf("cancelled %+v", cancelled)
			}
			clk.Advance(3 * time.Hour)
			time.Sleep(1500 * time.Millisecond)
			if x := execution(t, c, w.ID, second); x.Status != "failed" || x.keys() != "before:completed wait:failed after:skipped" {
				t.Fatalf("a cancelled execution went on: %s %s", x.Status, x.keys())
			}

			var again executionView
			if err := mustDo(t, c, http.MethodPost, "/v1/workflows/"+w.ID+"/executions/"+second+"/rerun", nil, 201).Data(&again); err != nil {
				t.Fatal(err)
			}
			if again.RerunOf == nil || *again.RerunOf != second {
				t.Fatalf("rerun %+v", again)
			}
			rerun := waitExecution(t, ts, c, w.ID, again.ID, parking)
			first := execution(t, c, w.ID, second).Steps[0]
			if rerun.Steps[0].Key != "before" || rerun.Steps[0].Output.(map[string]any)["at"] != first.Output.(map[string]any)["at"] {
				t.Fatalf("the rerun did not reuse the completed step: %+v vs %+v", rerun.Steps[0], first)
			}
			clk.Advance(2*time.Hour + time.Minute)
			if x := waitExecution(t, ts, c, w.ID, again.ID, ended); x.Status != "completed" {
				t.Fatalf("rerun ended %s: %s", x.Status, x.keys())
			}

			var list struct {
				Data       []executionView `json:"data"`
				Pagination struct {
					TotalCount int64 `json:"total_count"`
				} `json:"pagination"`
			}
			lr := mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions?status=failed", nil, 200)
			if err := json.Unmarshal(lr.Body, &list); err != nil || list.Pagination.TotalCount != 1 || list.Data[0].ID != second || list.Data[0].Steps != nil {
				t.Fatalf("failed list %s", lr.Body)
			}
			// Every filter's total agrees with the executions listed.
			all := mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions?page_size=100", nil, 200)
			if err := json.Unmarshal(all.Body, &list); err != nil || list.Pagination.TotalCount != 3 || len(list.Data) != 3 {
				t.Fatalf("all executions %s", all.Body)
			}
			for _, q := range []struct {
				query string
				want  int64
			}{{"status=completed", 2}, {"status=running", 0}, {"status=failed", 1},
				{"event_name=" + list.Data[0].EventName, 3}, {"event_name=workflows/scheduled-trigger", 0},
				{"status=completed&event_name=" + list.Data[0].EventName, 2}, {"page=2&page_size=2", 3}} {
				r := mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions?"+q.query, nil, 200)
				if err := json.Unmarshal(r.Body, &list); err != nil || list.Pagination.TotalCount != q.want {
					t.Errorf("%s: total %d, want %d: %s", q.query, list.Pagination.TotalCount, q.want, r.Body)
				}
			}
		})

		t.Run("executions older than the retention are pruned, and leave the totals", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "short-lived", "workflow": json.RawMessage(branchingFlow)})
			old := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{}), ended)
			clk.Advance(31 * 24 * time.Hour) // TRAWL_EXECUTION_RETENTION defaults to 30 days
			fresh := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{}), ended)
			var list struct {
				Data       []executionView `json:"data"`
				Pagination struct {
					TotalCount int64 `json:"total_count"`
				} `json:"pagination"`
			}
			waitUntil(t, ts, "the old execution pruned", func() bool {
				return do(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions/"+old.ID, nil).Status == http.StatusNotFound
			})
			for _, q := range []string{"", "?status=completed", "?event_name=workflows/new-post"} {
				r := mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions"+q, nil, 200)
				if err := json.Unmarshal(r.Body, &list); err != nil || list.Pagination.TotalCount != 1 || len(list.Data) != 1 || list.Data[0].ID != fresh.ID {
					t.Errorf("after pruning, list%s: %s", q, r.Body)
				}
			}
		})
	})
}

// ledgerOf is what the account spent on workflow_execution since from.
func ledgerOf(t *testing.T, c *client.Client, from time.Time) int64 {
	t.Helper()
	u, err := c.Usage(t.Context(), from.Add(-time.Hour).UTC().Format(time.RFC3339), from.Add(48*time.Hour).UTC().Format(time.RFC3339))
	if err != nil {
		t.Fatal(err)
	}
	return u.Credits.ByFeature[string(credits.WorkflowExecution)]
}

package main

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// The console's Executions section (issue 39) in a real browser, on each
// engine: workflows made and test-run through the API (one with a mocked
// HTTP call that completes, one whose call fails, one parked on a delay),
// then the list and its filters (a bad one: the API's message at its
// input), a completed execution's timeline against the API's answer, a
// failed one's error at its step and its rerun, the cancel of a running
// one, the timeline refreshing itself while it runs, and cancel's refusal
// once the run has ended behind the page's back.

// routerFlow: a lead is posted to a CRM (mocked in the test runs) when the
// post is hot; a cold one exits, so one branch is always skipped.
const routerFlow = `{"actions":[
 {"id":"hot","kind":"builtin:if","inputs":{"condition":"{{ trigger.likes >= 10 }}"}},
 {"id":"post","kind":"http_request","inputs":{"url":"https://crm.example.com/leads","method":"POST"}},
 {"id":"note","kind":"builtin:set","inputs":{"values":{"lead":"{{ steps.post.output.body.id }}","who":"{{ trigger.author_url }}"}}},
 {"id":"cold","kind":"builtin:exit","inputs":{"reason":"not hot"}}],
 "edges":[{"from":"$source","to":"hot"},{"from":"hot","to":"post","conditional":{"type":"if"}},
  {"from":"hot","to":"cold","conditional":{"type":"else"}},{"from":"post","to":"note"}]}`

// brokenFlow's call gets a method no HTTP request has: the step fails.
const brokenFlow = `{"actions":[
 {"id":"prep","kind":"builtin:set","inputs":{"values":{"method":"FETCH"}}},
 {"id":"call","kind":"http_request","inputs":{"url":"https://crm.example.com/leads","method":"{{ steps.prep.output.method }}"}},
 {"id":"after","kind":"builtin:set","inputs":{"values":{"ok":true}}}],
 "edges":[{"from":"$source","to":"prep"},{"from":"prep","to":"call"},{"from":"call","to":"after"}]}`

// laterFlow parks on a two-hour delay: a run that stays running.
const laterFlow = `{"actions":[{"id":"before","kind":"builtin:set","inputs":{"values":{"at":"{{ now.Unix() }}"}}},
 {"id":"wait","kind":"builtin:delay","inputs":{"duration":"2h"}},
 {"id":"after","kind":"builtin:set","inputs":{"values":{"done":true}}}],
 "edges":[{"from":"$source","to":"before"},{"from":"before","to":"wait"},{"from":"wait","to":"after"}]}`

// rawExecution is the API's execution with each step's values as it wrote them.
type rawExecution struct {
	ID      string  `json:"id"`
	Status  string  `json:"status"`
	Error   *string `json:"error"`
	RerunOf *string `json:"rerun_of"`
	Steps   []struct {
		Key    string          `json:"key"`
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
		Error  *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"steps"`
}

func rawExecutionOf(t *testing.T, c *client.Client, workflowID, runID string) rawExecution {
	t.Helper()
	var x rawExecution
	if err := mustDo(t, c, http.MethodGet, "/v1/workflows/"+workflowID+"/executions/"+runID, nil, 200).Data(&x); err != nil {
		t.Fatal(err)
	}
	return x
}

// sameJSON says a and b are the same JSON value.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

type executionListRow struct{ ID, Workflow, Status, Event, Href string }

const executionRowsJS = `[...document.querySelectorAll('#executions tbody tr')].map(tr => ({
	ID: tr.dataset.id, Workflow: tr.querySelector('td.workflow').innerText.trim(),
	Status: tr.querySelector('td.status .badge').innerText.trim(), Event: tr.querySelector('td.event').innerText.trim(),
	Href: tr.querySelector('td.open a').getAttribute('href')}))`

func TestConsoleExecutionsInBrowser(t *testing.T) {
	// Parallel: each walk has its own browser and server; together they
	// wait on pages and ticks, not on each other.
	t.Parallel()
	tb := newTab(t)
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		b, ts, cancel := consoleWalk(t, tb, engine, nil)
		defer cancel()
		c := ts.Client

		// Through the API: a completed run (its CRM call mocked), a failed
		// one, and one parked on its delay.
		router := createWorkflow(t, c, map[string]any{"name": "Lead router", "workflow": json.RawMessage(routerFlow)})
		broken := createWorkflow(t, c, map[string]any{"name": "Broken call", "workflow": json.RawMessage(brokenFlow)})
		later := createWorkflow(t, c, map[string]any{"name": "Later", "workflow": json.RawMessage(laterFlow)})
		okRun := waitExecution(t, ts, c, router.ID, startTest(t, c, router.ID, map[string]any{
			"overrides": map[string]any{"likes": 12, "author_url": "https://x.com/ann"},
			"test_config": map[string]any{"action_mocks": map[string]any{"post": map[string]any{"enabled": true,
				"output": map[string]any{"status": 201, "headers": map[string]any{}, "body": map[string]any{"id": "lead-42"}}}}}}), ended)
		if okRun.Status != "completed" || okRun.keys() != "hot:completed post:completed note:completed cold:skipped" {
			t.Fatalf("the router's test run %s: %s", okRun.Status, okRun.keys())
		}
		badRun := waitExecution(t, ts, c, broken.ID, startTest(t, c, broken.ID, map[string]any{}), ended)
		if badRun.Status != "failed" || badRun.keys() != "prep:completed call:failed after:skipped" {
			t.Fatalf("the broken test run %s: %s", badRun.Status, badRun.keys())
		}
		parking := func(x executionView) bool { return x.keys() == "before:completed wait:running after:pending" }
		parked := waitExecution(t, ts, c, later.ID, startTest(t, c, later.ID, map[string]any{}), parking)

		// The list: every execution of the account, newest first.
		b.open("/executions", "#executions")
		if h := b.text("h1"); h != "Executions" {
			t.Errorf("the list's h1 = %q", h)
		}
		var rows []executionListRow
		b.evalInto(executionRowsJS, &rows)
		want := []executionListRow{
			{parked.ID, "Later", "running", "workflows/new-post", "/workflows/" + later.ID + "/executions/" + parked.ID},
			{badRun.ID, "Broken call", "failed", "workflows/new-post", "/workflows/" + broken.ID + "/executions/" + badRun.ID},
			{okRun.ID, "Lead router", "completed", "workflows/new-post", "/workflows/" + router.ID + "/executions/" + okRun.ID},
		}
		if !slices.Equal(rows, want) {
			t.Errorf("#executions rows\n got %+v\nwant %+v", rows, want)
		}
		b.checkSignedIn("Executions")
		b.screenshot("executions")

		// Filtered by status: only the failed one, the filter kept in the form.
		b.fill("#status", "failed")
		b.submit("filter by status failed", "#filter", "#executions")
		b.evalInto(executionRowsJS, &rows)
		if len(rows) != 1 || rows[0].ID != badRun.ID {
			t.Errorf("status=failed lists %+v, want only %s", rows, badRun.ID)
		}
		if got := b.eval(`location.search`); !strings.Contains(got, "status=failed") || b.eval(`document.getElementById('status').value`) != "failed" {
			t.Errorf("after filtering: location.search %q, #status %q", got, b.eval(`document.getElementById('status').value`))
		}
		b.checkSignedIn("Executions, failed")

		// A bad filter in the address: the API's own message at its input.
		apiErr := do(t, c, http.MethodGet, "/v1/workflows/"+router.ID+"/executions?status=stuck", nil).Err()
		var apiMsg string
		for _, d := range apiErr.Details {
			if d.Field == "query.status" {
				apiMsg = d.Message
			}
		}
		if apiMsg == "" {
			t.Fatalf("the API names no query.status problem for status=stuck: %+v", apiErr)
		}
		b.open("/executions?status=stuck", "#status-error")
		if got := b.text("#status-error"); got != apiMsg {
			t.Errorf("#status-error = %q, want the API's %q", got, apiMsg)
		}
		if b.count(`#status[aria-invalid="true"][aria-describedby="status-error"]`) != 1 || b.count("#executions") != 0 {
			t.Errorf("a bad status: #status not marked invalid, or the table shown anyway")
		}
		b.checkSignedIn("Executions, bad filter")

		// The completed run's timeline: each step as the API says.
		b.open("/executions", "#executions")
		b.navigateBy("open the completed run", chromedp.Click(chromedp.CSS(`#executions tr[data-id="`+okRun.ID+`"] td.open a`)), "#steps")
		b.wantPath("/workflows/" + router.ID + "/executions/" + okRun.ID)
		if h := b.text("h1"); h != "Execution of Lead router" {
			t.Errorf("the execution's h1 = %q", h)
		}
		if s := b.text("#execution-status"); s != "completed" || b.count("#timeline[hx-trigger]") != 0 || b.count("#rerun, #cancel") != 0 {
			t.Errorf("a completed run: status %q, polling %d, rerun/cancel buttons %d", s, b.count("#timeline[hx-trigger]"), b.count("#rerun, #cancel"))
		}
		api := rawExecutionOf(t, c, router.ID, okRun.ID)
		var steps []struct{ Key, Status, Output, Input string }
		b.evalInto(`[...document.querySelectorAll('#steps > li')].map(li => ({Key: li.dataset.key, Status: li.dataset.status,
			Output: (li.querySelector('.step-output pre') || {textContent: ''}).textContent,
			Input: (li.querySelector('.step-input pre') || {textContent: ''}).textContent}))`, &steps)
		if len(steps) != len(api.Steps) {
			t.Fatalf("the timeline shows %d steps, the API %d", len(steps), len(api.Steps))
		}
		for i, st := range api.Steps {
			got := steps[i]
			if got.Key != st.Key || got.Status != st.Status {
				t.Errorf("step %d: %s %s, the API's %s %s", i, got.Key, got.Status, st.Key, st.Status)
			}
			if st.Status == "completed" && (!sameJSON(got.Output, string(st.Output)) || !sameJSON(got.Input, string(st.Input))) {
				t.Errorf("step %s shows input %s output %s; the API's %s and %s", st.Key, got.Input, got.Output, st.Input, st.Output)
			}
		}
		if !strings.Contains(steps[2].Output, "lead-42") || b.count(`#steps li[data-key="cold"] .skipped-note`) != 1 {
			t.Errorf("note's output %q lacks the mocked lead id, or cold is not shown skipped", steps[2].Output)
		}
		// An output opens with a click (readable, folded until asked).
		b.do("open note's output", chromedp.Click(chromedp.CSS(`#steps li[data-key="note"] .step-output summary`)),
			chromedp.WaitVisible(chromedp.CSS(`#steps li[data-key="note"] .step-output pre`)))
		b.checkSignedIn("Execution, completed")
		b.screenshot("execution")

		// The failed run: its error at its step; rerun makes a new execution.
		b.open("/workflows/"+broken.ID+"/executions/"+badRun.ID, "#steps")
		failed := rawExecutionOf(t, c, broken.ID, badRun.ID).Steps[1]
		if got := b.text(`#steps li[data-key="call"] .step-error-message`); failed.Error == nil || got != failed.Error.Message {
			t.Errorf("call's error on the page %q; the API's %+v", got, failed.Error)
		}
		if b.text("#execution-status") != "failed" || b.count(`#steps li[data-key="after"] .skipped-note`) != 1 || b.count("#cancel") != 0 {
			t.Errorf("the failed run: status %q, after skipped %d, cancel buttons %d", b.text("#execution-status"),
				b.count(`#steps li[data-key="after"] .skipped-note`), b.count("#cancel"))
		}
		b.checkSignedIn("Execution, failed")
		b.submit("rerun", "#rerun", "#rerun-of")
		rerunPath := b.path()
		rerunID := rerunPath[strings.LastIndex(rerunPath, "/")+1:]
		if !strings.HasPrefix(rerunPath, "/workflows/"+broken.ID+"/executions/") || rerunID == badRun.ID {
			t.Fatalf("after rerun the browser is at %s", rerunPath)
		}
		if x := rawExecutionOf(t, c, broken.ID, rerunID); x.RerunOf == nil || *x.RerunOf != badRun.ID {
			t.Errorf("the API's execution %s: rerun_of %v, want %s", rerunID, x.RerunOf, badRun.ID)
		}
		if b.text("#flash") == "" || !strings.HasSuffix(b.eval(`document.getElementById('rerun-of').getAttribute('href')`), badRun.ID) {
			t.Errorf("the rerun's page: flash %q, #rerun-of %q", b.text("#flash"), b.eval(`document.getElementById('rerun-of').getAttribute('href')`))
		}
		b.checkSignedIn("Execution, rerun")

		// A running execution: it polls, and Cancel ends it.
		b.open("/workflows/"+later.ID+"/executions/"+parked.ID, "#steps")
		if b.text("#execution-status") != "running" || b.count(`#timeline[hx-trigger="every 2s"]`) != 1 || b.count("#reload") != 1 {
			t.Errorf("a running run: status %q, polling %d, reload link %d", b.text("#execution-status"), b.count(`#timeline[hx-trigger="every 2s"]`), b.count("#reload"))
		}
		b.checkSignedIn("Execution, running")
		b.submit("cancel", "#cancel", "#flash")
		if x := execution(t, c, later.ID, parked.ID); x.Status != "failed" || x.Error == nil || *x.Error != "cancelled" {
			t.Errorf("after Cancel the API says %s %v", x.Status, x.Error)
		}
		if b.text("#execution-status") != "failed" || b.text("#execution-error") != "Error: cancelled" || b.count("#timeline[hx-trigger]") != 0 {
			t.Errorf("the cancelled run's page: status %q, error %q, polling %d", b.text("#execution-status"), b.text("#execution-error"), b.count("#timeline[hx-trigger]"))
		}
		b.checkSignedIn("Execution, cancelled")

		// While the page is open, the run ends elsewhere: the timeline
		// updates in place (no page load) and stops polling.
		second := waitExecution(t, ts, c, later.ID, startTest(t, c, later.ID, map[string]any{}), parking)
		b.open("/workflows/"+later.ID+"/executions/"+second.ID, "#timeline[hx-trigger]")
		b.eval(`window.stayed = 'same page'`)
		mustDo(t, c, http.MethodPost, "/v1/workflows/"+later.ID+"/executions/"+second.ID+"/cancel", nil, 200)
		b.do("the timeline refreshes", chromedp.WaitVisible(chromedp.CSS(`#timeline:not([hx-trigger]) #execution-status.status-failed`)))
		if b.eval(`window.stayed || ''`) != "same page" || b.text("#execution-error") != "Error: cancelled" {
			t.Errorf("the refresh reloaded the page, or shows error %q", b.text("#execution-error"))
		}
		b.checkSignedIn("Execution, refreshed")

		// Without JavaScript: the run ends behind the page's back, and its
		// Cancel button gets the API's refusal.
		third := waitExecution(t, ts, c, later.ID, startTest(t, c, later.ID, map[string]any{}), parking)
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		b.open("/workflows/"+later.ID+"/executions/"+third.ID, "#cancel")
		mustDo(t, c, http.MethodPost, "/v1/workflows/"+later.ID+"/executions/"+third.ID+"/cancel", nil, 200)
		refusal := do(t, c, http.MethodPost, "/v1/workflows/"+later.ID+"/executions/"+third.ID+"/cancel", nil).Err()
		b.submit("cancel an ended run", "#cancel", "#problem")
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
			t.Fatal(err)
		}
		if got := b.text("#problem"); refusal == nil || refusal.Status != http.StatusConflict || got != refusal.Message {
			t.Errorf("cancel of an ended run shows %q; the API's refusal %+v", got, refusal)
		}
		if b.text("#execution-status") != "failed" || b.count("#cancel") != 0 {
			t.Errorf("after the refusal: status %q, cancel buttons %d", b.text("#execution-status"), b.count("#cancel"))
		}
		b.checkSignedIn("Execution, cancel refused")
	})
}

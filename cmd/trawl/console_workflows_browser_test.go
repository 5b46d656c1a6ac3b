package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/trawlhq/trawl/internal/store"
)

// The console's Workflows section (issue 39) in a real browser, on each
// engine: a workflow created from an example, its editor and graph, a
// textarea that is not JSON refused at it without the API, an input the API
// refuses shown at that action's inputs with the API's own message, the
// fix saved as the draft, a test run with a mocked step landing on its
// execution, publish, enable, and the list showing it all.

func TestConsoleWorkflowsInBrowser(t *testing.T) {
	// Parallel: each walk has its own browser and server; together they
	// wait on pages and ticks, not on each other.
	t.Parallel()
	tb := newTab(t)
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		b, ts, cancel := consoleWalk(t, tb, engine, nil)
		defer cancel()
		c := ts.Client

		// No workflow yet.
		b.open("/workflows", "#workflows")
		b.wantCount("#no-workflows", 1)
		if h := b.text("h1"); h != "Workflows" {
			t.Errorf("the list's h1 = %q", h)
		}
		b.checkSignedIn("Workflows, empty")

		// The examples, as the API lists them, each with its form; then blank.
		examples := getEnvelope[struct {
			Items []struct{ Name, Description string }
		}](t, c, "/v1/workflows/examples")
		b.navigateBy("new workflow", chromedp.Click(chromedp.CSS("#new-workflow")), "#examples")
		b.wantCount("#examples li.example form[action='/workflows/new']", len(examples.Items)+1)
		key := -1
		for i, ex := range examples.Items {
			if got := b.text("#example-" + strconv.Itoa(i) + " .description"); got != ex.Description {
				t.Errorf("example %d's description = %q, want the API's %q", i, got, ex.Description)
			}
			if ex.Name == "Inbound leads" {
				key = i
			}
		}
		if key < 0 {
			t.Fatalf("the API lists no example named Inbound leads: %+v", examples.Items)
		}
		b.wantCount("#example-blank form", 1)
		b.checkSignedIn("New workflow")

		// Created under another name: the editor, with the example's steps.
		k := strconv.Itoa(key)
		b.fill("#name-"+k, "Lead router")
		// A webhook workflow: its signing secret on the answer page, once.
		b.submit("create from the example", "#create-"+k, "#webhook-secret")
		if v := b.eval(`document.getElementById('webhook-secret').value`); !strings.HasPrefix(v, "whsec_") {
			t.Errorf("the page after creating a webhook workflow shows secret %q; want its whsec_ signing secret", v)
		}
		b.checkSignedIn("Webhook signing secret")
		b.submit("on to the editor", "#to-next", "#definition")
		m := regexp.MustCompile(`^/workflows/([^/]+)$`).FindStringSubmatch(b.path())
		if m == nil {
			t.Fatalf("after creating, the browser is at %s, want /workflows/{id}", b.path())
		}
		id := m[1]
		if h := b.text("h1"); h != "Lead router" {
			t.Errorf("the editor's h1 = %q, want the name given", h)
		}
		if strings.Contains(b.eval(`document.documentElement.outerHTML`), "whsec_") {
			t.Error("the editor shows the webhook signing secret again")
		}
		b.wantCount("#graph svg", 1)
		// graph.go draws each node as g.node[data-step]; its stand-in draws none.
		drawn := b.count("#graph svg g.node") > 0
		if drawn {
			var steps []string
			b.evalInto(`[...document.querySelectorAll('#graph svg g.node')].map(g => g.getAttribute('data-step'))`, &steps)
			if strings.Join(steps, ",") != "trigger,big,hot,cold" && len(steps) != 4 {
				t.Errorf("the graph's nodes = %v, want the trigger and big, hot, cold", steps)
			}
		}
		var ids []string
		b.evalInto(`[...document.querySelectorAll('fieldset.action:not(.new) input[id$="-id"]')].map(e => e.value)`, &ids)
		if strings.Join(ids, ",") != "big,hot,cold" {
			t.Errorf("the editor's actions = %v, want the example's big,hot,cold", ids)
		}
		if v := b.eval(`document.getElementById('action-0-inputs').value`); !strings.Contains(v, "(trigger.amount ?? 0) >= 100") {
			t.Errorf("action 0's inputs textarea = %q, want the example's condition as written", v)
		}
		if v := b.eval(`document.getElementById('trigger-kind').value`); v != "workflows/webhook" {
			t.Errorf("the trigger kind select = %q", v)
		}
		b.checkSignedIn("workflow editor")

		// Not JSON: refused at that textarea; the API is not asked.
		b.fill("#action-1-inputs", `{"values": `)
		b.submit("save inputs that are not JSON", "#save-draft", "#action-1-inputs-error")
		if msg := b.text("#action-1-inputs-error"); !strings.Contains(msg, "not valid JSON") {
			t.Errorf("#action-1-inputs-error = %q, want a JSON message", msg)
		}
		if v := b.eval(`document.getElementById('action-1-inputs').value`); v != `{"values": ` {
			t.Errorf("the textarea after the refusal holds %q, want what was typed", v)
		}
		mustDo(t, c, http.MethodGet, "/v1/workflows/"+id+"/draft", nil, 404)
		b.checkSignedIn("workflow editor, not JSON")

		// An input the kind does not take: the API's message at the textarea.
		broken := `{"values": {"tier": "hot"}, "colour": "red"}`
		b.fill("#action-1-inputs", broken)
		b.submit("save a broken draft", "#save-draft", "#action-1-inputs-error")
		var def map[string]any
		live := getEnvelope[struct {
			Workflow map[string]any `json:"workflow"`
		}](t, c, "/v1/workflows/"+id)
		def = live.Workflow
		var brokenInputs map[string]any
		if err := json.Unmarshal([]byte(broken), &brokenInputs); err != nil {
			t.Fatal(err)
		}
		def["actions"].([]any)[1].(map[string]any)["inputs"] = brokenInputs
		apiErr := mustDo(t, c, http.MethodPut, "/v1/workflows/"+id+"/draft", map[string]any{"name": "Lead router", "workflow": def}, 400).Err()
		want := ""
		for _, f := range apiErr.Details {
			if f.Field == "body.workflow.actions[1].inputs.colour" {
				want = f.Message
			}
		}
		if want == "" {
			t.Fatalf("the API's refusal names no body.workflow.actions[1].inputs.colour: %+v", apiErr)
		}
		if msg := b.text("#action-1-inputs-error"); !strings.Contains(msg, want) {
			t.Errorf("#action-1-inputs-error = %q, want the API's %q", msg, want)
		}
		if v := b.eval(`document.getElementById('action-1-inputs').getAttribute('aria-invalid') + ' ' + document.getElementById('action-1-inputs').getAttribute('aria-describedby')`); v != "true action-1-inputs-error" {
			t.Errorf("#action-1-inputs aria-invalid and aria-describedby = %q", v)
		}
		if b.count("#problem") == 0 {
			t.Error("no #problem box with the API's sentence")
		}
		b.wantCount("#graph svg", 1)
		if drawn {
			var marked []string
			b.evalInto(`[...document.querySelectorAll('#graph svg g.node.error')].map(g => g.getAttribute('data-step'))`, &marked)
			if strings.Join(marked, ",") != "hot" {
				t.Errorf("the graph marks %v as having errors, want hot", marked)
			}
		}
		b.checkSignedIn("workflow editor, refused")
		b.screenshot("workflow-editor") // the API's message at its input, the step marked in the graph

		// Fixed and saved: the draft holds it.
		b.fill("#action-1-inputs", `{"values": {"lead": "{{ trigger.email }}", "tier": "warm"}}`)
		b.submit("save the draft", "#save-draft", "#flash")
		if f := b.text("#flash"); !strings.Contains(strings.ToLower(f), "draft saved") {
			t.Errorf("the notice after saving = %q", f)
		}
		draft := getEnvelope[struct {
			Workflow struct {
				Actions []struct {
					ID     string         `json:"id"`
					Inputs map[string]any `json:"inputs"`
				} `json:"actions"`
			} `json:"workflow"`
		}](t, c, "/v1/workflows/"+id+"/draft")
		if a := draft.Workflow.Actions; len(a) != 3 || a[1].ID != "hot" || a[1].Inputs["values"].(map[string]any)["tier"] != "warm" {
			t.Errorf("the saved draft's actions = %+v, want hot's tier warm", a)
		}
		b.wantCount("#discard-draft", 1)
		b.checkSignedIn("workflow editor, draft saved")

		// A test run with a mocked step: its execution's page.
		b.fill("#test-overrides", `{"text": "amount 250"}`)
		b.fill("#test-mocks", `{"hot": {"lead": "ann@example.com", "tier": "hot"}}`)
		b.submit("start a test run", "#test-run", "h1")
		m = regexp.MustCompile(`^/workflows/` + regexp.QuoteMeta(id) + `/executions/([^/]+)$`).FindStringSubmatch(b.path())
		if m == nil {
			t.Fatalf("after the test run, the browser is at %s, want /workflows/%s/executions/{runId}", b.path(), id)
		}
		mustDo(t, c, http.MethodGet, "/v1/workflows/"+id+"/executions/"+m[1], nil, 200)

		// Publish, then enable.
		b.open("/workflows/"+id, "#publish")
		b.fill("#change-summary", "warm leads")
		b.submit("publish", "#publish", "#enable")
		if s := b.text("#status"); s != "PUBLISHED" {
			t.Errorf("#status after publishing = %q", s)
		}
		b.submit("enable", "#enable", "#disable")
		got := getEnvelope[struct {
			Status   string `json:"status"`
			Enabled  bool   `json:"enabled"`
			Version  int64  `json:"version"`
			Workflow struct {
				Actions []struct {
					Inputs map[string]any `json:"inputs"`
				} `json:"actions"`
			} `json:"workflow"`
		}](t, c, "/v1/workflows/"+id)
		if got.Status != "PUBLISHED" || !got.Enabled || got.Version != 2 || len(got.Workflow.Actions) != 3 ||
			got.Workflow.Actions[1].Inputs["values"].(map[string]any)["tier"] != "warm" {
			t.Errorf("the API's workflow after publish and enable: %+v", got)
		}
		if s := b.text("#enabled-state"); s != "enabled" {
			t.Errorf("#enabled-state = %q", s)
		}
		if href := b.eval(`(document.querySelector("#workflow-executions tbody a") || {getAttribute: () => ""}).getAttribute("href")`); href != "/workflows/"+id+"/executions/"+m[1] {
			t.Errorf("the editor's latest execution links to %q, want the test run's", href)
		}
		if n := b.count("#versions tbody tr"); n != 2 {
			t.Errorf("#versions lists %d versions, want 2", n)
		}
		b.checkSignedIn("workflow editor, published and enabled")

		// The list: the workflow with its trigger, state and last execution.
		b.navigateBy("the list", chromedp.Click(chromedp.CSS(`a[href="/workflows"]`)), "#workflows")
		var rows []struct{ Name, Trigger, Enabled, Version, Draft, Last, LastHref string }
		b.evalInto(`[...document.querySelectorAll('#workflows tbody tr')].map(tr => ({
			Name: tr.querySelector('td.name').innerText.trim(), Trigger: tr.querySelector('td.trigger').innerText.trim(),
			Enabled: tr.querySelector('td.enabled').innerText.trim(), Version: tr.querySelector('td.version').innerText.trim(),
			Draft: tr.querySelector('td.draft').innerText.trim(), Last: tr.querySelector('td.last').innerText.trim(),
			LastHref: (tr.querySelector('td.last a') || {getAttribute: () => ''}).getAttribute('href') || ''}))`, &rows)
		if len(rows) != 1 || rows[0].Name != "Lead router" || rows[0].Trigger != "workflows/webhook" || rows[0].Enabled != "yes" ||
			rows[0].Version != "version 2" || rows[0].Draft != "yes" || rows[0].LastHref != "/workflows/"+id+"/executions/"+m[1] {
			t.Errorf("#workflows rows = %+v", rows)
		}
		b.checkSignedIn("Workflows")
		b.screenshot("workflows")
	})
}

package main

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// The Workflows section over plain HTTP, as a browser without JavaScript
// uses it: a key that lacks what a workflow's step needs sees so and gets
// the API's refusal at that step; an example the API refuses shows why at
// its form; actions are added and removed with the form alone; delete
// needs its box ticked.

// wfFieldError is the text of the message shown at the input with id.
func wfFieldError(page, id string) string {
	m := regexp.MustCompile(`<p class="field-error" id="` + regexp.QuoteMeta(id) + `-error">([^<]*)</p>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

func TestConsoleWorkflowsEndToEnd(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		var me struct {
			UserID string `json:"user_id"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/account", nil, 200).Data(&me); err != nil {
			t.Fatal(err)
		}
		out, err := ts.cli(t, "keys", "create", "--account", me.UserID, "--permissions", "searches:read", "--json")
		if err != nil {
			t.Fatalf("keys create: %v\n%s", err, out)
		}
		narrowKey := regexp.MustCompile(`"key":\s*"([^"]+)"`).FindStringSubmatch(out)
		if narrowKey == nil {
			t.Fatalf("keys create printed %q", out)
		}
		narrow := c.WithKey(narrowKey[1])

		// A workflow whose step enriches profiles, made by the key with '*'.
		enrich := map[string]any{"trigger": map[string]any{"kind": "workflows/webhook"},
			"actions": []any{map[string]any{"id": "who", "kind": "person_enrichment", "inputs": map[string]any{"profile_url": "{{ trigger.url }}"}}},
			"edges":   []any{map[string]any{"from": "$source", "to": "who"}}}
		var w struct{ ID string }
		if err := mustDo(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "Enricher", "workflow": enrich}, 201).Data(&w); err != nil {
			t.Fatal(err)
		}

		// The narrow key sees what it lacks, and its save is refused at the step.
		b := newConsoleBrowser(t, ts.URL)
		if resp, _ := b.signIn(narrowKey[1]); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in = %d", resp.StatusCode)
		}
		resp, page := b.do("GET", "/workflows/"+w.ID, nil)
		if resp.StatusCode != 200 || !strings.Contains(page, `id="lacking"`) || !strings.Contains(page, "The API key lacks the permission enrich:profile:read.") {
			t.Fatalf("the editor for a key without enrich:profile:read = %d, no #lacking naming it:\n%s", resp.StatusCode, page)
		}
		form := url.Values{"csrf": {b.csrf(page)}, "name": {"Enricher"}, "trigger-kind": {"workflows/webhook"}, "trigger-inputs": {"{}"},
			"action-count": {"1"}, "action-0-id": {"who"}, "action-0-kind": {"person_enrichment"}, "action-0-inputs": {`{"profile_url": "{{ trigger.url }}"}`},
			"edge-count": {"1"}, "edge-0-from": {"$source"}, "edge-0-to": {"who"}}
		resp, page = b.do("POST", "/workflows/"+w.ID+"/draft", form)
		apiErr := mustDo(t, narrow, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": enrich}, 403).Err()
		if len(apiErr.Details) == 0 {
			t.Fatalf("the API's 403 names no field: %+v", apiErr)
		}
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, html.EscapeString(apiErr.Message)) {
			t.Errorf("saving with the narrow key = %d; want 403 with the API's %q", resp.StatusCode, apiErr.Message)
		}
		atStep := wfFieldError(page, "action-0-id") + wfFieldError(page, "action-0-kind") + wfFieldError(page, "action-0-inputs")
		if !strings.Contains(atStep, apiErr.Details[0].Message) {
			t.Errorf("the message at action 0 = %q, want the API's %q (%s)", atStep, apiErr.Details[0].Message, apiErr.Details[0].Field)
		}

		// The key with '*' from here on.
		b = newConsoleBrowser(t, ts.URL)
		b.signIn(ts.Key)

		// An example with a placeholder the API refuses: why, at its form.
		examples := getEnvelope[struct{ Items []struct{ Name string } }](t, c, "/v1/workflows/examples")
		key := -1
		for i, ex := range examples.Items {
			if ex.Name == "Engaged VPs" {
				key = i
			}
		}
		if key < 0 {
			t.Fatal("no example Engaged VPs")
		}
		var topic struct{ ID string }
		if err := mustDo(t, c, http.MethodPost, "/v1/topics", map[string]any{"name": "Revops", "keywords": []string{"revops"}}, 201).Data(&topic); err != nil {
			t.Fatal(err)
		}
		_, page = b.do("GET", "/workflows/new", nil)
		k := strconv.Itoa(key)
		if !strings.Contains(page, `id="topic-`+k+`"`) || !strings.Contains(page, `<option value="`+topic.ID+`">Revops</option>`) {
			t.Errorf("the example with TOPIC_ID has no #topic-%s input offering the account's topic:\n%s", k, page)
		}
		resp, page = b.do("POST", "/workflows/new", url.Values{"csrf": {b.csrf(page)}, "example": {k}, "name": {"VPs"}, "topic": {"01930000-0000-7000-8000-000000000000"}})
		if msg := wfFieldError(page, "topic-"+k); resp.StatusCode != http.StatusBadRequest || msg != "names no topic of this account" {
			t.Errorf("creating the example with an unknown topic = %d, message at #topic-%s %q", resp.StatusCode, k, msg)
		}
		if n := getEnvelope[struct{ Total int }](t, c, "/v1/workflows").Total; n != 1 {
			t.Errorf("%d workflows after the refused create, want 1", n)
		}
		resp, _ = b.do("POST", "/workflows/new", url.Values{"csrf": {b.csrf(page)}, "example": {k}, "name": {"VPs"}, "topic": {topic.ID}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("creating the example with the account's topic = %d", resp.StatusCode)
		}
		vps := getEnvelope[struct {
			Workflow struct {
				Trigger struct {
					Inputs map[string]any `json:"inputs"`
				} `json:"trigger"`
			} `json:"workflow"`
		}](t, c, "/v1"+resp.Header.Get("Location"))
		if got := vps.Workflow.Trigger.Inputs["topic_id"]; got != topic.ID {
			t.Errorf("the example created with the topic has topic_id %v, want %s", got, topic.ID)
		}
		// A name the API refuses: at that example's name input.
		resp, page = b.do("POST", "/workflows/new", url.Values{"csrf": {b.csrf(page)}, "example": {"blank"}, "name": {strings.Repeat("n", 256)}})
		if resp.StatusCode != http.StatusBadRequest || wfFieldError(page, "name-blank") == "" {
			t.Errorf("a blank workflow with a 256-character name = %d, no message at #name-blank", resp.StatusCode)
		}

		// Without JavaScript: remove the step, add another, and an edge to it.
		_, page = b.do("GET", "/workflows/"+w.ID, nil)
		form = url.Values{"csrf": {b.csrf(page)}, "name": {"Enricher"}, "trigger-kind": {"workflows/webhook"}, "trigger-inputs": {"{}"},
			"action-count": {"2"}, "action-0-id": {"who"}, "action-0-kind": {"person_enrichment"}, "action-0-inputs": {`{"profile_url": "{{ trigger.url }}"}`}, "action-0-remove": {"1"},
			"action-1-id": {"note"}, "action-1-kind": {"builtin:set"}, "action-1-inputs": {`{"values": {"url": "{{ trigger.url }}"}}`}, "action-1-timeout": {"5000"},
			"edge-count": {"3"}, "edge-0-from": {"$source"}, "edge-0-to": {"who"}, "edge-0-remove": {"1"}, "edge-1-from": {"$source"}, "edge-1-to": {"note"}}
		resp, page = b.do("POST", "/workflows/"+w.ID+"/draft", form)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/workflows/"+w.ID {
			t.Fatalf("saving the edited draft = %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), page)
		}
		draft := getEnvelope[struct {
			Workflow struct {
				Actions []struct {
					ID        string `json:"id"`
					TimeoutMS int64  `json:"timeout_ms"`
				} `json:"actions"`
				Edges []struct{ From, To string } `json:"edges"`
			} `json:"workflow"`
		}](t, c, "/v1/workflows/"+w.ID+"/draft")
		if a, e := draft.Workflow.Actions, draft.Workflow.Edges; len(a) != 1 || a[0].ID != "note" || a[0].TimeoutMS != 5000 || len(e) != 1 || e[0].To != "note" {
			t.Errorf("the draft after removing and adding = %+v", draft.Workflow)
		}
		// A timeout the API refuses, at its input; the other rows as sent.
		form.Set("action-1-timeout", "5")
		resp, page = b.do("POST", "/workflows/"+w.ID+"/draft", form)
		if msg := wfFieldError(page, "action-0-timeout"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, "must be 100-600000") {
			t.Errorf("a 5 ms timeout = %d, message at #action-0-timeout %q", resp.StatusCode, msg)
		}

		// Delete: refused until the box is ticked, then gone.
		_, page = b.do("GET", "/workflows/"+w.ID, nil)
		resp, page = b.do("POST", "/workflows/"+w.ID+"/delete", url.Values{"csrf": {b.csrf(page)}})
		if resp.StatusCode != http.StatusBadRequest || wfFieldError(page, "delete-confirm") == "" {
			t.Errorf("delete without the box = %d, no #delete-confirm-error", resp.StatusCode)
		}
		mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID, nil, 200)
		resp, _ = b.do("POST", "/workflows/"+w.ID+"/delete", url.Values{"csrf": {b.csrf(page)}, "delete-confirm": {"1"}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/workflows" {
			t.Errorf("delete = %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID, nil, 404)
		if resp, page = b.do("GET", "/workflows/"+w.ID, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("the deleted workflow's editor = %d\n%s", resp.StatusCode, page)
		}
	})
}

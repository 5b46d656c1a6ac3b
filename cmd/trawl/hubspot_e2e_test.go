package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// hubSpotFlow upserts the trigger's contact (its text is the email, its
// source the first name), links its company, and adds
// a note and a task: the four HubSpot actions in a row.
func hubSpotFlow() map[string]any {
	step := func(id, kind string, inputs map[string]any) map[string]any {
		return map[string]any{"id": id, "kind": kind, "inputs": inputs}
	}
	return map[string]any{
		"actions": []any{
			step("upsert", "hubspot_upsert_contact", map[string]any{"email": "{{ trigger.text }}", "firstname": "{{ trigger.source }}",
				"jobtitle": "VP Sales", "properties": map[string]any{"lifecyclestage": "lead"}}),
			step("company", "hubspot_associate_company", map[string]any{"contact_id": "{{ steps.upsert.output.id }}",
				"company_domain": "https://www.acme.com/", "company_name": "Acme"}),
			step("note", "hubspot_create_note", map[string]any{"contact_id": "{{ steps.upsert.output.id }}", "body": "Found by Trawl"}),
			step("task", "hubspot_create_task", map[string]any{"contact_id": "{{ steps.upsert.output.id }}", "subject": "Call {{ trigger.source }}",
				"priority": "HIGH", "due": "2026-12-01T09:00:00Z"}),
		},
		"edges": []any{
			map[string]any{"from": "$source", "to": "upsert"}, map[string]any{"from": "upsert", "to": "company"},
			map[string]any{"from": "company", "to": "note"}, map[string]any{"from": "note", "to": "task"},
		},
	}
}

// TestHubSpotActionsE2E runs the HubSpot actions through the engine
// against the sandbox's HubSpot: not connected, a run and its repeat (one
// contact, updated; one company, note and task), HubSpot's validation
// message, a rate-limited record retried, a rejected token; and the
// crm-fields lookups over HTTP.
func TestHubSpotActionsE2E(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_LOG_LEVEL": "debug"}))
		c := ts.Client
		const token = "pat-na1-e2e-hubspot"
		w := createWorkflow(t, c, map[string]any{"name": "hubspot", "workflow": hubSpotFlow()})
		run := func(email, name string) executionView {
			t.Helper()
			return waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{
				"text": email, "source": name}}), ended)
		}
		failedWith := func(x executionView, code, message string) {
			t.Helper()
			s := x.Steps[0]
			if x.Status != "failed" || s.Status != "failed" || s.Error == nil || s.Error.Code != code || !strings.Contains(s.Error.Message, message) {
				t.Fatalf("execution %s, first step %+v; want %s %q", x.Status, s, code, message)
			}
		}

		// Not connected.
		failedWith(run("jane@acme.com", "Jane"), "NOT_CONNECTED", "POST /v1/integrations/hubspot")
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/hubspot/crm-fields", nil), 404, "NOT_FOUND")

		mustDo(t, c, http.MethodPost, "/v1/integrations/hubspot", map[string]any{"credentials": map[string]string{"access_token": token}}, 201)
		outputs := func(x executionView) []map[string]any {
			t.Helper()
			if x.Status != "completed" || len(x.Steps) != 4 {
				t.Fatalf("execution %s: %s %+v", x.Status, x.keys(), x.Steps)
			}
			var out []map[string]any
			for _, s := range x.Steps {
				o, _ := s.Output.(map[string]any)
				out = append(out, o)
			}
			return out
		}
		first := outputs(run("jane@acme.com", "Jane"))
		contact, _ := first[0]["id"].(string)
		if contact == "" || first[0]["created"] != true || first[1]["company_created"] != true || first[1]["associated"] != true ||
			first[2]["created"] != true || first[3]["created"] != true {
			t.Fatalf("first run: %v", first)
		}
		second := outputs(run("Jane@Acme.com", "Janet"))
		if second[0]["id"] != contact || second[0]["created"] != false || second[1]["company_id"] != first[1]["company_id"] ||
			second[1]["company_created"] != false || second[2]["id"] != first[2]["id"] || second[2]["created"] != false || second[3]["created"] != true {
			t.Fatalf("second run: %v (first %v)", second, first)
		}

		// HubSpot's own state: one contact, updated, with one company, one
		// note and two tasks (the second run's subject differs).
		hs := func(method, path, body string) map[string]any {
			t.Helper()
			req, _ := http.NewRequestWithContext(t.Context(), method, ts.sandboxURL(t)+"/hubspot"+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var out map[string]any
			if resp.StatusCode != 200 || json.Unmarshal(raw, &out) != nil {
				t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
			}
			return out
		}
		got := hs("GET", "/crm/v3/objects/contacts/jane@acme.com?idProperty=email&properties=firstname,jobtitle,lifecyclestage", "")
		props, _ := got["properties"].(map[string]any)
		if got["id"] != contact || props["firstname"] != "Janet" || props["jobtitle"] != "VP Sales" || props["lifecyclestage"] != "lead" {
			t.Fatalf("the contact in HubSpot: %v", got)
		}
		if n := hs("POST", "/crm/v3/objects/contacts/search", `{"filterGroups":[{"filters":[{"propertyName":"email","operator":"EQ","value":"jane@acme.com"}]}]}`)["total"]; n != float64(1) {
			t.Fatalf("%v contacts of that email", n)
		}
		for typ, want := range map[string]int{"companies": 1, "notes": 1, "tasks": 2} {
			if rs, _ := hs("GET", "/crm/v4/objects/contacts/"+contact+"/associations/"+typ, "")["results"].([]any); len(rs) != want {
				t.Fatalf("the contact has %d %s, want %d", len(rs), typ, want)
			}
		}
		upserts := 0
		for _, call := range ts.integrationCalls("hubspot") {
			if call.Path == "/crm/v3/objects/contacts/batch/upsert" {
				upserts++
			}
		}
		if upserts != 2 {
			t.Fatalf("%d upserts in the request log, want 2", upserts)
		}

		// HubSpot's validation message; a record it rate-limits once.
		failedWith(run("not-an-email", "Bad"), "UPSTREAM_ERROR", "Email address not-an-email is invalid")
		if flaky := outputs(run("flaky-lead@acme.com", "Flo")); flaky[0]["created"] != true {
			t.Fatalf("flaky run: %v", flaky)
		}
		tries := 0
		for _, call := range ts.integrationCalls("hubspot") {
			if strings.Contains(call.Body, "flaky-lead@acme.com") {
				tries++
			}
		}
		if tries != 2 {
			t.Fatalf("the flaky contact was sent %d times, want 2 (429, then success)", tries)
		}

		// Lookups.
		var fields map[string][]map[string]any
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/hubspot/crm-fields", nil, 200).Data(&fields); err != nil ||
			len(fields["contacts"]) == 0 || len(fields["companies"]) == 0 || fields["contacts"][0]["slug"] == nil {
			t.Fatalf("crm-fields: %v, %v", fields, err)
		}
		var options []map[string]string
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/hubspot/crm-field-options?object_type=contacts&field_slug=lifecyclestage", nil, 200).Data(&options); err != nil ||
			len(options) < 3 || options[0]["value"] != "subscriber" || options[0]["label"] != "Subscriber" {
			t.Fatalf("crm-field-options: %v, %v", options, err)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/hubspot/crm-field-options?object_type=contacts&field_slug=firstname", nil), 400, "VALIDATION_ERROR", "query.field_slug")
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/hubspot/crm-field-options?object_type=companies&field_slug=nope", nil), 404, "NOT_FOUND")

		// A token HubSpot rejects.
		mustDo(t, c, http.MethodPost, "/v1/integrations/hubspot", map[string]any{"credentials": map[string]string{"access_token": "invalid-revoked"}}, 200)
		failedWith(run("jane@acme.com", "Jane"), "CONNECTION_REJECTED", "401")
	})
}

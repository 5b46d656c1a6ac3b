package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// runSteps test-runs a workflow of these actions (each after the
// previous one) with the trigger's fields, and returns the execution.
func runSteps(t *testing.T, ts *testServer, c *client.Client, trigger map[string]any, actions ...map[string]any) executionView {
	t.Helper()
	edges := []any{}
	from := "$source"
	list := make([]any, len(actions))
	for i, a := range actions {
		list[i] = a
		edges = append(edges, map[string]any{"from": from, "to": a["id"]})
		from = a["id"].(string)
	}
	w := createWorkflow(t, c, map[string]any{"name": "crm", "workflow": map[string]any{"actions": list, "edges": edges}})
	return waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": trigger}), ended)
}

// stepOutputAt is a completed step's output, or the test fails.
func stepOutputAt(t *testing.T, x executionView, i int) map[string]any {
	t.Helper()
	s := x.Steps[i]
	out, _ := s.Output.(map[string]any)
	if s.Status != "completed" || out == nil {
		t.Fatalf("step %s: %s %+v %v (execution %s)", s.StepID, s.Status, s.Error, s.Output, x.Status)
	}
	return out
}

// stepFailure is a failed step's error code and message, or the test fails.
func stepFailure(t *testing.T, x executionView, i int) (string, string) {
	t.Helper()
	s := x.Steps[i]
	if s.Status != "failed" || s.Error == nil {
		t.Fatalf("step %s: %s %+v %v, want failed", s.StepID, s.Status, s.Error, s.Output)
	}
	return s.Error.Code, s.Error.Message
}

func countCalls(calls []sandboxCall, method, pathPrefix string) int {
	n := 0
	for _, c := range calls {
		if c.Method == method && strings.HasPrefix(c.Path, pathPrefix) {
			n++
		}
	}
	return n
}

// TestSalesforceActions: an account connects Salesforce with an expired
// access token and a refresh token; the lead upsert renews the token once
// (stored: the next run does not renew it), creates the lead, then updates
// it; a task is made on it, keyed by the step's idempotency key; the
// lookups answer the org's fields; and Salesforce's refusals are the
// steps' errors (not connected, rejected token or refresh token, missing
// field, invalid email, API limit), a 503 being retried.
func TestSalesforceActions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, crmTestEnv))
		c := ts.Client
		const profile = "https://www.linkedin.com/in/ada-lovelace"
		lead := func(extra map[string]any) map[string]any {
			in := map[string]any{"external_id": "{{ trigger.author_url }}", "LastName": "Lovelace", "FirstName": "Ada",
				"Company": "Analytical Engines", "Email": "ada@example.com", "Title": "{{ trigger.text }}", "LeadSource": "Web",
				"fields": map[string]any{"Industry": "Technology"}}
			for k, v := range extra {
				in[k] = v
			}
			return map[string]any{"id": "lead", "kind": "salesforce_upsert_lead", "inputs": in}
		}
		trigger := map[string]any{"author_url": profile, "text": "Countess"}

		// Not connected.
		if code, _ := stepFailure(t, runSteps(t, ts, c, trigger, lead(nil)), 0); code != "NOT_CONNECTED" {
			t.Fatalf("not connected: %s", code)
		}

		creds := map[string]string{"instance_url": "https://acme.my.salesforce.com", "access_token": "expired-session",
			"refresh_token": "rt-e2e-org", "client_id": "3MVG9-consumer-key", "client_secret": "consumer-secret"}
		var v integrationView
		if err := mustDo(t, c, http.MethodPost, "/v1/integrations/salesforce", map[string]any{"credentials": creds}, 201).Data(&v); err != nil ||
			v.Source == nil || *v.Source != "oauth" {
			t.Fatalf("connect = %+v, %v", v, err)
		}
		wantError(t, do(t, c, http.MethodPost, "/v1/integrations/salesforce", map[string]any{"credentials": map[string]string{
			"instance_url": "https://evil.example.com", "access_token": "x"}}), 400, "VALIDATION_ERROR", "body.credentials.instance_url")

		// First run: 401, one refresh, the lead created.
		tokenCalls := func() int {
			return countCalls(ts.integrationCalls("salesforce"), http.MethodPost, "/services/oauth2/token")
		}
		out := stepOutputAt(t, runSteps(t, ts, c, trigger, lead(nil)), 0)
		id, _ := out["id"].(string)
		if out["created"] != true || len(id) != 18 || !strings.HasPrefix(id, "00Q") || tokenCalls() != 1 {
			t.Fatalf("first upsert = %v, %d token calls", out, tokenCalls())
		}
		// Second run: the renewed token was stored, no refresh; the same lead updated.
		out = stepOutputAt(t, runSteps(t, ts, c, map[string]any{"author_url": profile, "text": "Mathematician"}, lead(nil)), 0)
		if out["created"] != false || out["id"] != id || tokenCalls() != 1 {
			t.Fatalf("second upsert = %v, %d token calls", out, tokenCalls())
		}
		calls := ts.integrationCalls("salesforce")
		last := calls[len(calls)-1]
		if last.Method != http.MethodPatch || last.Path != "/services/data/v60.0/sobjects/Lead/LinkedIn_URL__c/"+profile ||
			!strings.Contains(last.Body, `"Title":"Mathematician"`) || strings.Contains(last.Body, "LinkedIn_URL__c") {
			t.Fatalf("upsert request = %+v", last)
		}

		// A task on the lead, keyed by the idempotency key; then one without a key.
		task := map[string]any{"id": "task", "kind": "salesforce_create_task", "inputs": map[string]any{
			"WhoId": "{{ steps.lead.output.id }}", "Subject": "flaky-call Ada", "Priority": "High", "ActivityDate": "2026-12-01",
			"idempotency_field": "Trawl_Key__c"}}
		x := runSteps(t, ts, c, trigger, lead(nil), task)
		taskOut := stepOutputAt(t, x, 1)
		taskID, _ := taskOut["id"].(string)
		if !strings.HasPrefix(taskID, "00T") || len(taskID) != 18 || taskOut["created"] != true {
			t.Fatalf("task = %v", taskOut)
		}
		var keyed []string
		for _, call := range ts.integrationCalls("salesforce") {
			if strings.HasPrefix(call.Path, "/services/data/v60.0/sobjects/Task/Trawl_Key__c/") {
				keyed = append(keyed, call.Path)
			}
		}
		if len(keyed) != 2 || keyed[0] != keyed[1] { // the 503, then the same key again
			t.Fatalf("task requests %v", keyed)
		}
		plain := map[string]any{"id": "task", "kind": "salesforce_create_task", "inputs": map[string]any{"WhoId": id, "Subject": "Follow up"}}
		if out := stepOutputAt(t, runSteps(t, ts, c, trigger, plain), 0); out["created"] != true || out["id"] == taskID {
			t.Fatalf("plain task = %v", out)
		}

		// The org's state, read through Salesforce's API with a token of the same org.
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		sf := ts.sandboxURL(t) + "/salesforce"
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt-e2e-org"}}
		resp, err := http.PostForm(sf+"/services/oauth2/token", form)
		if err != nil {
			t.Fatal(err)
		}
		_ = json.NewDecoder(resp.Body).Decode(&tok)
		resp.Body.Close()
		var rec map[string]any
		if st := sandboxDo(t, http.MethodGet, sf+"/services/data/v60.0/sobjects/Lead/"+id, bearer(tok.AccessToken), nil, &rec); st != 200 ||
			rec["Title"] != "Countess" || rec["LinkedIn_URL__c"] != profile || rec["Industry"] != "Technology" || rec["Status"] != "Open - Not Contacted" {
			t.Fatalf("lead %d %v", st, rec)
		}
		if st := sandboxDo(t, http.MethodGet, sf+"/services/data/v60.0/sobjects/Task/"+taskID, bearer(tok.AccessToken), nil, &rec); st != 200 ||
			rec["WhoId"] != id || rec["Priority"] != "High" || rec["Status"] != "Not Started" {
			t.Fatalf("task %d %v", st, rec)
		}

		// Lookups.
		var fields struct {
			Contacts  []map[string]any `json:"contacts"`
			Companies []map[string]any `json:"companies"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/salesforce/crm-fields", nil, 200).Data(&fields); err != nil || len(fields.Contacts) < 5 || len(fields.Companies) < 3 {
			t.Fatalf("crm-fields = %+v, %v", fields, err)
		}
		var opts []map[string]any
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/salesforce/crm-field-options?object_type=contacts&field_slug=LeadSource", nil, 200).Data(&opts); err != nil ||
			len(opts) == 0 || opts[0]["value"] != "Web" {
			t.Fatalf("crm-field-options = %v, %v", opts, err)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/salesforce/crm-field-options?object_type=contacts&field_slug=Email", nil), 400, "VALIDATION_ERROR", "query.field_slug")

		// Salesforce's refusals.
		for _, tc := range []struct {
			name, code, says string
			inputs           map[string]any
		}{
			{"missing fields", "UPSTREAM_ERROR", "REQUIRED_FIELD_MISSING", map[string]any{"external_id": "https://www.linkedin.com/in/nobody", "LastName": "", "Company": ""}},
			{"bad email", "UPSTREAM_ERROR", "INVALID_EMAIL_ADDRESS", map[string]any{"Email": "not-an-email"}},
			{"no such key field", "NOT_FOUND", "external ID field", map[string]any{"external_id_field": "Nope__c"}},
		} {
			code, msg := stepFailure(t, runSteps(t, ts, c, trigger, lead(tc.inputs)), 0)
			if code != tc.code || !strings.Contains(msg, tc.says) {
				t.Fatalf("%s: %s %s", tc.name, code, msg)
			}
		}
		// A 503 is retried: the flaky lead is made on the second request.
		before := countCalls(ts.integrationCalls("salesforce"), http.MethodPatch, "/services/data/v60.0/sobjects/Lead/LinkedIn_URL__c/flaky-")
		if out := stepOutputAt(t, runSteps(t, ts, c, map[string]any{"author_url": "flaky-lead", "text": "x"}, lead(nil)), 0); out["created"] != true ||
			countCalls(ts.integrationCalls("salesforce"), http.MethodPatch, "/services/data/v60.0/sobjects/Lead/LinkedIn_URL__c/flaky-") != before+2 {
			t.Fatalf("flaky lead = %v", out)
		}
		for _, tc := range []struct {
			name, code, says string
			creds            map[string]string
		}{
			{"rejected token", "CONNECTION_REJECTED", "INVALID_SESSION_ID", map[string]string{"access_token": "invalid-token", "refresh_token": ""}},
			{"rejected refresh", "CONNECTION_REJECTED", "invalid_grant", map[string]string{"access_token": "expired-again", "refresh_token": "invalid-refresh"}},
			{"API limit", "UPSTREAM_ERROR", "REQUEST_LIMIT_EXCEEDED", map[string]string{"access_token": "ratelimited-org", "refresh_token": ""}},
		} {
			cr := map[string]string{"instance_url": "https://acme.my.salesforce.com"}
			for k, v := range tc.creds {
				if v != "" {
					cr[k] = v
				}
			}
			mustDo(t, c, http.MethodPost, "/v1/integrations/salesforce", map[string]any{"credentials": cr}, 200)
			code, msg := stepFailure(t, runSteps(t, ts, c, trigger, lead(nil)), 0)
			if code != tc.code || !strings.Contains(msg, tc.says) {
				t.Fatalf("%s: %s %s", tc.name, code, msg)
			}
		}
	})
}

// crmTestEnv runs the CRM tests' server with the sandbox's request log and
// a key rate limit their many runs and polls stay under.
var crmTestEnv = map[string]string{"TRAWL_LOG_LEVEL": "debug", "TRAWL_RATE_LIMIT_STARTER": "10000",
	"TRAWL_RATE_LIMIT_ENTERPRISE": "10000", "TRAWL_RATE_LIMIT_CUSTOM": "10000"}

// bearer is the Authorization header of a token ("" none).
func bearer(token string) map[string]string {
	if token == "" {
		return nil
	}
	return map[string]string{"Authorization": "Bearer " + token}
}

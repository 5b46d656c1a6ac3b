package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// TestAttioActions: an account connects Attio; a person is asserted by
// email (created, then updated: one record) and added to a list (one
// entry, however often); the lookups answer the workspace's attributes;
// Attio's refusals are the steps' errors (not connected, rejected key,
// invalid email, unknown list, rate limit), a 429 being retried.
func TestAttioActions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, crmTestEnv))
		c := ts.Client
		const key = "attio-e2e-workspace-key"
		person := func(extra map[string]any) map[string]any {
			in := map[string]any{"email": "{{ trigger.text }}", "first_name": "Grace", "last_name": "Hopper",
				"job_title": "Rear Admiral", "linkedin": "{{ trigger.author_url }}", "values": map[string]any{"lead_source": "Trawl"}}
			for k, v := range extra {
				in[k] = v
			}
			return map[string]any{"id": "person", "kind": "attio_assert_person", "inputs": in}
		}
		add := map[string]any{"id": "add", "kind": "attio_add_to_list", "inputs": map[string]any{
			"list": "prospects", "record_id": "{{ steps.person.output.record_id }}", "entry_values": map[string]any{"stage": "New"}}}
		trigger := map[string]any{"text": "grace@example.com", "author_url": "https://www.linkedin.com/in/grace-hopper"}

		if code, _ := stepFailure(t, runSteps(t, ts, c, trigger, person(nil)), 0); code != "NOT_CONNECTED" {
			t.Fatalf("not connected: %s", code)
		}
		mustDo(t, c, http.MethodPost, "/v1/integrations/attio", map[string]any{"credentials": map[string]string{"api_key": key}}, 201)
		var h integrationHealthView
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/attio/health", nil, 200).Data(&h); err != nil || h.Status != "ok" {
			t.Fatalf("health = %+v, %v", h, err)
		}

		// Twice: one person, one entry.
		x := runSteps(t, ts, c, trigger, person(nil), add)
		p, e := stepOutputAt(t, x, 0), stepOutputAt(t, x, 1)
		rid, _ := p["record_id"].(string)
		eid, _ := e["entry_id"].(string)
		if len(rid) != 36 || !strings.HasPrefix(p["web_url"].(string), "https://app.attio.com/") || len(eid) != 36 {
			t.Fatalf("first run: %v %v", p, e)
		}
		x = runSteps(t, ts, c, trigger, person(map[string]any{"job_title": "Computer scientist"}), add)
		if p, e := stepOutputAt(t, x, 0), stepOutputAt(t, x, 1); p["record_id"] != rid || e["entry_id"] != eid {
			t.Fatalf("second run: %v %v", p, e)
		}
		calls := ts.integrationCalls("attio")
		var assert sandboxCall
		for _, call := range calls {
			if call.Method == http.MethodPut && call.Path == "/v2/objects/people/records" {
				assert = call
			}
		}
		if assert.Query != "matching_attribute=email_addresses" || !strings.Contains(assert.Body, `"email_addresses":["grace@example.com"]`) ||
			!strings.Contains(assert.Body, `"name":[{"first_name":"Grace","full_name":"Grace Hopper","last_name":"Hopper"}]`) {
			t.Fatalf("assert request = %+v", assert)
		}
		base := ts.sandboxURL(t) + "/attio"
		var rec struct {
			Data struct {
				Values map[string][]map[string]any `json:"values"`
			} `json:"data"`
		}
		if st := sandboxDo(t, http.MethodGet, base+"/v2/objects/people/records/"+rid, bearer(key), nil, &rec); st != 200 ||
			rec.Data.Values["job_title"][0]["value"] != "Computer scientist" || len(rec.Data.Values["email_addresses"]) != 1 ||
			rec.Data.Values["lead_source"][0]["option"].(map[string]any)["title"] != "Trawl" {
			t.Fatalf("record %d %+v", st, rec)
		}
		var entries struct {
			Data []map[string]any `json:"data"`
		}
		if st := sandboxDo(t, http.MethodPost, base+"/v2/lists/prospects/entries/query", bearer(key), map[string]any{}, &entries); st != 200 || len(entries.Data) != 1 {
			t.Fatalf("entries %d %+v", st, entries)
		}

		// Lookups.
		var fields struct {
			Contacts  []map[string]any `json:"contacts"`
			Companies []map[string]any `json:"companies"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/attio/crm-fields", nil, 200).Data(&fields); err != nil || len(fields.Contacts) < 5 || len(fields.Companies) < 5 {
			t.Fatalf("crm-fields = %+v, %v", fields, err)
		}
		var opts []map[string]any
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/attio/crm-field-options?object_type=contacts&field_slug=lead_source", nil, 200).Data(&opts); err != nil ||
			len(opts) != 4 || opts[0]["value"] != "Trawl" {
			t.Fatalf("crm-field-options = %v, %v", opts, err)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/attio/crm-field-options?object_type=contacts&field_slug=name", nil), 400, "VALIDATION_ERROR", "query.field_slug")

		// Attio's refusals.
		code, msg := stepFailure(t, runSteps(t, ts, c, map[string]any{"text": "not-an-email"}, person(nil)), 0)
		if code != "UPSTREAM_ERROR" || !strings.Contains(msg, "validation_type") {
			t.Fatalf("bad email: %s %s", code, msg)
		}
		bad := map[string]any{"id": "add", "kind": "attio_add_to_list", "inputs": map[string]any{"list": "no-such-list", "record_id": rid}}
		if code, msg := stepFailure(t, runSteps(t, ts, c, trigger, bad), 0); code != "NOT_FOUND" || !strings.Contains(msg, "not_found") {
			t.Fatalf("unknown list: %s %s", code, msg)
		}
		// A 429 is retried: the flaky person is asserted on the second request.
		before := countCalls(ts.integrationCalls("attio"), http.MethodPut, "/v2/objects/people/records")
		if out := stepOutputAt(t, runSteps(t, ts, c, map[string]any{"text": "flaky-ada@example.com"}, person(nil)), 0); out["record_id"] == "" ||
			countCalls(ts.integrationCalls("attio"), http.MethodPut, "/v2/objects/people/records") != before+2 {
			t.Fatalf("flaky person = %v", out)
		}
		mustDo(t, c, http.MethodPost, "/v1/integrations/attio", map[string]any{"credentials": map[string]string{"api_key": "invalid-key"}}, 200)
		if code, msg := stepFailure(t, runSteps(t, ts, c, trigger, person(nil)), 0); code != "CONNECTION_REJECTED" || !strings.Contains(msg, "401") {
			t.Fatalf("rejected key: %s %s", code, msg)
		}
		mustDo(t, c, http.MethodPost, "/v1/integrations/attio", map[string]any{"credentials": map[string]string{"api_key": "ratelimited-key"}}, 200)
		limited := person(nil)
		limited["retry"] = map[string]any{"max_attempts": 1}
		if code, msg := stepFailure(t, runSteps(t, ts, c, trigger, limited), 0); code != "UPSTREAM_ERROR" || !strings.Contains(msg, "rate_limit_exceeded") {
			t.Fatalf("rate limited: %s %s", code, msg)
		}
	})
}

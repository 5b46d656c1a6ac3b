package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// atRecords lists a table's records through the sandbox's Airtable API.
func atRecords(t *testing.T, ts *testServer, token, base, table string) []struct {
	ID     string
	Fields map[string]any
} {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.sandboxURL(t)+"/airtable/v0/"+base+"/"+table, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Records []struct {
			ID     string
			Fields map[string]any
		}
	}
	if resp.StatusCode != 200 || json.Unmarshal(raw, &out) != nil {
		t.Fatalf("listing records: %d %s", resp.StatusCode, raw)
	}
	return out.Records
}

// TestAirtableE2E: an account connects Airtable with a personal access
// token, looks up its bases, tables and fields, and upserts records
// against the sandbox's Airtable API: a second run updates the record the
// first created, a rate-limited upsert is retried, and Airtable's
// refusals are the step's errors.
func TestAirtableE2E(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, sheetsAirtableEnv()))
		c := ts.Client
		const token = "patE2eSandbox.0123456789abcdef"
		upsertOf := func(base, table, email string, extra map[string]any) map[string]any {
			fields := map[string]any{"Email": email, "Name": "{{ trigger.text }}", "Status": "New"}
			for k, v := range extra {
				fields[k] = v
			}
			return map[string]any{"base_id": base, "table": table, "merge_on": []any{"Email"}, "fields": fields}
		}
		named := func(name string) map[string]any { return map[string]any{"text": name} }

		if s := runOneStep(t, ts, c, "airtable_upsert_record", upsertOf("appAAAAAAAAAAAAAA", "Leads", "a@b.c", nil), nil); s.Code != "NOT_CONNECTED" {
			t.Fatalf("not connected: %+v", s)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/airtable/bases", nil), 404, "NOT_FOUND")

		r := mustDo(t, c, http.MethodPost, "/v1/integrations/airtable", map[string]any{"credentials": map[string]string{"access_token": token}}, 201)
		if strings.Contains(string(r.Body), token) {
			t.Fatalf("the answer echoes the token: %s", r.Body)
		}
		var h integrationHealthView
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/airtable/health", nil, 200).Data(&h); err != nil || h.Status != "ok" {
			t.Fatalf("health = %+v, %v", h, err)
		}

		// Lookups.
		var bases []struct {
			ID, Name        string
			PermissionLevel string `json:"permission_level"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/airtable/bases", nil, 200).Data(&bases); err != nil || len(bases) != 2 || bases[0].Name != "Growth CRM" || len(bases[0].ID) != 17 || !strings.HasPrefix(bases[0].ID, "app") {
			t.Fatalf("bases = %+v, %v", bases, err)
		}
		base := bases[0].ID
		var tables []struct {
			ID, Name       string
			PrimaryFieldID string `json:"primary_field_id"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/airtable/bases/"+base+"/tables", nil, 200).Data(&tables); err != nil || len(tables) != 2 || tables[0].Name != "Leads" || !strings.HasPrefix(tables[0].PrimaryFieldID, "fld") {
			t.Fatalf("tables = %+v, %v", tables, err)
		}
		var fields []struct {
			ID, Name, Type string
			Options        map[string]any
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/airtable/fields?base_id="+base+"&table_id="+tables[0].ID, nil, 200).Data(&fields); err != nil || len(fields) != 5 || fields[1].Name != "Email" || fields[3].Type != "singleSelect" || fields[3].Options["choices"] == nil {
			t.Fatalf("fields = %+v, %v", fields, err)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/airtable/fields?base_id="+base+"&table_id=Nope", nil), 400, "VALIDATION_ERROR", "query.table_id")
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/airtable/bases/appAAAAAAAAAAAAAA/tables", nil), 404, "NOT_FOUND")

		// Upsert twice: one record, created then updated.
		s := runOneStep(t, ts, c, "airtable_upsert_record", upsertOf(base, "Leads", "grace@example.com", nil), named("Grace Hopper"))
		if s.Status != "completed" || s.Output["created"] != true || !strings.HasPrefix(s.Output["id"].(string), "rec") {
			t.Fatalf("upsert = %+v", s)
		}
		id := s.Output["id"]
		s = runOneStep(t, ts, c, "airtable_upsert_record", upsertOf(base, tables[0].ID, "grace@example.com", map[string]any{"Score": "90"}), named("Rear Admiral Hopper"))
		if s.Code != "UPSTREAM_ERROR" || !strings.Contains(s.Msg, "INVALID_VALUE_FOR_COLUMN") || !strings.Contains(s.Msg, "422") {
			t.Fatalf("text into a number without typecast = %+v", s)
		}
		in := upsertOf(base, tables[0].ID, "grace@example.com", map[string]any{"Score": "90", "Status": "Champion"})
		in["typecast"] = true
		s = runOneStep(t, ts, c, "airtable_upsert_record", in, named("Rear Admiral Hopper"))
		if s.Status != "completed" || s.Output["created"] != false || s.Output["id"] != id {
			t.Fatalf("upsert again = %+v", s)
		}
		recs := atRecords(t, ts, token, base, "Leads")
		if len(recs) != 1 || recs[0].Fields["Name"] != "Rear Admiral Hopper" || recs[0].Fields["Score"] != float64(90) || recs[0].Fields["Status"] != "Champion" {
			t.Fatalf("records = %+v", recs)
		}
		var patch sandboxCall
		for _, call := range ts.integrationCalls("airtable") {
			if call.Method == http.MethodPatch {
				patch = call
			}
		}
		if patch.Path != "/v0/"+base+"/"+tables[0].ID || !strings.Contains(patch.Body, `"performUpsert":{"fieldsToMergeOn":["Email"]}`) || !strings.Contains(patch.Body, `"typecast":true`) {
			t.Fatalf("the upsert sent %+v", patch)
		}

		// A rate-limited upsert is retried after Retry-After.
		before := len(ts.integrationCalls("airtable"))
		if s = runOneStep(t, ts, c, "airtable_upsert_record", upsertOf(base, "Leads", "flaky-linus@example.com", nil), named("Linus")); s.Status != "completed" || s.Output["created"] != true {
			t.Fatalf("flaky upsert = %+v", s)
		}
		if n := len(ts.integrationCalls("airtable")) - before; n != 2 || len(atRecords(t, ts, token, base, "Leads")) != 2 {
			t.Fatalf("the rate-limited upsert was sent %d times", n)
		}

		// Refusals: Airtable's unknown field, our missing merge field, a missing base.
		if s = runOneStep(t, ts, c, "airtable_upsert_record", upsertOf(base, "Leads", "x@y.z", map[string]any{"Nope": 1}), nil); s.Code != "UPSTREAM_ERROR" || !strings.Contains(s.Msg, "UNKNOWN_FIELD_NAME") {
			t.Fatalf("unknown field = %+v", s)
		}
		noMerge := upsertOf(base, "Leads", "x@y.z", nil)
		noMerge["merge_on"] = []any{"{{ trigger.text }}"}
		if s = runOneStep(t, ts, c, "airtable_upsert_record", noMerge, named("Company")); s.Code != "INVALID_INPUT" || !strings.Contains(s.Msg, "Company") {
			t.Fatalf("merge field not given = %+v", s)
		}
		if s = runOneStep(t, ts, c, "airtable_upsert_record", upsertOf("appAAAAAAAAAAAAAA", "Leads", "x@y.z", nil), nil); s.Code != "NOT_FOUND" {
			t.Fatalf("missing base = %+v", s)
		}

		// A token Airtable refuses, and one it rate-limits (lookups say so).
		mustDo(t, c, http.MethodPost, "/v1/integrations/airtable", map[string]any{"credentials": map[string]string{"access_token": "ratelimited-pat"}}, 200)
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/airtable/bases", nil), 429, "RATE_LIMITED")
		mustDo(t, c, http.MethodPost, "/v1/integrations/airtable", map[string]any{"credentials": map[string]string{"access_token": "invalid-pat"}}, 200)
		if s = runOneStep(t, ts, c, "airtable_upsert_record", upsertOf(base, "Leads", "a@b.c", nil), nil); s.Code != "CONNECTION_REJECTED" || !strings.Contains(s.Msg, "AUTHENTICATION_REQUIRED") {
			t.Fatalf("rejected token = %+v", s)
		}

		ts.stop()
		if logs := ts.Stdout.String() + ts.Stderr.String(); strings.Contains(logs, token) {
			t.Fatal("the server logged the token")
		}
	})
}

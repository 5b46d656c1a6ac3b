package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// TestPipedriveActions: an account connects Pipedrive with an API token,
// looks its person and organization fields up, upserts a person (with an
// organization found or created), adds a lead and notes through workflow
// steps; running each again changes nothing twice; a rate limit is
// waited out; bad inputs, unknown records, a rejected token and no
// connection fail with their codes.
func TestPipedriveActions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, integrationTestEnv))
		c := ts.Client
		const token = "pd0123456789abcdef0123456789abcdef0123"
		auth := map[string]string{"x-api-token": token}

		if code, _ := stepError(t, integrationStepRun(t, ts, c, "pipedrive_upsert_person", map[string]any{"email": "a@example.com", "name": "A"})); code != "NOT_CONNECTED" {
			t.Fatalf("not connected: %s", code)
		}
		mustDo(t, c, http.MethodPost, "/v1/integrations/pipedrive", map[string]any{"credentials": map[string]string{"api_token": token}}, 201)

		// Lookups.
		type field struct {
			Slug, Label, Type string
			Options           []struct{ Value, Label string }
		}
		var fields struct{ Contacts, Companies []field }
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/pipedrive/crm-fields", nil, 200).Data(&fields); err != nil || len(fields.Contacts) != 8 || len(fields.Companies) != 4 {
			t.Fatalf("crm-fields = %+v, %v", fields, err)
		}
		var source field
		for _, f := range fields.Contacts {
			if f.Label == "Lead source" {
				source = f
			}
		}
		var opts struct {
			Options []struct{ Value, Label string } `json:"options"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/pipedrive/crm-field-options?object_type=contacts&field_slug="+source.Slug, nil, 200).Data(&opts); err != nil ||
			len(opts.Options) != 3 || opts.Options[1].Label != "Referral" {
			t.Fatalf("options = %+v, %v", opts, err)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/pipedrive/crm-field-options?object_type=contacts&field_slug=name", nil), 400, "VALIDATION_ERROR")

		// A person and their organization; the second run updates them.
		in := map[string]any{"email": "ada@example.com", "name": "Ada Lovelace", "phone": "+44 20 1234", "org_name": "Analytical Engines",
			"fields": map[string]any{source.Slug: opts.Options[1].Value}}
		out := stepOutput(t, integrationStepRun(t, ts, c, "pipedrive_upsert_person", in))
		pid, org := out["id"], out["org_id"]
		if out["created"] != true || pid == nil || org == nil {
			t.Fatalf("first upsert = %v", out)
		}
		in["name"] = "Ada King"
		out = stepOutput(t, integrationStepRun(t, ts, c, "pipedrive_upsert_person", in))
		if out["created"] != false || out["id"] != pid || out["org_id"] != org {
			t.Fatalf("second upsert = %v", out)
		}
		var person struct {
			Data map[string]any `json:"data"`
		}
		if st := sandboxAPI(t, ts, http.MethodGet, fmt.Sprintf("/pipedrive/v1/persons/%v", pid), auth, nil, &person); st != 200 ||
			person.Data["name"] != "Ada King" || person.Data[source.Slug] != opts.Options[1].Value || person.Data["org_name"] != "Analytical Engines" {
			t.Fatalf("person = %d %v", st, person.Data)
		}
		var orgs struct {
			Data struct{ Items []any } `json:"data"`
		}
		sandboxAPI(t, ts, http.MethodGet, "/pipedrive/v1/organizations/search?term=Analytical+Engines&exact_match=true", auth, nil, &orgs)
		if len(orgs.Data.Items) != 1 {
			t.Fatalf("%d organizations after two upserts", len(orgs.Data.Items))
		}

		// A lead and notes, each twice.
		lead := map[string]any{"title": "Ada's lead", "person_id": pid}
		out = stepOutput(t, integrationStepRun(t, ts, c, "pipedrive_create_lead", lead))
		lid, _ := out["id"].(string)
		if out["created"] != true || len(lid) != 36 {
			t.Fatalf("lead = %v", out)
		}
		if out = stepOutput(t, integrationStepRun(t, ts, c, "pipedrive_create_lead", lead)); out["created"] != false || out["id"] != lid {
			t.Fatalf("lead again = %v", out)
		}
		for _, target := range []map[string]any{{"person_id": pid}, {"lead_id": lid}} {
			target["content"] = "Met at the fair: {{ trigger.text }}"
			first := stepOutput(t, integrationStepRun(t, ts, c, "pipedrive_add_note", target))
			again := stepOutput(t, integrationStepRun(t, ts, c, "pipedrive_add_note", target))
			if first["created"] != true || again["created"] != false || again["id"] != first["id"] {
				t.Fatalf("note on %v: %v then %v", target, first, again)
			}
		}
		var notes struct {
			Data []struct{ Content string } `json:"data"`
		}
		sandboxAPI(t, ts, http.MethodGet, fmt.Sprintf("/pipedrive/v1/notes?person_id=%v", pid), auth, nil, &notes)
		if len(notes.Data) != 1 || notes.Data[0].Content != "Met at the fair: from the trigger" {
			t.Fatalf("notes = %+v", notes.Data)
		}

		// Rate limited once (429 on the first search about flaky-…): waited out.
		out = stepOutput(t, integrationStepRun(t, ts, c, "pipedrive_upsert_person", map[string]any{"email": "flaky-bob@example.com", "name": "Bob"}))
		if out["created"] != true {
			t.Fatalf("flaky = %v", out)
		}
		n429 := 0
		for _, call := range ts.integrationCalls("pipedrive") {
			if strings.Contains(call.Query, "api_token") {
				t.Fatalf("the token went in the query: %+v", call)
			}
			if q, _ := url.ParseQuery(call.Query); q.Get("term") == "flaky-bob@example.com" {
				n429++
			}
		}
		if n429 != 2 {
			t.Fatalf("%d searches of the flaky email, want 2", n429)
		}

		// Refusals.
		for _, tc := range []struct {
			kind string
			in   map[string]any
			code string
		}{
			{"pipedrive_upsert_person", map[string]any{"email": "not-an-email", "name": "x"}, "INVALID_INPUT"},
			{"pipedrive_upsert_person", map[string]any{"email": "new@example.com"}, "INVALID_INPUT"},
			{"pipedrive_create_lead", map[string]any{"title": "t", "person_id": 999999}, "NOT_FOUND"},
			{"pipedrive_add_note", map[string]any{"content": "c", "deal_id": 424242}, "NOT_FOUND"},
		} {
			if code, msg := stepError(t, integrationStepRun(t, ts, c, tc.kind, tc.in)); code != tc.code {
				t.Fatalf("%s %v: %s %s", tc.kind, tc.in, code, msg)
			}
		}
		mustDo(t, c, http.MethodPost, "/v1/integrations/pipedrive", map[string]any{"credentials": map[string]string{"api_token": "invalid-token"}}, 200)
		code, msg := stepError(t, integrationStepRun(t, ts, c, "pipedrive_add_note", map[string]any{"content": "c", "person_id": pid}))
		if code != "CONNECTION_REJECTED" || !strings.Contains(msg, "unauthorized access") {
			t.Fatalf("rejected: %s %s", code, msg)
		}
		ts.stop()
		if strings.Contains(ts.Stdout.String()+ts.Stderr.String(), token) {
			t.Fatal("the server logged the token")
		}
	})
}

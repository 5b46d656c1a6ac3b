package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/store"
)

// gsTestKey is generated once per test binary: 2048-bit keys are slow.
var gsTestKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// gsKeyJSON is the JSON key file of a service account named email.
func gsKeyJSON(email string) string {
	der, err := x509.MarshalPKCS8PrivateKey(gsTestKey())
	if err != nil {
		panic(err)
	}
	b, _ := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": "trawl-e2e", "private_key_id": "fedcba9876543210fedcba9876543210fedcba98",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "client_email": email,
		"client_id": "100000000000000000002", "token_uri": "https://oauth2.googleapis.com/token",
	}, "", "  ")
	return string(b)
}

// sheetsAirtableEnv logs the sandbox's requests and lifts the API's
// per-key rate limit, which polling many short executions would reach.
func sheetsAirtableEnv() map[string]string {
	return map[string]string{"TRAWL_LOG_LEVEL": "debug", "TRAWL_RATE_LIMIT_STARTER": "100000",
		"TRAWL_RATE_LIMIT_ENTERPRISE": "100000", "TRAWL_RATE_LIMIT_CUSTOM": "100000"}
}

// stepRun is one step of a one-step workflow's test run.
type stepRun struct {
	Status string
	Output map[string]any
	Code   string
	Msg    string
}

// runOneStep creates a webhook workflow of one action and test-runs it
// with the delivery's fields overridden.
func runOneStep(t *testing.T, ts *testServer, c *client.Client, kind string, inputs, overrides map[string]any) stepRun {
	t.Helper()
	def := map[string]any{
		"trigger": map[string]any{"kind": "workflows/webhook"},
		"actions": []any{map[string]any{"id": "act", "kind": kind, "inputs": inputs}},
		"edges":   []any{map[string]any{"from": "$source", "to": "act"}},
	}
	w := createWorkflow(t, c, map[string]any{"name": kind, "workflow": def})
	x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": overrides}), ended)
	if len(x.Steps) != 1 {
		t.Fatalf("execution %s: steps %s", x.Status, x.keys())
	}
	s := x.Steps[0]
	out := stepRun{Status: s.Status}
	out.Output, _ = s.Output.(map[string]any)
	if s.Error != nil {
		out.Code, out.Msg = s.Error.Code, s.Error.Message
	}
	return out
}

// gsRead reads a range of the sandbox's spreadsheet as the service account.
func gsRead(t *testing.T, ts *testServer, keyJSON, id, a1 string) [][]string {
	t.Helper()
	key, err := integration.ParseServiceAccountKey(keyJSON)
	if err != nil {
		t.Fatal(err)
	}
	assertion, err := key.Assertion(key.TokenURI, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	base := ts.sandboxURL(t) + "/google_sheets"
	resp, err := http.PostForm(base+"/token", url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}})
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodGet, base+"/v4/spreadsheets/"+id+"/values/"+url.PathEscape(a1), nil)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var vr struct{ Values [][]string }
	if resp.StatusCode != 200 || json.Unmarshal(raw, &vr) != nil {
		t.Fatalf("reading %s: %d %s", a1, resp.StatusCode, raw)
	}
	return vr.Values
}

// TestGoogleSheetsE2E: an account connects Google Sheets with a service
// account's key, looks up its spreadsheets, sheets and columns, and runs
// the append and upsert actions against the sandbox's Sheets API: running
// them again adds no row, a rate-limited write is retried, and the
// service's refusals are the step's errors.
func TestGoogleSheetsE2E(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, sheetsAirtableEnv()))
		c := ts.Client
		key := gsKeyJSON("trawl-bot@trawl-e2e.iam.gserviceaccount.com")
		reads := 0
		gsRead := func(t *testing.T, ts *testServer, keyJSON, id, a1 string) [][]string {
			reads++
			return gsRead(t, ts, keyJSON, id, a1)
		}
		// The trigger's text is the row's name (a template); the rest is literal.
		upsertOf := func(doc, email string) map[string]any {
			return map[string]any{"spreadsheet_id": doc, "sheet": "Sheet1", "key_column": "Email",
				"values": map[string]any{"Email": email, "Name": "{{ trigger.text }}", "Score": 42}}
		}
		named := func(name string) map[string]any { return map[string]any{"text": name} }

		// Not connected: the step says so, the lookups too.
		if s := runOneStep(t, ts, c, "google_sheets_upsert_row", upsertOf("1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms", "a@b.c"), nil); s.Code != "NOT_CONNECTED" {
			t.Fatalf("not connected: %+v", s)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/google-sheets/documents", nil), 404, "NOT_FOUND")

		// Connect: a bad key is refused without echoing it.
		r := do(t, c, http.MethodPost, "/v1/integrations/google_sheets", map[string]any{"credentials": map[string]string{"service_account_json": `{"type":"authorized_user","client_secret":"s3cr3t"}`}})
		wantError(t, r, 400, "VALIDATION_ERROR", "body.credentials.service_account_json")
		if strings.Contains(string(r.Body), "s3cr3t") {
			t.Fatalf("the answer echoes the key: %s", r.Body)
		}
		r = mustDo(t, c, http.MethodPost, "/v1/integrations/google_sheets", map[string]any{"credentials": map[string]string{"service_account_json": key}}, 201)
		var v integrationView
		if err := r.Data(&v); err != nil || v.Source == nil || *v.Source != "service_account" || strings.Contains(string(r.Body), "PRIVATE KEY") {
			t.Fatalf("connect = %+v, %v (%s)", v, err, r.Body)
		}
		var h integrationHealthView
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/google_sheets/health", nil, 200).Data(&h); err != nil || h.Status != "ok" {
			t.Fatalf("health = %+v, %v", h, err)
		}

		// Lookups.
		var docs []struct{ ID, Name string }
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/google-sheets/documents", nil, 200).Data(&docs); err != nil || len(docs) != 2 || docs[0].Name != "Leads" || len(docs[0].ID) != 44 {
			t.Fatalf("documents = %+v, %v", docs, err)
		}
		leads, posts := docs[0].ID, docs[1].ID
		var sheets []struct {
			ID    int64
			Title string
			Index int
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/google-sheets/documents/"+leads+"/sheets", nil, 200).Data(&sheets); err != nil || len(sheets) != 2 || sheets[1].Title != "Sheet 2" || sheets[1].Index != 1 {
			t.Fatalf("sheets = %+v, %v", sheets, err)
		}
		var cols []struct {
			Index        int
			Letter, Name string
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/google-sheets/columns?document_id="+leads+"&sheet_id=Sheet1", nil, 200).Data(&cols); err != nil || len(cols) != 4 || cols[1].Name != "Email" || cols[3].Letter != "D" {
			t.Fatalf("columns = %+v, %v", cols, err)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/google-sheets/columns?document_id="+leads+"&sheet_id=Nope", nil), 400, "VALIDATION_ERROR", "query.sheet_id")
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/google-sheets/documents/missing-0123456789abc/sheets", nil), 404, "NOT_FOUND")

		// Upsert twice: one row, updated in place.
		upsert := upsertOf("https://docs.google.com/spreadsheets/d/"+leads+"/edit#gid=0", "grace@example.com")
		s := runOneStep(t, ts, c, "google_sheets_upsert_row", upsert, named("Grace Hopper"))
		if s.Status != "completed" || s.Output["created"] != true || s.Output["row"] != float64(3) || s.Output["updated_range"] != "'Sheet1'!A3:D3" {
			t.Fatalf("upsert = %+v", s)
		}
		s = runOneStep(t, ts, c, "google_sheets_upsert_row", upsert, named("Rear Admiral Hopper"))
		if s.Status != "completed" || s.Output["created"] != false || s.Output["row"] != float64(3) {
			t.Fatalf("upsert again = %+v", s)
		}
		rows := gsRead(t, ts, key, leads, "Sheet1")
		if len(rows) != 3 || strings.Join(rows[2], "|") != "Rear Admiral Hopper|grace@example.com||42" || rows[1][0] != "Ada Lovelace" {
			t.Fatalf("rows = %q", rows)
		}

		// Append to an empty sheet: the header comes from the keys; with
		// key_column the second run adds nothing.
		appendIn := map[string]any{"spreadsheet_id": posts, "sheet": "Sheet1", "key_column": "URL",
			"values": map[string]any{"URL": "{{ trigger.post_url }}", "Text": "{{ trigger.text }}"}}
		post := map[string]any{"post_url": "https://x.example/p/1", "text": "It's 'quoted', with a comma"}
		s = runOneStep(t, ts, c, "google_sheets_append_row", appendIn, post)
		if s.Status != "completed" || s.Output["created"] != true || s.Output["row"] != float64(2) {
			t.Fatalf("append = %+v", s)
		}
		if s = runOneStep(t, ts, c, "google_sheets_append_row", appendIn, post); s.Status != "completed" || s.Output["created"] != false || s.Output["row"] != float64(2) {
			t.Fatalf("append again = %+v", s)
		}
		// An array in column order, to a sheet whose title has a space.
		s = runOneStep(t, ts, c, "google_sheets_append_row", map[string]any{"spreadsheet_id": leads, "sheet": "Sheet 2", "values": []any{"a", 1, true}}, nil)
		if s.Status != "completed" || s.Output["updated_range"] != "'Sheet 2'!A1:C1" {
			t.Fatalf("append array = %+v", s)
		}
		if rows := gsRead(t, ts, key, posts, "Sheet1"); len(rows) != 2 || strings.Join(rows[0], "|") != "Text|URL" || rows[1][1] != "https://x.example/p/1" {
			t.Fatalf("posts = %q", rows)
		}
		if rows := gsRead(t, ts, key, leads, "'Sheet 2'!A1:C1"); strings.Join(rows[0], "|") != "a|1|TRUE" {
			t.Fatalf("sheet 2 = %q", rows)
		}

		// A rate-limited write is retried after Sheets' Retry-After.
		before := len(ts.integrationCalls("google_sheets"))
		if s = runOneStep(t, ts, c, "google_sheets_upsert_row", upsertOf(leads, "flaky-linus@example.com"), named("Linus")); s.Status != "completed" || s.Output["created"] != true {
			t.Fatalf("flaky upsert = %+v", s)
		}
		appends := 0
		for _, call := range ts.integrationCalls("google_sheets")[before:] {
			if call.Method == http.MethodPost && strings.HasSuffix(call.Path, ":append") {
				appends++
			}
		}
		if appends != 2 || len(gsRead(t, ts, key, leads, "Sheet1")) != 4 {
			t.Fatalf("the rate-limited append was sent %d times", appends)
		}

		// Refusals: unknown column (ours), missing and private spreadsheets (Sheets').
		bad := map[string]any{"spreadsheet_id": leads, "sheet": "Sheet1", "key_column": "Email", "values": map[string]any{"Email": "x@y.z", "Nope": 1}}
		if s = runOneStep(t, ts, c, "google_sheets_upsert_row", bad, nil); s.Code != "INVALID_INPUT" || !strings.Contains(s.Msg, "Nope") {
			t.Fatalf("unknown column = %+v", s)
		}
		if s = runOneStep(t, ts, c, "google_sheets_upsert_row", upsertOf("missing-0123456789abc", "a@b.c"), nil); s.Code != "NOT_FOUND" {
			t.Fatalf("missing spreadsheet = %+v", s)
		}
		if s = runOneStep(t, ts, c, "google_sheets_upsert_row", upsertOf("private-0123456789abc", "a@b.c"), nil); s.Code != "UPSTREAM_ERROR" || !strings.Contains(s.Msg, "PERMISSION_DENIED") {
			t.Fatalf("private spreadsheet = %+v", s)
		}

		// The token was asked for once and cached across steps (each read
		// of the test asks for one of its own).
		tokens := -reads
		for _, call := range ts.integrationCalls("google_sheets") {
			if call.Path == "/token" {
				tokens++
			}
		}
		if tokens != 1 {
			t.Fatalf("the token endpoint was asked %d times", tokens)
		}

		// A key Google refuses.
		mustDo(t, c, http.MethodPost, "/v1/integrations/google_sheets", map[string]any{"credentials": map[string]string{"service_account_json": gsKeyJSON("invalid-deleted@trawl-e2e.iam.gserviceaccount.com")}}, 200)
		if s = runOneStep(t, ts, c, "google_sheets_upsert_row", upsertOf(leads, "a@b.c"), nil); s.Code != "CONNECTION_REJECTED" || !strings.Contains(s.Msg, "invalid_grant") {
			t.Fatalf("rejected key = %+v", s)
		}

		ts.stop()
		if logs := ts.Stdout.String() + ts.Stderr.String(); strings.Contains(logs, "PRIVATE KEY") || strings.Contains(logs, "ya29.") {
			t.Fatal("the server logged a key or a token")
		}
	})
}

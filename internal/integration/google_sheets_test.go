package integration_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// testRSAKey is generated once per test binary: 2048-bit keys are slow.
var testRSAKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// serviceAccountJSON is a JSON key file of a service account named email.
func serviceAccountJSON(email string) string {
	der, err := x509.MarshalPKCS8PrivateKey(testRSAKey())
	if err != nil {
		panic(err)
	}
	b, _ := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": "trawl-test", "private_key_id": "0123456789abcdef0123456789abcdef01234567",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": email, "client_id": "100000000000000000001",
		"auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token",
	}, "", "  ")
	return string(b)
}

func TestGoogleSheetsValidation(t *testing.T) {
	good := serviceAccountJSON("trawl@trawl-test.iam.gserviceaccount.com")
	var m map[string]string
	_ = json.Unmarshal([]byte(good), &m)
	with := func(k, v string) string {
		c := map[string]string{}
		for a, b := range m {
			c[a] = b
		}
		c[k] = v
		b, _ := json.Marshal(c)
		return string(b)
	}
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{"ok (multi-line file)", good, true},
		{"not json", "hello", false},
		{"not a service account", with("type", "authorized_user"), false},
		{"no email", with("client_email", ""), false},
		{"no token uri", with("token_uri", ""), false},
		{"http token uri", with("token_uri", "http://example.com/token"), false},
		{"no pem", with("private_key", "MIIEv"), false},
		{"bad pem", with("private_key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fes := integration.GoogleSheets.Validate(integration.Credentials{"service_account_json": tc.value})
			if (len(fes) == 0) != tc.ok {
				t.Fatalf("Validate = %+v, want ok %v", fes, tc.ok)
			}
			for _, fe := range fes {
				if strings.Contains(fe.Message, "BEGIN") || strings.Contains(fe.Message, "trawl@") || strings.Contains(fe.Message, "hello") {
					t.Fatalf("message %q echoes the key", fe.Message)
				}
			}
		})
	}
	if fes := integration.GoogleSheets.Validate(integration.Credentials{"service_account_json": good, "access_token": "x"}); len(fes) != 1 || fes[0].Field != "access_token" {
		t.Fatalf("a posted access_token = %+v", fes)
	}
}

// sheetsConn is a connection to the sandbox's Google Sheets.
func sheetsConn(t *testing.T, email string, now func() time.Time) (*integration.Conn, *[]integration.Credentials) {
	t.Helper()
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1, Now: now}).Handler())
	t.Cleanup(srv.Close)
	var saved []integration.Credentials
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"google_sheets": srv.URL + "/google_sheets"},
		Sleep: func(context.Context, time.Duration) error { return nil },
		Save: func(_ context.Context, _, _ string, c integration.Credentials) error {
			saved = append(saved, c)
			return nil
		}}
	c := k.Conn(integration.GoogleSheets, integration.Credentials{"service_account_json": serviceAccountJSON(email)}, "acct")
	c.Now = now
	return c, &saved
}

func TestGoogleSheetsTokenAndLookups(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	c, saved := sheetsConn(t, "trawl@trawl-test.iam.gserviceaccount.com", func() time.Time { return now })
	if err := integration.GoogleSheets.Probe(ctx, c); err != nil {
		t.Fatal(err)
	}
	if len(*saved) != 1 || (*saved)[0]["access_token"] == "" || (*saved)[0]["access_token_expires_at"] != "2026-11-27T10:59:59Z" {
		t.Fatalf("saved = %v", *saved)
	}
	docs, err := integration.GoogleSheets.Lookups["documents"](ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(docs)
	var ds []struct{ ID, Name string }
	_ = json.Unmarshal(raw, &ds)
	if len(ds) != 2 || ds[0].Name != "Leads" || len(ds[0].ID) != 44 {
		t.Fatalf("documents = %s", raw)
	}
	if len(*saved) != 1 {
		t.Fatalf("the cached token was not reused: %d saves", len(*saved))
	}
	// 5 minutes before expiry the token is renewed.
	now = now.Add(55 * time.Minute)
	sheets, err := integration.GoogleSheets.Lookups["sheets"](ctx, c, url.Values{"document_id": {"https://docs.google.com/spreadsheets/d/" + ds[0].ID + "/edit#gid=0"}})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(sheets); string(raw) != `[{"id":0,"title":"Sheet1","index":0},{"id":`+strings.Split(strings.Split(string(raw), `{"id":`)[2], ",")[0]+`,"title":"Sheet 2","index":1}]` {
		t.Fatalf("sheets = %s", raw)
	}
	if len(*saved) != 2 {
		t.Fatalf("the token was not renewed 5 minutes before expiry: %d saves", len(*saved))
	}
	cols, err := integration.GoogleSheets.Lookups["columns"](ctx, c, url.Values{"document_id": {ds[0].ID}, "sheet_id": {"0"}})
	if raw, _ := json.Marshal(cols); err != nil || string(raw) != `[{"index":0,"letter":"A","name":"Name"},{"index":1,"letter":"B","name":"Email"},{"index":2,"letter":"C","name":"Company"},{"index":3,"letter":"D","name":"Score"}]` {
		t.Fatalf("columns = %s, %v", raw, err)
	}
	_, err = integration.GoogleSheets.Lookups["columns"](ctx, c, url.Values{"document_id": {ds[0].ID}, "sheet_id": {"Nope"}})
	var pe *integration.ParamError
	if !errors.As(err, &pe) || pe.Param != "sheet_id" {
		t.Fatalf("unknown sheet: %v", err)
	}
	_, err = integration.GoogleSheets.Lookups["sheets"](ctx, c, url.Values{"document_id": {"missing-0123456789abcdef"}})
	var se *integration.Error
	if !errors.As(err, &se) || se.Status != http.StatusNotFound || !strings.Contains(se.Message, "NOT_FOUND") {
		t.Fatalf("missing spreadsheet: %v", err)
	}
	_, err = integration.GoogleSheets.Lookups["sheets"](ctx, c, url.Values{"document_id": {"private-0123456789abcdef"}})
	if !errors.As(err, &se) || se.Status != http.StatusForbidden || !strings.Contains(se.Message, "PERMISSION_DENIED") {
		t.Fatalf("private spreadsheet: %v", err)
	}
}

func TestGoogleSheetsRejectedKey(t *testing.T) {
	c, _ := sheetsConn(t, "invalid-deleted@trawl-test.iam.gserviceaccount.com", time.Now)
	err := integration.GoogleSheets.Probe(context.Background(), c)
	if !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("probe = %v", err)
	}
	c, _ = sheetsConn(t, "ratelimited@trawl-test.iam.gserviceaccount.com", time.Now)
	err = integration.GoogleSheets.Probe(context.Background(), c)
	var se *integration.Error
	if !errors.As(err, &se) || se.Status != http.StatusTooManyRequests || se.RetryAfter != time.Second {
		t.Fatalf("probe = %v", err)
	}
}

func TestSpreadsheetID(t *testing.T) {
	id := "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"
	for in, want := range map[string]string{
		id: id, " " + id + " ": id,
		"https://docs.google.com/spreadsheets/d/" + id + "/edit#gid=0": id,
		"https://docs.google.com/spreadsheets/d/" + id:                 id,
		"short": "", "https://example.com/x": "", id + "/x": "",
	} {
		got, err := integration.SpreadsheetID(in)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("SpreadsheetID(%q) = %q, %v", in, got, err)
		}
	}
	for in, want := range map[string]int{"'Sheet 1'!A5:C5": 5, "Sheet1!B12": 12, "A1": 1, "'a!b'!$A$7:$C$7": 7, "x": 0} {
		if got := integration.RowOfRange(in); got != want {
			t.Errorf("RowOfRange(%q) = %d", in, got)
		}
	}
	for i, want := range map[int]string{0: "A", 25: "Z", 26: "AA", 701: "ZZ", 702: "AAA"} {
		if got := integration.ColumnLetter(i); got != want {
			t.Errorf("ColumnLetter(%d) = %q", i, got)
		}
	}
}

func FuzzParseServiceAccountKey(f *testing.F) {
	f.Add(`{"type":"service_account","client_email":"a@b","token_uri":"https://x/t","private_key":"-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n"}`)
	f.Add(`{"type":"service_account"}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		k, err := integration.ParseServiceAccountKey(s)
		if err == nil && (k.Type != "service_account" || !strings.Contains(k.ClientEmail, "@")) {
			t.Fatalf("accepted %q", s)
		}
	})
}

func FuzzSpreadsheetRefs(f *testing.F) {
	f.Add("https://docs.google.com/spreadsheets/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit")
	f.Add("'Sheet 1'!A5:C5")
	f.Fuzz(func(t *testing.T, s string) {
		if id, err := integration.SpreadsheetID(s); err == nil && (len(id) < 10 || strings.ContainsAny(id, "/?#")) {
			t.Fatalf("SpreadsheetID(%q) = %q", s, id)
		}
		if n := integration.RowOfRange(s); n < 0 {
			t.Fatalf("RowOfRange(%q) = %d", s, n)
		}
	})
}

// roundTrip answers requests in process, recording their URLs.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestGoogleSheetsLiveHosts: against Google itself the token is asked of
// the key's token_uri, Drive of www.googleapis.com and Sheets of
// sheets.googleapis.com.
func TestGoogleSheetsLiveHosts(t *testing.T) {
	var got []string
	hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		got = append(got, r.Method+" "+r.URL.Scheme+"://"+r.URL.Host+r.URL.Path+" "+r.Header.Get("Authorization"))
		body := `{"sheets":[{"properties":{"sheetId":7,"title":"Leads","index":0}}]}`
		switch {
		case r.URL.Path == "/token":
			body = `{"access_token":"ya29.live","expires_in":3599,"token_type":"Bearer"}`
		case strings.HasPrefix(r.URL.Path, "/drive/"):
			body = `{"files":[{"id":"1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms","name":"Leads"}]}`
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})}
	k := &integration.Connector{HTTP: hc}
	c := k.Conn(integration.GoogleSheets, integration.Credentials{"service_account_json": serviceAccountJSON("bot@p.iam.gserviceaccount.com")}, "")
	ctx := context.Background()
	if _, err := integration.GoogleSheets.Lookups["documents"](ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := integration.GoogleSheets.Lookups["sheets"](ctx, c, url.Values{"document_id": {"1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"POST https://oauth2.googleapis.com/token ",
		"GET https://www.googleapis.com/drive/v3/files Bearer ya29.live",
		"GET https://sheets.googleapis.com/v4/spreadsheets/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms Bearer ya29.live",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s", strings.Join(got, "\n"))
	}
}

package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

type integrationView struct {
	Type      string  `json:"type"`
	Name      string  `json:"name"`
	Source    *string `json:"source"`
	Connected bool    `json:"connected"`
	Created   string  `json:"created"`
	Updated   string  `json:"updated"`
}

type integrationHealthView struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// TestIntegrationsHubSpot: an account connects HubSpot with a private-app
// token (against the built-in sandbox's HubSpot API), lists it, probes it
// live, replaces it with a token HubSpot rejects and sees why, while
// another account sees none of it; then deletes it. Credentials are never
// answered or logged, and bad requests get the error model's answers.
func TestIntegrationsHubSpot(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		const token = "pat-na1-11111111-2222-3333-4444-555555555555"

		health := func(want string) integrationHealthView {
			t.Helper()
			var h integrationHealthView
			if err := mustDo(t, c, http.MethodGet, "/v1/integrations/hubspot/health", nil, 200).Data(&h); err != nil {
				t.Fatal(err)
			}
			if h.Type != "hubspot" || h.Status != want {
				t.Fatalf("health = %+v, want status %s", h, want)
			}
			return h
		}
		list := func() []integrationView {
			t.Helper()
			var l []integrationView
			if err := mustDo(t, c, http.MethodGet, "/v1/integrations", nil, 200).Data(&l); err != nil {
				t.Fatal(err)
			}
			return onlyType(l, "hubspot")
		}

		// Not connected yet: listed as a known type, health says so.
		if l := list(); len(l) == 0 || l[0].Type != "hubspot" || l[0].Connected || l[0].Source != nil || l[0].Name != "HubSpot" {
			t.Fatalf("list before connecting = %+v", l)
		}
		health("not_connected")

		r := mustDo(t, c, http.MethodPost, "/v1/integrations/hubspot", map[string]any{"credentials": map[string]string{"access_token": token}}, 201)
		var v integrationView
		if err := r.Data(&v); err != nil {
			t.Fatal(err)
		}
		if v.Type != "hubspot" || v.Name != "HubSpot" || v.Source == nil || *v.Source != "api_key" || !v.Connected || v.Created == "" || v.Updated == "" {
			t.Fatalf("connect = %+v (%s)", v, r.Body)
		}
		if strings.Contains(string(r.Body), token) {
			t.Fatalf("the answer echoes the token: %s", r.Body)
		}
		if l := list(); len(l) != 1 || !l[0].Connected || l[0].Source == nil || *l[0].Source != "api_key" {
			t.Fatalf("list = %+v", l)
		}
		health("ok")

		// Replaced by a token HubSpot rejects: 200, and health says why.
		r = mustDo(t, c, http.MethodPost, "/v1/integrations/HubSpot", map[string]any{"credentials": map[string]string{"access_token": "invalid-revoked"}, "name": "Sales portal"}, 200)
		if err := r.Data(&v); err != nil || v.Name != "Sales portal" {
			t.Fatalf("replace = %+v, %v", v, err)
		}
		if h := health("error"); !strings.Contains(h.Error, "token rejected") || !strings.Contains(h.Error, "401") {
			t.Fatalf("health error %q does not name the rejection", h.Error)
		}

		// Another account sees none of it.
		other := newKey(t, ts, newAccount(t, ts, "Other", "STARTER", ""), "*")
		var ol []integrationView
		if err := mustDo(t, other, http.MethodGet, "/v1/integrations", nil, 200).Data(&ol); err != nil || len(onlyType(ol, "hubspot")) != 1 || onlyType(ol, "hubspot")[0].Connected {
			t.Fatalf("other account's list = %+v, %v", ol, err)
		}
		var oh integrationHealthView
		if err := mustDo(t, other, http.MethodGet, "/v1/integrations/hubspot/health", nil, 200).Data(&oh); err != nil || oh.Status != "not_connected" {
			t.Fatalf("other account's health = %+v, %v", oh, err)
		}
		wantError(t, do(t, other, http.MethodDelete, "/v1/integrations/hubspot", nil), 404, "NOT_FOUND")

		// Permissions: secrets:read lists, secrets:write connects.
		reader := newKey(t, ts, newAccount(t, ts, "Reader", "STARTER", ""), "secrets:read")
		mustDo(t, reader, http.MethodGet, "/v1/integrations", nil, 200)
		wantError(t, do(t, reader, http.MethodPost, "/v1/integrations/hubspot", map[string]any{"credentials": map[string]string{"access_token": token}}), 403, "FORBIDDEN")

		// Bad requests.
		for _, body := range []any{
			map[string]any{},
			map[string]any{"credentials": map[string]string{}},
			map[string]any{"credentials": map[string]string{"access_token": ""}},
		} {
			wantError(t, do(t, c, http.MethodPost, "/v1/integrations/hubspot", body), 400, "VALIDATION_ERROR", "body.credentials.access_token")
		}
		wantError(t, do(t, c, http.MethodPost, "/v1/integrations/hubspot", map[string]any{"credentials": map[string]string{"access_token": "x", "api_key": "y"}}),
			400, "VALIDATION_ERROR", "body.credentials.api_key")
		for _, r := range []struct{ method, path string }{
			{http.MethodPost, "/v1/integrations/salesforse"},
			{http.MethodGet, "/v1/integrations/salesforse/health"},
			{http.MethodDelete, "/v1/integrations/salesforse"},
		} {
			resp := do(t, c, r.method, r.path, map[string]any{"credentials": map[string]string{"access_token": "x"}})
			wantError(t, resp, 404, "NOT_FOUND")
			if !strings.Contains(resp.Err().Message, "hubspot") {
				t.Fatalf("%s %s: %q does not name the known types", r.method, r.path, resp.Err().Message)
			}
		}

		// Delete, then it is gone.
		var d struct {
			Type    string `json:"type"`
			Deleted bool   `json:"deleted"`
		}
		if err := mustDo(t, c, http.MethodDelete, "/v1/integrations/hubspot", nil, 200).Data(&d); err != nil || d.Type != "hubspot" || !d.Deleted {
			t.Fatalf("delete = %+v, %v", d, err)
		}
		wantError(t, do(t, c, http.MethodDelete, "/v1/integrations/hubspot", nil), 404, "NOT_FOUND")
		health("not_connected")

		ts.stop()
		if logs := ts.Stdout.String() + ts.Stderr.String(); strings.Contains(logs, token) || strings.Contains(logs, "invalid-revoked") {
			t.Fatal("the server logged a credential")
		}
	})
}

// TestIntegrationsHubSpotURLSetting: TRAWL_INTEGRATION_URLS is where the
// health probe asks, with the token as a bearer, and HubSpot's own error
// answer is what health reports. The request goes through the guarded
// dialer: a loopback service is reached only once the operator allows it.
func TestIntegrationsHubSpotURLSetting(t *testing.T) {
	var (
		mu        sync.Mutex
		got       []string
		hubspotUp = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"status":"error","message":"This app hasn't been granted all required scopes.","correlationId":"c0ffee00-0000-4000-8000-000000000000","category":"MISSING_SCOPES"}`))
		}))
	)
	defer hubspotUp.Close()
	env := map[string]string{"TRAWL_INTEGRATION_URLS": "hubspot=" + hubspotUp.URL + "/", "TRAWL_INTEGRATION_SANDBOX": "off"}
	blocked := startServer(t, serverEnv(t, store.SQLite, env))
	mustDo(t, blocked.Client, http.MethodPost, "/v1/integrations/hubspot", map[string]any{"credentials": map[string]string{"access_token": "pat-eu1-xyz"}}, 201)
	var h integrationHealthView
	if err := mustDo(t, blocked.Client, http.MethodGet, "/v1/integrations/hubspot/health", nil, 200).Data(&h); err != nil {
		t.Fatal(err)
	}
	if h.Status != "error" || !strings.Contains(h.Error, "did not answer") || !strings.Contains(h.Error, "127.0.0.1") {
		t.Fatalf("health through the guard = %+v", h)
	}

	env["TRAWL_ALLOW_PRIVATE_NETWORKS"] = "127.0.0.1/32"
	ts := startServer(t, serverEnv(t, store.SQLite, env))
	mustDo(t, ts.Client, http.MethodPost, "/v1/integrations/hubspot", map[string]any{"credentials": map[string]string{"access_token": "pat-eu1-xyz"}}, 201)
	if err := mustDo(t, ts.Client, http.MethodGet, "/v1/integrations/hubspot/health", nil, 200).Data(&h); err != nil {
		t.Fatal(err)
	}
	if h.Status != "error" || !strings.Contains(h.Error, "403") || !strings.Contains(h.Error, "MISSING_SCOPES") {
		t.Fatalf("health = %+v", h)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "GET /account-info/v3/details Bearer pat-eu1-xyz" {
		t.Fatalf("the configured HubSpot got %q", got)
	}
}

// onlyType keeps the list's entries of one type: every registered type is
// listed, connected or not.
func onlyType(l []integrationView, typ string) []integrationView {
	var out []integrationView
	for _, v := range l {
		if v.Type == typ {
			out = append(out, v)
		}
	}
	return out
}

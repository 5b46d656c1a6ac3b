package main

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
)

func TestBootstrapKeyIsPrintedOnceAndWorks(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		env := serverEnv(t, engine, nil)
		ts := startServer(t, env)
		if !strings.Contains(ts.Stdout.String(), ts.Key) {
			t.Fatalf("first start did not print the bootstrap key; stdout:\n%s", ts.Stdout)
		}
		info, err := os.Stat(filepath.Join(ts.DataDir, "bootstrap-key"))
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("bootstrap-key mode = %v, %v; want 0600", info.Mode().Perm(), err)
		}
		if _, err := ts.Client.Usage(context.Background(), "", ""); err != nil {
			t.Fatalf("bootstrap key cannot call the API: %v", err)
		}
		ts.stop()

		again := startServer(t, env)
		if strings.Contains(again.Stdout.String(), "shown only this once") {
			t.Fatalf("second start printed a key again:\n%s", again.Stdout)
		}
		if again.Key != ts.Key {
			t.Fatalf("bootstrap key file changed on restart")
		}
		out, err := again.cli(t, "accounts", "list", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var accts []map[string]any
		if err := json.Unmarshal([]byte(out), &accts); err != nil || len(accts) != 1 || accts[0]["plan"] != "CUSTOM" {
			t.Fatalf("accounts after two starts = %s (%v)", out, err)
		}
	})
}

func TestKeysLifecycleThroughCLI(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		ts := startServer(t, serverEnv(t, engine, nil))
		out, err := ts.cli(t, "accounts", "create", "--name", "Acme", "--plan", "starter", "--credits", "5", "--json")
		if err != nil {
			t.Fatalf("accounts create: %v\n%s", err, out)
		}
		var acct struct{ ID string }
		if err := json.Unmarshal([]byte(out), &acct); err != nil || acct.ID == "" {
			t.Fatalf("accounts create --json printed %q", out)
		}
		out, err = ts.cli(t, "keys", "create", "--account", acct.ID, "--permissions", "searches:read,topics:read", "--json")
		if err != nil {
			t.Fatalf("keys create: %v\n%s", err, out)
		}
		var key struct{ ID, Key string }
		if err := json.Unmarshal([]byte(out), &key); err != nil || !strings.HasPrefix(key.Key, "trawl_") {
			t.Fatalf("keys create --json printed %q", out)
		}
		c := ts.Client.WithKey(key.Key)
		if _, err := c.Usage(ctx, "", ""); err != nil {
			t.Fatalf("new key cannot call the API: %v", err)
		}
		out, err = ts.cli(t, "keys", "list", "--account", acct.ID)
		if err != nil || !strings.Contains(out, key.ID) || !strings.Contains(out, key.Key[:14]) || strings.Contains(out, key.Key) {
			t.Fatalf("keys list shows %q (%v); want the id and prefix but never the secret", out, err)
		}
		if out, err := ts.cli(t, "keys", "revoke", key.ID); err != nil {
			t.Fatalf("revoke: %v\n%s", err, out)
		}
		_, err = c.Usage(ctx, "", "")
		if apiErr, ok := err.(*client.APIError); !ok || apiErr.Status != 401 || apiErr.Code != "INVALID_API_KEY" {
			t.Fatalf("revoked key: err = %v, want 401 INVALID_API_KEY", err)
		}
	})
}

func TestCLIRejectsBadInput(t *testing.T) {
	env := serverEnv(t, store.SQLite, nil)
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"accounts", "create", "--name", "x", "--plan", "GOLD"}, "--plan"},
		{[]string{"keys", "create", "--account", "0190b1a0-0000-7000-8000-000000000000", "--permissions", "read:everything"}, "unknown permission"},
		{[]string{"keys", "create", "--account", "0190b1a0-0000-7000-8000-000000000000", "--permissions", "*"}, "not found"},
		{[]string{"keys", "revoke", "nope"}, "not found"},
		{[]string{"serve", "--addr", "nonsense"}, "TRAWL_ADDR"},
	}
	for _, c := range cases {
		out, err := runCLI(t, getenv, c.args...)
		if err == nil || !strings.Contains(err.Error()+out, c.want) {
			t.Errorf("trawl %s: err = %v, output %q; want an error mentioning %q", strings.Join(c.args, " "), err, out, c.want)
		}
	}
	bad := func(k string) string {
		if k == "TRAWL_RATE_LIMIT_STARTER" {
			return "0"
		}
		return env[k]
	}
	if _, err := runCLI(t, bad, "migrate"); err == nil || !strings.Contains(err.Error(), "TRAWL_RATE_LIMIT_STARTER") {
		t.Errorf("bad setting: err = %v, want it to name TRAWL_RATE_LIMIT_STARTER", err)
	}
	if out, err := runCLI(t, getenv, "version"); err != nil || !strings.HasPrefix(out, "trawl ") {
		t.Errorf("version = %q, %v", out, err)
	}
	if out, err := runCLI(t, getenv, "keys", "create", "--help"); err != nil || !strings.Contains(out, "--permissions") {
		t.Errorf("keys create --help = %q, %v", out, err)
	}
}

func TestAuthenticationErrors(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		ts := startServer(t, serverEnv(t, engine, nil))
		for _, c := range []struct {
			key, code string
		}{
			{"", "AUTH_REQUIRED"},
			{"trawl_0000000000000000000000000000000000000000000000000000000000000000", "INVALID_API_KEY"},
		} {
			r, err := ts.Client.WithKey(c.key).Do(ctx, http.MethodGet, "/v1/usage", nil)
			if err != nil {
				t.Fatal(err)
			}
			apiErr := r.Err()
			if apiErr == nil || apiErr.Status != 401 || apiErr.Code != c.code || !apiErr.HasField("header.x-api-key") || apiErr.Message == "" {
				t.Errorf("key %q: got %d %s", c.key, r.Status, r.Body)
			}
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil || body["success"] != false || body["message"] == "" {
				t.Errorf("error body %s lacks success:false and message", r.Body)
			}
		}
	})
}

func TestRateLimit(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, serverEnv(t, store.SQLite, map[string]string{"TRAWL_RATE_LIMIT_CUSTOM": "3"}))
	for i := 1; i <= 3; i++ {
		r, err := ts.Client.Do(ctx, http.MethodGet, "/v1/usage", nil)
		if err != nil || r.Status != 200 {
			t.Fatalf("request %d: %v %v", i, r.Status, err)
		}
		if r.Header.Get("RateLimit-Limit") != "3" || r.Header.Get("RateLimit-Remaining") != strconv.Itoa(3-i) || r.Header.Get("RateLimit-Reset") == "" {
			t.Fatalf("request %d: RateLimit headers = %v", i, r.Header)
		}
	}
	r, err := ts.Client.Do(ctx, http.MethodGet, "/v1/usage", nil)
	if err != nil {
		t.Fatal(err)
	}
	if apiErr := r.Err(); apiErr == nil || apiErr.Status != 429 || apiErr.Code != "RATE_LIMITED" {
		t.Fatalf("4th request = %d %s, want 429 RATE_LIMITED", r.Status, r.Body)
	}
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || secs < 1 || secs > 60 {
		t.Fatalf("Retry-After = %q", r.Header.Get("Retry-After"))
	}
	if e := r.Err(); e.RetryAfterSeconds == nil || *e.RetryAfterSeconds != int64(secs) {
		t.Fatalf("error.retryAfterSeconds of %s, want %d as Retry-After says", r.Body, secs)
	}
}

func TestUsageAndRequestIDs(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		ts := startServer(t, serverEnv(t, engine, nil))
		u, err := ts.Client.Usage(ctx, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(u.Period.Start, "-01T00:00:00.000Z") || u.Period.From != u.Period.Start || u.Period.To != u.Period.End {
			t.Errorf("default period = %+v", u.Period)
		}
		if len(u.Credits.ByFeature) != len(credits.Features()) || u.Credits.TotalConsumed != 0 {
			t.Errorf("credits = %+v", u.Credits)
		}
		u, err = ts.Client.Usage(ctx, "2026-01-01", "2026-02-01T00:00:00Z")
		if err != nil || u.Period.Start != "2026-01-01T00:00:00.000Z" || u.Period.End != "2026-02-01T00:00:00.000Z" {
			t.Errorf("explicit period = %+v, %v", u.Period, err)
		}
		for _, q := range []string{"?from=2026-03-01&to=2026-02-01", "?from=yesterday", "?to=2026-13-01"} {
			r, _ := ts.Client.Do(ctx, http.MethodGet, "/v1/usage"+q, nil)
			if e := r.Err(); e == nil || e.Status != 400 || e.Code != "VALIDATION_ERROR" || len(e.Details) == 0 || !strings.HasPrefix(e.Details[0].Field, "query.") {
				t.Errorf("usage%s = %d %s", q, r.Status, r.Body)
			}
		}

		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/healthz", nil)
		req.Header.Set("x-request-id", "trace-123")
		resp, err := ts.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Header.Get("x-request-id") != "trace-123" {
			t.Errorf("x-request-id not echoed: %q", resp.Header.Get("x-request-id"))
		}
		r, _ := ts.Client.Do(ctx, http.MethodGet, "/readyz", nil)
		if r.Status != 200 || len(r.Header.Get("x-request-id")) != 36 {
			t.Errorf("readyz = %d, generated request id %q", r.Status, r.Header.Get("x-request-id"))
		}
		r, _ = ts.Client.Do(ctx, http.MethodGet, "/v1/nothing-here", nil)
		if e := r.Err(); e == nil || e.Status != 404 || e.Code != "NOT_FOUND" {
			t.Errorf("unknown route = %d %s", r.Status, r.Body)
		}
		r, _ = ts.Client.Do(ctx, http.MethodGet, "/metrics", nil)
		if r.Status != 200 || !strings.Contains(string(r.Body), `trawl_http_requests_total{method="GET",route="GET /v1/usage",status="200"}`) {
			t.Errorf("metrics do not count requests:\n%.500s", r.Body)
		}
		if !strings.Contains(ts.Stderr.String(), `"msg":"request"`) {
			t.Errorf("no access-log line in %s", ts.Stderr)
		}
	})
}

func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	ts := startServer(t, serverEnv(t, store.SQLite, nil))
	r, err := ts.Client.Do(context.Background(), http.MethodGet, "/openapi.json", nil)
	if err != nil || r.Status != 200 {
		t.Fatalf("openapi.json: %v %v", r.Status, err)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
			Security  []any          `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("not an OpenAPI 3.1 document: %v", err)
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if !slices.ContainsFunc([]string{"200", "201", "202"}, func(code string) bool { _, ok := op.Responses[code]; return ok }) {
				t.Errorf("%s %s has no success response", method, path)
			}
			// Webhooks carry their secret in the URL's token, not an API key.
			if strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/v1/hooks/") {
				if len(op.Security) == 0 {
					t.Errorf("%s %s declares no security", method, path)
				}
				for _, code := range []string{"400", "401", "429", "500"} {
					if _, ok := op.Responses[code]; !ok {
						t.Errorf("%s %s lacks the %s response", method, path, code)
					}
				}
			}
		}
	}
	if _, ok := doc.Paths["/v1/usage"]["get"]; !ok {
		t.Errorf("GET /v1/usage missing from the document")
	}
}

// TestProcessWithAnotherSecretKeyRefused: a process whose secret key is not
// the one the database's secrets are sealed with (another data directory,
// no TRAWL_SECRET_KEY) refuses to start and says which setting to share,
// also on a database whose secrets were sealed before the check existed;
// given the first process's key, it starts.
func TestProcessWithAnotherSecretKeyRefused(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		env := serverEnv(t, engine, nil)
		first := startServer(t, env)
		mustDo(t, first.Client, http.MethodPost, "/v1/secrets", map[string]any{"name": "CRM_TOKEN", "value": "Bearer crm"}, 201)
		first.stop()

		other := maps.Clone(env)
		other["TRAWL_DATA_DIR"] = t.TempDir()
		serve := func(ctx context.Context, stdout *output) <-chan error {
			done := make(chan error, 1)
			go func() { done <- run(ctx, []string{"serve"}, func(k string) string { return other[k] }, stdout, stdout) }()
			return done
		}
		refused, stop := context.WithCancel(context.Background())
		defer stop()
		refuse := func(why string) {
			t.Helper()
			stdout := newOutput()
			select {
			case err := <-serve(refused, stdout):
				if err == nil || !strings.Contains(err.Error(), "TRAWL_SECRET_KEY") {
					t.Fatalf("%s: a process with another key did not say which setting to share: %v\n%s", why, err, stdout)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: a process with another key did not refuse to start:\n%s", why, stdout)
			}
		}
		refuse("the check stored")
		st, err := store.Open(t.Context(), env["TRAWL_DATABASE_URL"], time.Now)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.DB().ExecContext(t.Context(), `DELETE FROM settings WHERE name = 'secret_key_check'`)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		refuse("secrets sealed before the check existed")

		key, err := os.ReadFile(filepath.Join(env["TRAWL_DATA_DIR"], "secret-key"))
		if err != nil {
			t.Fatal(err)
		}
		other["TRAWL_SECRET_KEY"] = strings.TrimSpace(string(key))
		ctx, cancel := context.WithCancel(context.Background())
		stdout := newOutput()
		done := serve(ctx, stdout)
		stdout.waitFor(t, listeningRE, done)
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("a process with the first one's key: %v", err)
		}
	})
}

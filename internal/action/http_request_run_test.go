package action

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/netguard"
)

// loopbackDeps allows loopback explicitly, as TRAWL_ALLOW_PRIVATE_NETWORKS
// does for tests.
func loopbackDeps() Deps {
	g := netguard.Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}
	return Deps{HTTP: netguard.NewClient(g), Dial: g.Dialer().DialContext}
}

func secretsOf(m map[string]string) func(context.Context, string) (string, error) {
	return func(_ context.Context, name string) (string, error) {
		v, ok := m[name]
		if !ok {
			return "", errors.New("no such secret")
		}
		return v, nil
	}
}

// wantError checks err is an *Error of that code and retryability.
func wantError(t *testing.T, err error, code string, retryable bool) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != code || e.Retryable != retryable {
		t.Fatalf("got %v (%#v), want %s retryable=%v", err, e, code, retryable)
	}
	return e
}

const apiSecret = "s3cr3t-value-never-logged"

func runHTTP(t *testing.T, d Deps, in map[string]any) (map[string]any, error) {
	t.Helper()
	return Executors(d)[KindHTTPRequest](context.Background(), Call{
		Inputs: in, IdempotencyKey: "exec-1/step-2",
		Secret: secretsOf(map[string]string{"CRM_TOKEN": apiSecret}),
	})
}

func TestHTTPRequestSendsAndParses(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != "POST" || r.Header.Get("Idempotency-Key") != "exec-1/step-2" ||
			r.Header.Get("X-Api-Key") != apiSecret || r.Header.Get("X-Plain") != "p" ||
			r.Header.Get("Content-Type") != "application/json" ||
			r.URL.Query().Get("a") != "1" || r.URL.Query().Get("b") != "2" || r.URL.Query().Get("n") != "1500000" ||
			string(body) != `{"x":[1,"y"]}` {
			t.Errorf("request: %s %s %v %s", r.Method, r.URL, r.Header, body)
		}
		// An echoing server: the secret must not reach the output.
		w.Header().Set("X-Echo", "key="+r.Header.Get("X-Api-Key"))
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "seen": r.Header.Get("X-Api-Key"), apiSecret: 1})
	}))
	defer s.Close()
	out, err := runHTTP(t, loopbackDeps(), map[string]any{
		"method": "post", "url": s.URL + "/hook?a=1",
		"headers":        map[string]any{"X-Plain": "p"},
		"secret_headers": map[string]any{"X-Api-Key": "CRM_TOKEN"},
		"query":          map[string]any{"b": "2", "n": 1.5e6},
		"body":           map[string]any{"x": []any{1, "y"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out["status"] != 200 {
		t.Errorf("status %v", out["status"])
	}
	headers := out["headers"].(map[string]any)
	if headers["x-echo"] != "key=[secret]" || headers["content-type"] != "application/json; charset=utf-8" {
		t.Errorf("headers %v", headers)
	}
	body, ok := out["body"].(map[string]any)
	if !ok || body["ok"] != true || body["seen"] != "[secret]" {
		t.Errorf("body %#v", out["body"])
	}
	raw, _ := json.Marshal(out)
	if strings.Contains(string(raw), apiSecret) {
		t.Errorf("the secret is in the output: %s", raw)
	}
}

func TestHTTPRequestTextBody(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != "GET" || r.Header.Get("Content-Type") != "" || string(body) != "raw text" {
			t.Errorf("request %s %v %q", r.Method, r.Header, body)
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(`{"not":"parsed"}`))
	}))
	defer s.Close()
	out, err := runHTTP(t, loopbackDeps(), map[string]any{"url": s.URL, "body": "raw text"})
	if err != nil {
		t.Fatal(err)
	}
	if out["body"] != `{"not":"parsed"}` {
		t.Errorf("body %#v", out["body"])
	}
}

func statusServer(t *testing.T, code int) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		w.Write([]byte("no"))
	}))
	t.Cleanup(s.Close)
	return s
}

func TestHTTPRequestStatuses(t *testing.T) {
	for _, code := range []int{500, 503, 429} {
		_, err := runHTTP(t, loopbackDeps(), map[string]any{"url": statusServer(t, code).URL})
		wantError(t, err, CodeUpstream, true)
	}
	// 4xx is the workflow's to judge, not an error.
	out, err := runHTTP(t, loopbackDeps(), map[string]any{"url": statusServer(t, 404).URL})
	if err != nil || out["status"] != 404 || out["body"] != "no" {
		t.Fatalf("got %v, %v", out, err)
	}
}

func TestHTTPRequestBlocked(t *testing.T) {
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer s.Close()
	// Deps without exceptions: the default guard.
	for _, u := range []string{s.URL, strings.Replace(s.URL, "127.0.0.1", "localhost", 1)} {
		_, err := runHTTP(t, Deps{}, map[string]any{"url": u})
		wantError(t, err, CodeBlocked, false)
	}
	if hits.Load() != 0 {
		t.Fatal("the server was reached")
	}
}

func TestHTTPRequestTimeoutAndCap(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(300 * time.Millisecond)
		}
		w.Write(make([]byte, maxResponseBody+1))
	}))
	defer s.Close()
	_, err := runHTTP(t, loopbackDeps(), map[string]any{"url": s.URL + "/slow", "timeout": 50.0})
	wantError(t, err, CodeTimeout, true)
	_, err = runHTTP(t, loopbackDeps(), map[string]any{"url": s.URL + "/big"})
	wantError(t, err, CodeUpstream, false)
}

func TestHTTPRequestMissingSecret(t *testing.T) {
	_, err := runHTTP(t, loopbackDeps(), map[string]any{"url": "http://127.0.0.1:1/",
		"secret_headers": map[string]any{"Authorization": "NOPE"}})
	wantError(t, err, CodeSecret, false)
}

// TestHTTPRequestSecretStaysHome: a secret header reaches the server the
// definition names and a redirect on that server, but not a server on
// another port it redirects to; the plain header goes to both.
func TestHTTPRequestSecretStaysHome(t *testing.T) {
	var secondSaw, secondPlain atomic.Value
	second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secondSaw.Store(r.Header.Get("X-Api-Token"))
		secondPlain.Store(r.Header.Get("X-Plain"))
		w.Write([]byte("second"))
	}))
	defer second.Close()
	var (
		mu       sync.Mutex
		firstSaw []string
	)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		firstSaw = append(firstSaw, r.URL.Path+"="+r.Header.Get("X-Api-Token"))
		mu.Unlock()
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, second.URL+"/", http.StatusFound)
		case "/home":
			http.Redirect(w, r, "/landed", http.StatusFound)
		default:
			w.Write([]byte("first"))
		}
	}))
	defer first.Close()
	in := func(path string) map[string]any {
		return map[string]any{"url": first.URL + path, "headers": map[string]any{"X-Plain": "p"},
			"secret_headers": map[string]any{"X-Api-Token": "CRM_TOKEN"}}
	}

	out, err := runHTTP(t, loopbackDeps(), in("/away"))
	if err != nil || out["body"] != "second" {
		t.Fatalf("got %v, %v", out, err)
	}
	if secondSaw.Load() != "" || secondPlain.Load() != "p" {
		t.Errorf("the other server got the secret header %q and the plain one %q", secondSaw.Load(), secondPlain.Load())
	}
	out, err = runHTTP(t, loopbackDeps(), in("/home"))
	if err != nil || out["body"] != "first" {
		t.Fatalf("got %v, %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"/away=" + apiSecret, "/home=" + apiSecret, "/landed=" + apiSecret}; !slices.Equal(firstSaw, want) {
		t.Errorf("the first server saw %q, want %q", firstSaw, want)
	}
}

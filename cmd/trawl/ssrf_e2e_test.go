package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// listenCounting serves on addr and counts the requests that arrive.
func listenCounting(t *testing.T, addr string, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	var hits atomic.Int32
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if h != nil {
			h(w, r)
		}
	}))
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return s, &hits
}

func portOf(t *testing.T, s *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// TestSSRFRefusedEndToEnd drives http_request from a published webhook
// workflow at loopback targets: literal addresses, localhost (a name
// that resolves to loopback), IPv4-mapped and unspecified forms, and
// redirects from the one allowed server (other ranges are unit tests of
// internal/netguard, which send no packet to them). TRAWL_ALLOW_PRIVATE_NETWORKS lists
// only that server's address (127.0.0.3/32); every other target listens,
// counts what arrives, and must receive nothing.
func TestSSRFRefusedEndToEnd(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		allowed, allowedHits := listenCounting(t, "127.0.0.3:0", func(w http.ResponseWriter, r *http.Request) {
			if to := r.URL.Query().Get("to"); to != "" {
				http.Redirect(w, r, to, http.StatusFound)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"reached": true}`))
		})
		v4, v4Hits := listenCounting(t, "127.0.0.1:0", nil)
		v4b, v4bHits := listenCounting(t, "127.0.0.2:0", nil)
		v6, v6Hits := listenCounting(t, "[::1]:0", nil)
		p1, p2, p6 := portOf(t, v4), portOf(t, v4b), portOf(t, v6)

		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_ALLOW_PRIVATE_NETWORKS": "127.0.0.3/32"}))
		c := ts.Client
		def := `{"trigger":{"kind":"workflows/webhook"},
			"actions":[{"id":"call","kind":"http_request","inputs":{"url":"{{ trigger.url }}"}}],
			"edges":[{"from":"$source","to":"call"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "ssrf", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		hook := func(target string) (string, executionView) {
			t.Helper()
			body, _ := json.Marshal(map[string]string{"url": target})
			st, out := postHook(t, ts.HTTP, *w.WebhookURL+"?wait=true", http.Header{}, body)
			data, _ := out["data"].(map[string]any)
			id, _ := data["execution_id"].(string)
			if st != 200 || id == "" {
				t.Fatalf("hook with %s: %d %v", target, st, out)
			}
			return data["status"].(string), execution(t, c, w.ID, id)
		}

		if status, x := hook(allowed.URL + "/ok"); status != "completed" || x.Steps[0].Output.(map[string]any)["status"] != float64(200) {
			t.Fatalf("the allowed server: %s %+v", status, x.Steps)
		}
		redirect := func(to string) string { return allowed.URL + "/?to=" + url.QueryEscape(to) }
		for target, addr := range map[string]string{
			"http://127.0.0.1:" + p1 + "/admin":           "127.0.0.1",
			"http://127.0.0.2:" + p2 + "/admin":           "127.0.0.2",
			"http://localhost:" + p1 + "/admin":           "127.0.0.1",
			"http://[::1]:" + p6 + "/admin":               "::1",
			"http://[::ffff:127.0.0.1]:" + p1 + "/admin":  "127.0.0.1",
			"http://0.0.0.0:" + p1 + "/admin":             "0.0.0.0",
			redirect("http://127.0.0.1:" + p1 + "/admin"): "127.0.0.1",
			redirect("http://127.0.0.2:" + p2 + "/admin"): "127.0.0.2",
			redirect("http://localhost:" + p1 + "/admin"): "127.0.0.1",
			redirect("http://[::1]:" + p6 + "/admin"):     "::1",
		} {
			status, x := hook(target)
			step := x.Steps[0]
			if status != "failed" || step.Status != "failed" || step.Error == nil || step.Error.Code != "ADDRESS_BLOCKED" ||
				!strings.Contains(step.Error.Message, "address "+addr+" is not a public address") {
				t.Errorf("%s: %s %+v, want ADDRESS_BLOCKED naming %s", target, status, step, addr)
			}
			if x.Error == nil || !strings.Contains(*x.Error, "ADDRESS_BLOCKED") {
				t.Errorf("%s: execution error %v", target, x.Error)
			}
		}
		if n := v4Hits.Load() + v4bHits.Load() + v6Hits.Load(); n != 0 {
			t.Fatalf("refused targets received %d requests (127.0.0.1 %d, 127.0.0.2 %d, ::1 %d)", n, v4Hits.Load(), v4bHits.Load(), v6Hits.Load())
		}
		if n := allowedHits.Load(); n != 5 {
			t.Fatalf("the allowed server answered %d requests, want 1 + 4 redirects", n)
		}
	})
}

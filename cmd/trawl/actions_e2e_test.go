package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// TestHTTPRequestAction drives http_request through a test run: retries
// with one idempotency key, secret headers sent but never shown, and the
// guard refusing a private address that TRAWL_ALLOW_PRIVATE_NETWORKS does
// not list.
func TestHTTPRequestAction(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		var (
			mu    sync.Mutex
			keys  []string
			auths []string
		)
		ln, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			t.Skipf("cannot listen on 127.0.0.2: %v", err)
		}
		crm := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			keys, auths = append(keys, r.Header.Get("Idempotency-Key")), append(auths, r.Header.Get("Authorization"))
			if len(keys) == 1 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id": "lead-1", "q": "` + r.URL.Query().Get("src") + `"}`))
		}))
		crm.Listener = ln
		crm.Start()
		defer crm.Close()

		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_ALLOW_PRIVATE_NETWORKS": "127.0.0.2/32"}))
		c := ts.Client
		mustDo(t, c, http.MethodPost, "/v1/secrets", map[string]any{"name": "CRM_TOKEN", "value": "Bearer crm-secret-value"}, 201)
		def := map[string]any{
			"actions": []any{
				map[string]any{"id": "push", "kind": "http_request", "retry": map[string]any{"max_attempts": 3},
					"inputs": map[string]any{"method": "POST", "url": crm.URL + "/leads", "query": map[string]any{"src": "{{ trigger.source }}"},
						"secret_headers": map[string]any{"Authorization": "CRM_TOKEN"}, "body": map[string]any{"text": "{{ trigger.text }}"}}},
				map[string]any{"id": "local", "kind": "http_request", "inputs": map[string]any{"url": "http://127.0.0.1:9/x"}},
			},
			"edges": []any{map[string]any{"from": "$source", "to": "push"}, map[string]any{"from": "push", "to": "local"}},
		}
		w := createWorkflow(t, c, map[string]any{"name": "crm", "workflow": def})
		x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"source": "test"}}), ended)

		push := x.Steps[0]
		out, _ := push.Output.(map[string]any)
		body, _ := out["body"].(map[string]any)
		if push.Status != "completed" || out["status"] != float64(200) || body["id"] != "lead-1" || body["q"] != "test" {
			t.Fatalf("push step %+v", push)
		}
		mu.Lock()
		if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] || auths[1] != "Bearer crm-secret-value" {
			t.Fatalf("the CRM saw keys %q and auth %q", keys, auths)
		}
		mu.Unlock()
		raw := mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions/"+x.ID, nil, 200).Body
		var attempts struct {
			Data struct {
				Steps []struct {
					Attempts []json.RawMessage `json:"attempts"`
				} `json:"steps"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &attempts); err != nil || len(attempts.Data.Steps[0].Attempts) != 2 {
			t.Fatalf("attempts of push: %s", raw)
		}
		for _, text := range []string{string(raw), ts.Stderr.String()} {
			if strings.Contains(text, "crm-secret-value") {
				t.Fatal("the secret value appeared in an answer or a log line")
			}
		}
		local := x.Steps[1]
		if x.Status != "failed" || local.Status != "failed" || local.Error == nil || local.Error.Code != "ADDRESS_BLOCKED" {
			t.Fatalf("a loopback call was not refused: %s %+v", x.Status, local)
		}
	})
}

// TestLookupActions runs the connector-backed actions against the
// sandbox: a microblog account, a pronet post's comments (1 credit), and
// a post reference that is not one.
func TestLookupActions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		def := `{"actions":[{"id":"user","kind":"microblog_get_user","inputs":{"username":"@jack"}},
			{"id":"comments","kind":"pronet_get_post_comments","inputs":{"post_urn":"{{ trigger.post }}"}}],
			"edges":[{"from":"$source","to":"user"},{"from":"user","to":"comments"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "lookups", "workflow": json.RawMessage(def)})
		run := func(post string) executionView {
			mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"workflow": json.RawMessage(strings.Replace(def, "{{ trigger.post }}", post, 1))}, 200)
			return waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{}), ended)
		}
		x := run("7263450183458918400")
		user, _ := x.Steps[0].Output.(map[string]any)
		comments, _ := x.Steps[1].Output.(map[string]any)
		if x.Status != "completed" || user["username"] != "jack" || user["profile_url"] != "https://x.com/jack" {
			t.Fatalf("user step %+v", x.Steps[0])
		}
		if n, _ := comments["count"].(float64); n < 1 || len(comments["comments"].([]any)) != int(n) {
			t.Fatalf("comments step %+v", x.Steps[1])
		}
		bad := run("not-a-post")
		if bad.Status != "failed" || bad.Steps[1].Error == nil || bad.Steps[1].Error.Code != "INVALID_INPUT" {
			t.Fatalf("a post that is not one: %s %+v", bad.Status, bad.Steps[1])
		}
	})
}

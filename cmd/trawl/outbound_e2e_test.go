package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// TestSecretHeadersStayHome drives http_request with a secret header from
// a webhook workflow at two loopback servers on different ports (two
// origins; TRAWL_ALLOW_PRIVATE_NETWORKS lets both through): the first
// redirects to the second, or to itself, and each records the secret
// header it received.
func TestSecretHeadersStayHome(t *testing.T) {
	const token = "crm-token-for-the-first-server-only"
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		var (
			mu   sync.Mutex
			seen []string
		)
		record := func(who string, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, who+r.URL.Path+"="+r.Header.Get("X-Api-Token"))
		}
		second, _ := listenCounting(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
			record("second", r)
			w.Write([]byte("second"))
		})
		first, _ := listenCounting(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
			record("first", r)
			switch r.URL.Path {
			case "/away":
				http.Redirect(w, r, second.URL+"/landed", http.StatusFound)
			case "/home":
				http.Redirect(w, r, "/landed", http.StatusFound)
			default:
				w.Write([]byte("first"))
			}
		})

		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_ALLOW_PRIVATE_NETWORKS": "127.0.0.1/32"}))
		c := ts.Client
		mustDo(t, c, http.MethodPost, "/v1/secrets", map[string]any{"name": "CRM_TOKEN", "value": token}, 201)
		def := `{"trigger":{"kind":"workflows/webhook"},
			"actions":[{"id":"call","kind":"http_request","inputs":{"url":"{{ trigger.url }}","secret_headers":{"X-Api-Token":"CRM_TOKEN"}}}],
			"edges":[{"from":"$source","to":"call"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "secret", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		for target, want := range map[string]string{first.URL + "/away": "second", first.URL + "/home": "first"} {
			body, _ := json.Marshal(map[string]string{"url": target})
			st, out := postHook(t, *w.WebhookURL+"?wait=true", http.Header{}, body)
			data, _ := out["data"].(map[string]any)
			if output, _ := data["output"].(map[string]any); st != 200 || data["status"] != "completed" || output["body"] != want {
				t.Fatalf("%s: %d %v, want completed with the body of %s", target, st, out, want)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(seen)
		want := []string{"first/away=" + token, "first/home=" + token, "first/landed=" + token, "second/landed="}
		if !slices.Equal(seen, want) {
			t.Fatalf("the servers saw %q, want %q", seen, want)
		}
	})
}

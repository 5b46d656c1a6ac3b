package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/trawlhq/trawl/client"
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
			st, out := postHook(t, ts.HTTP, *w.WebhookURL+"?wait=true", http.Header{}, body)
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

// TestNULRefusedInTextFields sends the NUL character (JSON's \u0000, a
// URL's %00) in a search keyword, a workflow's name, its steps, a query
// parameter and path parameters: each answer is a 400 naming the field,
// on both engines (PostgreSQL would fail to store or compare it), and
// nothing is created.
func TestNULRefusedInTextFields(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		s := createSearch(t, c, map[string]any{"name": "kept", "keywords": []string{"crm"}, "max_results": 10})
		for _, tc := range []struct {
			method, path, body string
			want               []client.Detail
		}{
			{http.MethodPost, "/v1/searches/microblog/posts", `{"name": "x", "keywords": ["crm", "a\u0000b"], "max_results": 10}`,
				[]client.Detail{{Field: "body.keywords[1]", Pointer: "/keywords/1", Message: "must not contain the NUL character"}}},
			{http.MethodPost, "/v1/searches/microblog/posts/preview", `{"keywords": ["\u0000"]}`,
				[]client.Detail{{Field: "body.keywords[0]", Pointer: "/keywords/0", Message: "must not contain the NUL character"}}},
			{http.MethodPost, "/v1/workflows", `{"name": "nul\u0000", "workflow": {"actions": [{"id": "s", "kind": "builtin:set",
				"inputs": {"values": {"a/b": "x\u0000"}}}], "edges": [{"from": "$source", "to": "s"}]}}`,
				[]client.Detail{{Field: "body.name", Pointer: "/name", Message: "must not contain the NUL character"},
					{Field: "body.workflow.actions[0].inputs.values.a/b", Pointer: "/workflow/actions/0/inputs/values/a~1b", Message: "must not contain the NUL character"}}},
			{http.MethodPatch, "/v1/searches/" + s.ID, `{"name": "\u0000"}`,
				[]client.Detail{{Field: "body.name", Pointer: "/name", Message: "must not contain the NUL character"}}},
			{http.MethodGet, "/v1/searches/" + s.ID + "/results?company=a%00b&job_title=cto", "",
				[]client.Detail{{Field: "query.company", Message: "must not contain the NUL character"}}},
			{http.MethodGet, "/v1/searches/" + s.ID + "%00", "",
				[]client.Detail{{Field: "path.id", Message: "must not contain the NUL character"}}},
		} {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			e := mustDo(t, c, tc.method, tc.path, body, 400).Err()
			if e.Code != "VALIDATION_ERROR" || !slices.Equal(e.Details, tc.want) {
				t.Errorf("%s %s: %s %+v, want VALIDATION_ERROR %+v", tc.method, tc.path, e.Code, e.Details, tc.want)
			}
		}
		// A webhook's token is a path parameter too; no key is needed to
		// send one.
		if st, out := postHook(t, ts.HTTP, ts.URL+"/v1/hooks/a%00b", http.Header{}, []byte(`{}`)); st != 400 || !strings.Contains(fmt.Sprint(out), "path.token") {
			t.Errorf("webhook token with NUL: %d %v", st, out)
		}

		if got := getSearch(t, c, s.ID); got.Name != "kept" {
			t.Errorf("the search was renamed to %q", got.Name)
		}
		u, err := c.Usage(context.Background(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		var workflows struct {
			Pagination struct {
				TotalCount int64 `json:"total_count"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/workflows", nil, 200).Body, &workflows); err != nil {
			t.Fatal(err)
		}
		if u.Monitors.Total != 1 || u.Credits.TotalConsumed != 1 || workflows.Pagination.TotalCount != 0 {
			t.Fatalf("after refused requests: %d monitors, %d credits spent, %d workflows; want the one search and its credit only",
				u.Monitors.Total, u.Credits.TotalConsumed, workflows.Pagination.TotalCount)
		}
	})
}

// TestNULInWebhookPayload: a third party's webhook payload is its data,
// NUL included: it is stored, and the execution runs and sees the
// string as sent, waited for or run by a worker. An http_request step
// whose server answers with NUL in its JSON keeps it in its output.
func TestNULInWebhookPayload(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		upstream, _ := listenCounting(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"reply": "up\u0000stream"}`))
		})
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_ALLOW_PRIVATE_NETWORKS": "127.0.0.1/32"}))
		c := ts.Client
		def := `{"trigger":{"kind":"workflows/webhook"},
			"actions":[{"id":"call","kind":"http_request","inputs":{"url":"` + upstream.URL + `"}},
			           {"id":"echo","kind":"builtin:set","inputs":{"values":{"note":"{{ trigger.note }}","reply":"{{ steps.call.output.body.reply }}"}}}],
			"edges":[{"from":"$source","to":"call"},{"from":"call","to":"echo"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "nul hook", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		body := []byte(`{"note": "a\u0000b", "list": ["\u0000"]}`)
		check := func(id string, x executionView) {
			t.Helper()
			if x.Status != "completed" || x.Trigger["note"] != "a\x00b" || fmt.Sprint(x.Trigger["list"]) != "[\x00]" {
				t.Fatalf("execution %s: %s, trigger %q, steps %s", id, x.Status, x.Trigger, x.keys())
			}
			if out, _ := x.Steps[len(x.Steps)-1].Output.(map[string]any); out["note"] != "a\x00b" || out["reply"] != "up\x00stream" {
				t.Fatalf("execution %s: the last step's output is %q", id, x.Steps[len(x.Steps)-1].Output)
			}
		}

		// A parameter the sender adds to the URL is its own, NUL or not.
		st, out := postHook(t, ts.HTTP, *w.WebhookURL+"?wait=true&ref=a%00b", http.Header{}, body)
		data, _ := out["data"].(map[string]any)
		waited, _ := data["execution_id"].(string)
		if output, _ := data["output"].(map[string]any); st != 200 || data["status"] != "completed" || output["note"] != "a\x00b" {
			t.Fatalf("waited hook: %d %q", st, out)
		}
		check(waited, execution(t, c, w.ID, waited))

		st, out = postHook(t, ts.HTTP, *w.WebhookURL, http.Header{}, body)
		queued, _ := out["data"].(map[string]any)["execution_id"].(string)
		if st != 202 || queued == "" {
			t.Fatalf("queued hook: %d %q", st, out)
		}
		check(queued, waitExecution(t, ts, c, w.ID, queued, ended))

		// A step that fails on the string quotes it in its error: the
		// execution still ends, failed, its step's error whole.
		def = `{"trigger":{"kind":"workflows/webhook"},
			"actions":[{"id":"n","kind":"builtin:set","inputs":{"values":{"n":"{{ int(trigger.note) }}"}}}],
			"edges":[{"from":"$source","to":"n"}]}`
		w = createWorkflow(t, c, map[string]any{"name": "nul fails", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		for _, wait := range []string{"?wait=true", ""} {
			_, out := postHook(t, ts.HTTP, *w.WebhookURL+wait, http.Header{}, body)
			id, _ := out["data"].(map[string]any)["execution_id"].(string)
			x := waitExecution(t, ts, c, w.ID, id, ended)
			if x.Status != "failed" || x.Error == nil || !strings.Contains(*x.Error, "int(a\uFFFDb)") ||
				x.Steps[0].Error == nil || !strings.Contains(x.Steps[0].Error.Message, "int(a\x00b)") {
				t.Fatalf("failing step (wait %q): %s %v %+v", wait, x.Status, x.Error, x.Steps)
			}
		}
	})
}

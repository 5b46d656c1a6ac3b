package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestWriteTimeoutSparesLongAnswers: the write timeout bounds how long a
// client takes to receive, not how long the answer takes to start (a
// webhook with ?wait=true) or a stream that keeps flushing (a CSV export)
// lasts. A timeout is the network's time, so the handlers spend real time,
// a few times the short timeout; nothing is measured.
func TestWriteTimeoutSparesLongAnswers(t *testing.T) {
	const timeout = 100 * time.Millisecond
	handlers := map[string]http.HandlerFunc{
		"late answer": func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(4 * timeout)
			io.WriteString(w, "done")
		},
		"long stream": func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			for range 8 {
				io.WriteString(w, "row\n")
				if err := rc.Flush(); err != nil {
					t.Errorf("flush: %v", err)
					return
				}
				time.Sleep(timeout / 2)
			}
			io.WriteString(w, "done")
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(observe(slog.New(slog.DiscardHandler), newMetrics(), time.Now, timeout, h))
			// As app's server: its own deadline starts with the request.
			srv.Config.WriteTimeout = timeout
			srv.Start()
			defer srv.Close()
			resp, err := http.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil || !strings.HasSuffix(string(body), "done") {
				t.Fatalf("answer cut short: %q, %v", body, err)
			}
		})
	}
}

// Every operation that takes a body says in the document that it may
// answer 413 and 408: both come before its handler, from any route.
func TestBodyErrorsAreDocumented(t *testing.T) {
	ts := newDocsServer(t)
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody any                        `json:"requestBody"`
			Responses   map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(getDocs(t, ts, http.MethodGet, "/openapi.json", true).body), &doc); err != nil {
		t.Fatal(err)
	}
	withBody := 0
	for p, ops := range doc.Paths {
		for method, op := range ops {
			if op.RequestBody == nil {
				continue
			}
			withBody++
			for _, status := range []string{"413", "408"} {
				if _, ok := op.Responses[status]; !ok {
					t.Errorf("%s %s takes a body but does not document %s", strings.ToUpper(method), p, status)
				}
			}
		}
	}
	if withBody < 20 {
		t.Errorf("only %d operations with a body were found; the document was not read as expected", withBody)
	}
}

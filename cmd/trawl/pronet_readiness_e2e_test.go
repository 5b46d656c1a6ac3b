package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// TestPronetKeyRejectedAtStart: with a pronet key the vendor rejects, the service starts, logs
// the provider and the reason once (never the key), answers /readyz 503 naming the provider and
// why, and the microblog side works.
func TestPronetKeyRejectedAtStart(t *testing.T) {
	const key = "invalid-SECRETSECRET"
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"success":false,"message":"Invalid API key"}`)
	}))
	defer upstream.Close()
	ts := startServer(t, serverEnv(t, store.SQLite, map[string]string{
		"TRAWL_PRONET_API_URL": upstream.URL,
		"TRAWL_PRONET_API_KEY": key,
	}))
	ctx := context.Background()

	r, err := ts.Client.Do(ctx, http.MethodGet, "/readyz", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "pronet provider sandbox: key rejected (401 Invalid API key)."
	if e := r.Err(); e == nil || e.Status != http.StatusServiceUnavailable || e.Code != "UNAVAILABLE" || e.Message != want {
		t.Errorf("readyz = %d %s, want 503 UNAVAILABLE %q", r.Status, r.Body, want)
	}
	if r, _ := ts.Client.Do(ctx, http.MethodGet, "/healthz", nil); r.Status != http.StatusOK {
		t.Errorf("healthz = %d", r.Status)
	}
	// The microblog side works with the pronet key rejected.
	s := createSearch(t, ts.Client, map[string]any{"name": "CRM watch", "keywords": []string{"CRM"}})
	mustDo(t, ts.Client, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, http.StatusOK)

	logs := ts.Stderr.String() + ts.Stdout.String()
	if strings.Contains(logs, "SECRETSECRET") {
		t.Errorf("the key is in the output:\n%s", logs)
	}
	if n := strings.Count(logs, `"msg":"pronet provider check failed`); n != 1 ||
		!strings.Contains(logs, `"provider":"sandbox","reason":"key rejected (401 Invalid API key)"`) {
		t.Errorf("want one error naming the provider and the reason, %d in:\n%s", n, logs)
	}
}

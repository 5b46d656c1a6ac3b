package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// TestReadyzPronetProvider: /readyz answers 503 naming the provider and why while its key is
// rejected, 200 once the key is good, and asks the vendor again only after the interval.
func TestReadyzPronetProvider(t *testing.T) {
	const key = "invalid-SECRETSECRET"
	var accepted atomic.Bool
	var checks atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		checks.Add(1)
		if !accepted.Load() {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"success":false,"message":"Invalid API key"}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"success":false,"message":"Profile not found"}`)
	}))
	defer upstream.Close()

	var mu sync.Mutex
	now := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	noSleep := func(context.Context, time.Duration) error { return nil }
	provider := pronet.Limit(pronet.New(pronet.Config{BaseURL: upstream.URL, APIKey: key, Sleep: noSleep}), pronet.Limits{})
	ready := pronet.NewReadiness(provider, pronet.ReadinessConfig{Secret: key, Now: clock})
	if err := ready.Check(context.Background()); err == nil {
		t.Fatal("the start-up check passed with a rejected key")
	}
	srv := New(Deps{Config: &config.Config{}, Store: storetest.Open(t, store.SQLite, nil),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock, Pronet: provider, PronetReadiness: ready})
	readyz := func() (int, string) {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		var body struct {
			Error struct {
				Code, Message string
			} `json:"error"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		return rec.Code, body.Error.Code + " " + body.Error.Message
	}

	want := "UNAVAILABLE pronet provider sandbox: key rejected (401 Invalid API key)."
	for range 3 {
		if code, msg := readyz(); code != http.StatusServiceUnavailable || msg != want {
			t.Fatalf("readyz = %d %q, want 503 %q", code, msg, want)
		}
	}
	if n := checks.Load(); n != 1 {
		t.Errorf("the vendor was asked %d times within the interval, want once (at start)", n)
	}
	// The key is fixed at the vendor: ready after the interval, without a restart.
	accepted.Store(true)
	if code, _ := readyz(); code != http.StatusServiceUnavailable {
		t.Errorf("readyz = %d before the interval, want 503", code)
	}
	advance(pronet.RecheckInterval)
	if code, msg := readyz(); code != http.StatusOK {
		t.Errorf("readyz = %d %q after the interval, want 200", code, msg)
	}
	if n := checks.Load(); n != 2 {
		t.Errorf("the vendor was asked %d times, want 2", n)
	}

	// Without a readiness (no provider check), /readyz is the database's alone.
	plain := New(Deps{Config: &config.Config{}, Store: storetest.Open(t, store.SQLite, nil),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock, Pronet: provider})
	rec := httptest.NewRecorder()
	plain.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("readyz without a provider check = %d", rec.Code)
	}
}

// TestPronetLimitMetrics: the limiter's counters are on /metrics, by provider.
func TestPronetLimitMetrics(t *testing.T) {
	provider := pronet.Limit(pronet.New(pronet.Config{BaseURL: "http://127.0.0.1:1", APIKey: "k"}), pronet.Limits{Rate: 5})
	srv := New(Deps{Config: &config.Config{}, Store: storetest.Open(t, store.SQLite, nil),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Pronet: provider})
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, series := range []string{`trawl_pronet_limit_waits_total{provider="sandbox"} 0`, `trawl_pronet_limit_wait_seconds_total{provider="sandbox"} 0`,
		`trawl_pronet_rate_limited_total{provider="sandbox"} 0`, `trawl_pronet_limit_retries_total{provider="sandbox"} 0`} {
		if !strings.Contains(rec.Body.String(), series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}

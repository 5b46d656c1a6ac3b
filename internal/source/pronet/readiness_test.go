package pronet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

func TestCheckReason(t *testing.T) {
	expired, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"401 with message", context.Background(), fmt.Errorf("check: %w", &source.UpstreamError{Source: "x", Status: 401, Err: errors.New("Invalid API key")}), "key rejected (401 Invalid API key)"},
		{"403 without message", context.Background(), &source.UpstreamError{Source: "x", Status: 403, Err: errors.New("")}, "key rejected (403 Forbidden)"},
		{"5xx", context.Background(), &source.UpstreamError{Source: "x", Status: 502, Err: errors.New("gave up after 3 attempts: bad gateway")}, "failed (502 gave up after 3 attempts: bad gateway)"},
		{"transport", context.Background(), &source.UpstreamError{Source: "x", Err: errors.New("connection refused")}, "unreachable (connection refused)"},
		{"deadline", expired, &source.UpstreamError{Source: "x", Err: context.DeadlineExceeded}, "no answer in time"},
		{"unsupported", context.Background(), Unsupported("apify", "check"), "cannot check the key: apify: check: not supported by the pronet provider"},
		{"other", context.Background(), errors.New("boom"), "failed (boom)"},
		{"long message", context.Background(), &source.UpstreamError{Source: "x", Status: 401, Err: errors.New(strings.Repeat("a", 500))}, "key rejected (401 " + strings.Repeat("a", 200) + "…)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := CheckReason(tc.ctx, tc.err); got != tc.want {
				t.Errorf("CheckReason = %q, want %q", got, tc.want)
			}
		})
	}
}

// keyServer speaks the contract and accepts only the key in good; it repeats a wrong key in its
// message, as a careless vendor might.
func keyServer(t *testing.T, good *atomic.Value) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-api-key")
		if key != good.Load().(string) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"success":false,"message":"Invalid API key %s"}`, key)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"success":false,"message":"Profile not found"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestReadiness: a wrong key is a CheckError naming the provider, without the key; Ready asks
// again only after the interval, and a fixed key recovers.
func TestReadiness(t *testing.T) {
	const key = "invalid-SECRETSECRET"
	var good atomic.Value
	good.Store("another")
	srv := keyServer(t, &good)
	clock := newFakeClock()
	var logs bytes.Buffer
	noSleep := func(context.Context, time.Duration) error { return nil }
	c := New(Config{BaseURL: srv.URL, APIKey: key, Sleep: noSleep})
	r := NewReadiness(Limit(c, Limits{Rate: 1}), ReadinessConfig{Secret: key, Now: clock.Now, Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	ctx := context.Background()

	err := r.Check(ctx)
	var ce *CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("Check = %v, want a CheckError", err)
	}
	want := "pronet provider sandbox: key rejected (401 Invalid API key [key])"
	if err.Error() != want {
		t.Errorf("Check = %q, want %q", err, want)
	}
	// The vendor accepts the key now; Ready answers the old result until the interval passes.
	good.Store(key)
	clock.t = clock.t.Add(RecheckInterval - time.Second)
	if err := r.Ready(ctx); err == nil {
		t.Error("Ready asked again before the interval")
	}
	clock.t = clock.t.Add(time.Second)
	if err := r.Ready(ctx); err != nil {
		t.Errorf("Ready after the interval = %v, want nil", err)
	}
	// A key revoked later shows at the next interval.
	good.Store("rotated")
	clock.t = clock.t.Add(RecheckInterval)
	if err := r.Ready(ctx); err == nil || err.Error() != want {
		t.Errorf("Ready = %v, want %q", err, want)
	}
	if strings.Contains(logs.String(), "SECRETSECRET") {
		t.Errorf("the key is in the log: %s", logs.String())
	}
	for _, msg := range []string{"pronet provider key accepted again", "pronet provider check failed"} {
		if !strings.Contains(logs.String(), msg) {
			t.Errorf("log lacks %q: %s", msg, logs.String())
		}
	}
}

// TestReadinessRateLimited: a vendor that rate-limits the check knew the key.
func TestReadinessRateLimited(t *testing.T) {
	fp := &fakeProvider{answer: func(context.Context) error {
		return &source.RateLimitError{Source: "fake", ResetAt: time.Now().Add(time.Minute)}
	}}
	if err := NewReadiness(fp, ReadinessConfig{}).Check(context.Background()); err != nil {
		t.Errorf("Check = %v, want nil", err)
	}
}

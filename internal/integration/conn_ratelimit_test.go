package integration_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
)

// A 429 without Retry-After waits what the service documents
// (Type.RateLimitWait), not the generic backoff; the wait is the error's too,
// so the step's own retry waits as long.
func TestRateLimitWaitWithoutRetryAfter(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	var waited []time.Duration
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"airtable": srv.URL},
		Sleep: func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }}
	c := k.Conn(integration.Airtable, integration.Credentials{"access_token": "pat"}, "")
	if err := c.Do(t.Context(), integration.Request{Path: "/v0/meta/whoami"}, nil); err != nil {
		t.Fatal(err)
	}
	if len(waited) != 1 || waited[0] != 30*time.Second {
		t.Fatalf("waited %v, want one wait of 30s", waited)
	}
}

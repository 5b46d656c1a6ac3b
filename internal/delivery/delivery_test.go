package delivery

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/store"
)

func TestBackoffDoublesUpToAnHour(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 8: time.Hour, 20: time.Hour} {
		if got := Backoff(n); got != want {
			t.Errorf("Backoff(%d) = %v, want %v", n, got, want)
		}
	}
}

// TestAttemptOutcomes: 429 honours Retry-After, 408 and 5xx retry, other
// 4xx fail at once, and the last allowed attempt fails.
func TestAttemptOutcomes(t *testing.T) {
	now := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	status, retryAfterHeader := 0, ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if retryAfterHeader != "" {
			w.Header().Set("Retry-After", retryAfterHeader)
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	d := New(nil, srv.Client(), nil, func() time.Time { return now }, nil)
	d.Secrets = fakeOpener{}
	dl := store.Delivery{ID: "id", SearchID: "s", URL: srv.URL, Secret: "AA==", RunAt: now}
	cases := []struct {
		status   int
		after    string
		attempts int
		want     string
		next     time.Duration
	}{
		{200, "", 0, store.DeliveryDelivered, 0},
		{429, "600", 0, store.DeliveryPending, 10 * time.Minute},
		{503, "", 2, store.DeliveryPending, 2 * time.Minute},
		{408, "", 0, store.DeliveryPending, 30 * time.Second},
		{400, "", 0, store.DeliveryFailed, 0},
		{410, "", 0, store.DeliveryFailed, 0},
		{500, "", DefaultMaxAttempts - 1, store.DeliveryFailed, 0},
	}
	for _, c := range cases {
		status, retryAfterHeader, dl.Attempts = c.status, c.after, c.attempts
		got := d.attempt(context.Background(), dl)
		if got.Status != c.want || got.StatusCode != c.status || (c.next != 0 && got.NextAt.Sub(now) != c.next) {
			t.Errorf("%d after %d attempts = %+v, want %s in %v", c.status, c.attempts, got, c.want, c.next)
		}
	}
}

type fakeOpener struct{}

func (fakeOpener) Open(_ []byte, _ string) ([]byte, error) { return []byte("whsec_c2VjcmV0"), nil }

package source_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func get(t *testing.T, srv *sourcetest.Server, hc *http.Client) (source.Response, *sourcetest.Sleeper, error) {
	t.Helper()
	sl := &sourcetest.Sleeper{}
	r := source.NewRetrier("test", hc, sl.Sleep, sourcetest.FixedClock(now))
	resp, err := r.Do(context.Background(), func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/x", nil)
	})
	return resp, sl, err
}

func TestRetryGivesUpAfterThreeServerErrors(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, http.StatusBadGateway, `{"error":"down"}`)
	})
	_, sl, err := get(t, srv, nil)
	var ue *source.UpstreamError
	if !errors.As(err, &ue) || ue.Status != http.StatusBadGateway || ue.Source != "test" {
		t.Fatalf("err = %v, want UpstreamError 502", err)
	}
	if got := len(srv.Requests()); got != 3 {
		t.Errorf("attempts = %d, want 3", got)
	}
	if want := []time.Duration{500 * time.Millisecond, time.Second}; !slices.Equal(sl.Durations(), want) {
		t.Errorf("backoff = %v, want %v", sl.Durations(), want)
	}
}

func TestRetryServerErrorThenSuccess(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			sourcetest.JSON(w, http.StatusServiceUnavailable, `{}`)
			return
		}
		sourcetest.JSON(w, http.StatusOK, `{"ok":true}`)
	})
	resp, _, err := get(t, srv, nil)
	if err != nil || resp.Status != http.StatusOK || string(resp.Body) != `{"ok":true}` {
		t.Fatalf("resp = %+v, err = %v", resp, err)
	}
}

func TestRetryNeverOnClientErrors(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound} {
		srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			sourcetest.JSON(w, status, `{}`)
		})
		resp, _, err := get(t, srv, nil)
		if err != nil || resp.Status != status {
			t.Errorf("status %d: resp = %+v, err = %v", status, resp, err)
		}
		if got := len(srv.Requests()); got != 1 {
			t.Errorf("status %d: attempts = %d, want 1", status, got)
		}
	}
}

func TestRateLimitResetHeaders(t *testing.T) {
	cases := []struct {
		name   string
		header map[string]string
		want   time.Time
	}{
		{"x-rate-limit-reset", map[string]string{"x-rate-limit-reset": "1772370000"}, time.Unix(1772370000, 0).UTC()},
		{"retry-after seconds", map[string]string{"Retry-After": "120"}, now.Add(2 * time.Minute)},
		{"retry-after date", map[string]string{"Retry-After": "Sun, 01 Mar 2026 12:05:00 GMT"}, now.Add(5 * time.Minute)},
		{"none", nil, now.Add(source.DefaultRateLimitWait)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				sourcetest.JSON(w, http.StatusTooManyRequests, `{}`)
			})
			_, _, err := get(t, srv, nil)
			var rl *source.RateLimitError
			if !errors.As(err, &rl) {
				t.Fatalf("err = %v, want RateLimitError", err)
			}
			if !rl.ResetAt.Equal(tc.want) {
				t.Errorf("ResetAt = %v, want %v", rl.ResetAt, tc.want)
			}
			if got := len(srv.Requests()); got != 1 {
				t.Errorf("attempts = %d, want 1 (429 is not retried)", got)
			}
		})
	}
}

func TestRetryOnClientTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	_, _, err := get(t, srv, &http.Client{Timeout: 20 * time.Millisecond})
	var ue *source.UpstreamError
	if !errors.As(err, &ue) || ue.Status != 0 {
		t.Fatalf("err = %v, want UpstreamError without status", err)
	}
	if got := len(srv.Requests()); got != 3 {
		t.Errorf("attempts = %d, want 3 (timeouts are retried)", got)
	}
}

func TestCallerDeadlineStopsRetries(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	r := source.NewRetrier("test", nil, (&sourcetest.Sleeper{}).Sleep, sourcetest.FixedClock(now))
	_, err := r.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	})
	var ue *source.UpstreamError
	if !errors.As(err, &ue) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want UpstreamError wrapping DeadlineExceeded", err)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("attempts = %d, want 1", got)
	}
}

func TestRetryOnConnectionRefused(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	srv.Close()
	_, sl, err := get(t, srv, nil)
	var ue *source.UpstreamError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want UpstreamError", err)
	}
	if len(sl.Durations()) != 2 {
		t.Errorf("sleeps = %v, want 2 backoffs", sl.Durations())
	}
}

func TestStatusError(t *testing.T) {
	if err := source.StatusError("s", 404, "gone"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("404: %v", err)
	}
	var ue *source.UpstreamError
	if err := source.StatusError("s", 401, ""); !errors.As(err, &ue) || ue.Status != 401 {
		t.Errorf("401: %v", err)
	}
}

package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry policy defaults shared by the connectors.
const (
	DefaultAttempts  = 3
	DefaultBaseDelay = 500 * time.Millisecond
	// DefaultRateLimitWait is assumed when a 429 carries no usable reset header.
	DefaultRateLimitWait = 60 * time.Second
	maxBodyBytes         = 16 << 20
)

// Response is a fully read upstream answer that was neither retried nor turned into an error
// by the retry policy: a 2xx or a 4xx other than 429.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Retrier sends a request with the shared policy: at most Attempts tries, exponential backoff
// (BaseDelay, 2×, 4×…) after 5xx, timeouts and connection errors; never a retry after a 4xx;
// 429 becomes *RateLimitError at once. Sleeping goes through Sleep so tests never wait.
type Retrier struct {
	Source    string
	HTTP      *http.Client
	Sleep     func(context.Context, time.Duration) error
	Now       func() time.Time
	Attempts  int
	BaseDelay time.Duration
}

// NewRetrier fills in the defaults for the zero fields.
func NewRetrier(source string, hc *http.Client, sleep func(context.Context, time.Duration) error, now func() time.Time) Retrier {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	if sleep == nil {
		sleep = SleepContext
	}
	if now == nil {
		now = time.Now
	}
	return Retrier{Source: source, HTTP: hc, Sleep: sleep, Now: now, Attempts: DefaultAttempts, BaseDelay: DefaultBaseDelay}
}

// Do builds a fresh request with newReq for every attempt and applies the policy.
func (r Retrier) Do(ctx context.Context, newReq func(context.Context) (*http.Request, error)) (Response, error) {
	attempts := max(r.Attempts, 1)
	var lastErr error
	lastStatus := 0
	for attempt := range attempts {
		if attempt > 0 {
			if err := r.Sleep(ctx, r.BaseDelay<<(attempt-1)); err != nil {
				return Response{}, &UpstreamError{Source: r.Source, Status: lastStatus,
					Err: fmt.Errorf("waiting to retry after %w: %w", lastErr, err)}
			}
		}
		req, err := newReq(ctx)
		if err != nil {
			return Response{}, fmt.Errorf("%s: build request: %w", r.Source, err)
		}
		resp, err := r.HTTP.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				// The caller's deadline or cancellation: retrying cannot help.
				return Response{}, &UpstreamError{Source: r.Source, Err: ctx.Err()}
			}
			lastErr, lastStatus = err, 0
			continue
		}
		body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			return Response{}, &RateLimitError{Source: r.Source, ResetAt: resetAt(resp.Header, r.Now())}
		case resp.StatusCode >= 500:
			lastErr, lastStatus = fmt.Errorf("%s", snippet(body)), resp.StatusCode
			continue
		case readErr != nil:
			if ctx.Err() != nil {
				return Response{}, &UpstreamError{Source: r.Source, Status: resp.StatusCode, Err: ctx.Err()}
			}
			lastErr, lastStatus = fmt.Errorf("read body: %w", readErr), resp.StatusCode
			continue
		}
		return Response{Status: resp.StatusCode, Header: resp.Header, Body: dropNULEscapes(body)}, nil
	}
	return Response{}, &UpstreamError{Source: r.Source, Status: lastStatus,
		Err: fmt.Errorf("gave up after %d attempts: %w", attempts, lastErr)}
}

// resetAt reads X's x-rate-limit-reset (epoch seconds) or the standard Retry-After (seconds or
// an HTTP date); without either it assumes DefaultRateLimitWait.
func resetAt(h http.Header, now time.Time) time.Time {
	if v := strings.TrimSpace(h.Get("x-rate-limit-reset")); v != "" {
		if sec, err := strconv.ParseInt(v, 10, 64); err == nil && sec > 0 {
			return time.Unix(sec, 0).UTC()
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if sec, err := strconv.ParseInt(v, 10, 64); err == nil && sec >= 0 {
			return now.Add(time.Duration(sec) * time.Second).UTC()
		}
		if t, err := http.ParseTime(v); err == nil {
			return t.UTC()
		}
	}
	return now.Add(DefaultRateLimitWait).UTC()
}

// snippet keeps error messages short when an upstream answers with a whole HTML page.
func snippet(body []byte) string {
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "empty body"
	}
	return s
}

// StatusError turns a non-2xx response that the policy let through into the connector error:
// 404 → ErrNotFound (wrapped), anything else → *UpstreamError carrying msg.
func StatusError(source string, status int, msg string) error {
	if msg == "" {
		msg = http.StatusText(status)
	}
	if status == http.StatusNotFound {
		return fmt.Errorf("%s: %s: %w", source, msg, ErrNotFound)
	}
	return &UpstreamError{Source: source, Status: status, Err: errors.New(msg)}
}

// DecodeError wraps a body that does not decode as an upstream failure.
func DecodeError(source string, status int, err error) error {
	return &UpstreamError{Source: source, Status: status, Err: fmt.Errorf("decode response: %w", err)}
}

// SleepContext waits for d or until ctx is done.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

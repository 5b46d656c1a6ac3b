package source

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotFound means the upstream says the thing asked for does not exist.
var ErrNotFound = errors.New("source: not found")

// RateLimitError is returned when an upstream answers 429. It is never retried by the
// connectors: the caller decides whether to wait until ResetAt or to give up.
type RateLimitError struct {
	Source  string
	ResetAt time.Time
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("%s: rate limited upstream until %s", e.Source, e.ResetAt.UTC().Format(time.RFC3339))
}

// RetryAfter is how long to wait from now before the upstream accepts requests again (never negative).
func (e *RateLimitError) RetryAfter(now time.Time) time.Duration {
	d := e.ResetAt.Sub(now)
	if d < 0 {
		return 0
	}
	return d
}

// UpstreamError is any other failure of an upstream: 5xx or transport errors after the retries,
// a rejected credential (401/403), a rejected request (other 4xx) or a body that does not decode.
// Status is 0 when no HTTP response was received.
type UpstreamError struct {
	Source string
	Status int
	Err    error
}

func (e *UpstreamError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: upstream: %v", e.Source, e.Err)
	}
	return fmt.Sprintf("%s: upstream status %d: %v", e.Source, e.Status, e.Err)
}

func (e *UpstreamError) Unwrap() error { return e.Err }

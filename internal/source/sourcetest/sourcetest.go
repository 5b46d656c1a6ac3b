// Package sourcetest has helpers for the connectors' contract tests: an httptest server that
// records the requests it gets and answers from a script, and a sleep that only records.
package sourcetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Request is what a client sent.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
}

// Server records requests and answers the n-th (0-based) with handle.
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []Request
}

// NewServer starts a recording server, closed when the test ends.
func NewServer(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int)) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone()})
		s.mu.Unlock()
		handle(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// JSON answers status with body as application/json.
func JSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// Sleeper records requested sleeps without waiting.
type Sleeper struct {
	mu    sync.Mutex
	Slept []time.Duration
}

// Sleep records d and returns at once (or the context's error).
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.Slept = append(s.Slept, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Durations returns the recorded sleeps.
func (s *Sleeper) Durations() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.Slept...)
}

// FixedClock returns a now func that always answers t.
func FixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

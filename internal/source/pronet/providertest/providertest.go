// Package providertest is the conformance suite of pronet providers (as River runs one suite
// over every database driver): Run puts a provider through the same cases as every other,
// against a sandbox server of its vendor's protocol, and compares what it reads with what the
// contract client reads of the same synthetic world. A provider's package runs it in a test:
//
//	func TestConformance(t *testing.T) {
//		providertest.Run(t, providertest.Harness{Name: "vendor", New: newForSuite,
//			Upstream: (*sandbox.Server).PronetURL, Priced: true})
//	}
//
// Case names are stable, so a Harness can list what its vendor Lacks: an operation
// ("company_posts") or one case ("search/authorTitle"). Those must answer pronet.ErrUnsupported.
package providertest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

// Harness is what the suite needs to know of a provider.
type Harness struct {
	Name string
	// New builds the provider against base, a URL serving the vendor's protocol.
	New func(base, key string, hc *http.Client, now func() time.Time, sleep func(context.Context, time.Duration) error) pronet.Provider
	// Upstream is the vendor protocol's base URL on a sandbox server.
	Upstream func(sb *sandbox.Server) string
	// Lacks names cases whose capability the vendor does not have: they must answer pronet.ErrUnsupported.
	Lacks []string
	// Priced: every billed call adds a positive cost to the source.Meter of its context.
	Priced bool
	// EmptyWhenMissing names list operations ("comments") whose vendor cannot tell a missing
	// target from one with nothing to list (Apify's actors push nothing for either): for those
	// the missing- case accepts an empty list without error as well as source.ErrNotFound.
	EmptyWhenMissing []string
}

// The suite's world: a fixed seed and a fixed clock, so every provider reads the same posts.
const (
	Seed = 37
	// Key is the good key the suite gives providers; InvalidKey gets the vendor's 401.
	Key        = "providertest-key"
	InvalidKey = "invalid-providertest-key"
)

// Now is the suite's clock.
func Now() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }

// Limits that keep a broken provider from paging forever.
const (
	maxPages      = 60
	clientTimeout = 10 * time.Second
)

type suite struct {
	h        Harness
	sb       *sandbox.Server
	upstream string
	oracle   *pronet.Client
	fx       fixtures
}

// Run puts the provider of h through every case, each a subtest of t.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.New == nil || h.Upstream == nil || h.Name == "" {
		t.Fatal("providertest: a Harness needs Name, New and Upstream")
	}
	cfg := sandbox.Config{Seed: Seed, Now: Now}
	sb, err := sandbox.Start(t.Context(), "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	s := &suite{h: h, sb: sb, upstream: h.Upstream(sb),
		oracle: pronet.New(pronet.Config{BaseURL: sb.PronetURL(), APIKey: Key, Now: Now, Sleep: (&sourcetest.Sleeper{}).Sleep})}
	s.fx = pickFixtures(t, s.oracle, sandbox.New(cfg).World())

	s.readCases(t)
	s.faultCases(t)
	s.keyCases(t)
	s.slowCases(t)
	s.costCases(t)
}

// provider builds the provider under test with a good client and a sleep that only records.
func (s *suite) provider(key string) (pronet.Provider, *sourcetest.Sleeper) {
	sl := &sourcetest.Sleeper{}
	return s.h.New(s.upstream, key, &http.Client{Timeout: clientTimeout}, Now, sl.Sleep), sl
}

// lacks reports whether the harness says its vendor cannot do case name, or its operation.
func (s *suite) lacks(name string) bool {
	for n := name; ; {
		if slices.Contains(s.h.Lacks, n) {
			return true
		}
		i := strings.LastIndexByte(n, '/')
		if i < 0 {
			return false
		}
		n = n[:i]
	}
}

// answered checks the first answer of case name: in a case the harness lacks it must be
// pronet.ErrUnsupported and the case ends (false); otherwise it must be no error.
func (s *suite) answered(t *testing.T, name string, err error) bool {
	t.Helper()
	if s.lacks(name) {
		if !errors.Is(err, pronet.ErrUnsupported) {
			t.Fatalf("%s lacks %s: want pronet.ErrUnsupported, got %v", s.h.Name, name, err)
		}
		return false
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return true
}

// oracle checks an answer of the contract client over its own sandbox, which must not fail:
// oracle[T](t)(client.Call(…)) is the value, or t fails.
func oracle[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("contract client (the oracle): %v", err)
		}
		return v
	}
}

// oracle2 is oracle for calls with two results.
func oracle2[A, B any](t *testing.T) func(A, B, error) (A, B) {
	return func(a A, b B, err error) (A, B) {
		t.Helper()
		if err != nil {
			t.Fatalf("contract client (the oracle): %v", err)
		}
		return a, b
	}
}

// asUpstream returns the *source.UpstreamError in err, failing t when there is none.
func asUpstream(t *testing.T, err error) *source.UpstreamError {
	t.Helper()
	var ue *source.UpstreamError
	if !errors.As(err, &ue) {
		t.Fatalf("want a *source.UpstreamError, got %T: %v", err, err)
	}
	return ue
}

package pronet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// Readiness defaults: the start-up check is bounded by CheckTimeout, /readyz asks the vendor at
// most once per RecheckInterval and waits for it at most ReadyTimeout.
const (
	CheckTimeout    = 10 * time.Second
	RecheckInterval = time.Minute
	ReadyTimeout    = 5 * time.Second
)

// CheckError is why a provider's check failed, in words an operator acts on. It never holds
// the key.
type CheckError struct {
	Provider string
	// Reason is "key rejected (401 Invalid API key)", "unreachable (…)" and the like.
	Reason string
}

func (e *CheckError) Error() string { return "pronet provider " + e.Provider + ": " + e.Reason }

// Readiness remembers the last answer of a provider's Check, for the start-up log and /readyz,
// and asks again once the answer is older than Interval so that a fixed key recovers without a
// restart. Safe for concurrent use.
type Readiness struct {
	p        Provider
	now      func() time.Time
	interval time.Duration
	secret   string
	log      *slog.Logger

	mu       sync.Mutex
	checked  time.Time // zero before the first check
	err      *CheckError
	checking bool
}

// ReadinessConfig configures a Readiness. Zero Now, Interval and Log are time.Now,
// RecheckInterval and no log.
type ReadinessConfig struct {
	// Secret (the provider's key) is blanked out of every reason, in case a vendor's message or
	// a URL repeats it.
	Secret   string
	Now      func() time.Time
	Interval time.Duration
	// Log hears when a later check changes the answer; the first is the caller's to log.
	Log *slog.Logger
}

// NewReadiness checks p.
func NewReadiness(p Provider, cfg ReadinessConfig) *Readiness {
	r := &Readiness{p: p, now: cfg.Now, interval: cfg.Interval, secret: cfg.Secret, log: cfg.Log}
	if r.now == nil {
		r.now = time.Now
	}
	if r.interval <= 0 {
		r.interval = RecheckInterval
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	return r
}

// Provider is the name of the checked provider.
func (r *Readiness) Provider() string { return r.p.Name() }

// Check asks the provider now, within ctx, and remembers the answer: nil or a *CheckError.
func (r *Readiness) Check(ctx context.Context) error {
	err := r.ask(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	first, prev := r.checked.IsZero(), r.err
	r.checked, r.err = r.now(), err
	switch {
	case err == nil && !first && prev != nil:
		r.log.Info("pronet provider key accepted again", "provider", r.p.Name())
	case err != nil && !first && (prev == nil || prev.Reason != err.Reason):
		r.log.Error("pronet provider check failed", "provider", err.Provider, "reason", err.Reason)
	}
	if err == nil {
		return nil
	}
	return err
}

// Ready is the last answer, asked again (within ctx) when older than the interval. While
// another caller is asking, it is the answer before.
func (r *Readiness) Ready(ctx context.Context) error {
	r.mu.Lock()
	stale := r.checked.IsZero() || r.now().Sub(r.checked) >= r.interval
	if !stale || r.checking {
		err := r.err
		r.mu.Unlock()
		if err == nil {
			return nil
		}
		return err
	}
	r.checking = true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.checking = false
		r.mu.Unlock()
	}()
	return r.Check(ctx)
}

// ask runs the provider's Check and turns its error into a CheckError. A rate limit is a good
// key: the vendor knew whom it was refusing.
func (r *Readiness) ask(ctx context.Context) *CheckError {
	err := r.p.Check(ctx)
	var rl *source.RateLimitError
	if err == nil || errors.As(err, &rl) {
		return nil
	}
	reason := CheckReason(ctx, err)
	if r.secret != "" {
		reason = strings.ReplaceAll(reason, r.secret, "[key]")
	}
	return &CheckError{Provider: r.p.Name(), Reason: reason}
}

// CheckReason says in a few words why a provider's Check failed: "key rejected (401 Invalid API
// key)", "unreachable (…)", "no answer in time", "failed (502 …)".
func CheckReason(ctx context.Context, err error) string {
	var ue *source.UpstreamError
	switch {
	case errors.As(err, &ue) && (ue.Status == http.StatusUnauthorized || ue.Status == http.StatusForbidden):
		return fmt.Sprintf("key rejected (%d %s)", ue.Status, upstreamMessage(ue))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "no answer in time"
	case errors.Is(err, context.Canceled):
		return "check cancelled"
	case errors.As(err, &ue) && ue.Status == 0:
		return fmt.Sprintf("unreachable (%s)", upstreamMessage(ue))
	case errors.As(err, &ue):
		return fmt.Sprintf("failed (%d %s)", ue.Status, upstreamMessage(ue))
	case errors.Is(err, ErrUnsupported):
		return "cannot check the key: " + err.Error()
	}
	return "failed (" + err.Error() + ")"
}

// upstreamMessage is the vendor's own words, or the status text when it gave none.
func upstreamMessage(ue *source.UpstreamError) string {
	msg := ""
	if ue.Err != nil {
		msg = strings.TrimSpace(ue.Err.Error())
	}
	if msg == "" || msg == strconv.Itoa(ue.Status) {
		msg = http.StatusText(ue.Status)
	}
	const most = 200
	if len(msg) > most {
		msg = msg[:most] + "…"
	}
	return msg
}

package pronet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// Limits are what a pronet vendor accepts from this process (TRAWL_PRONET_RATE_LIMIT,
// TRAWL_PRONET_CONCURRENCY). Zero Now and Sleep fall back to time.Now and a real sleep; a zero
// Wall falls back to Now.
type Limits struct {
	// Rate is the most requests per second; 0 is no rate limit.
	Rate float64
	// Burst is how many requests may go at once after a quiet spell; below 1 counts as 1.
	Burst int
	// Concurrency is the most requests in flight; 0 is no limit.
	Concurrency int
	// MaxWait is the most a call waits in all for the vendor's rate-limit resets before it
	// gives up with the vendor's *source.RateLimitError; 0 never waits for one. The waits of
	// the token bucket are not counted: they only slow calls down, as the settings ask.
	MaxWait time.Duration
	// Now is the providers' clock, on which their RateLimitError.ResetAt is given.
	Now func() time.Time
	// Wall is the clock Sleep moves, on which the token bucket and the pauses are kept. It differs
	// from Now when the service runs on an injected clock (a fake one that moves only when a test
	// says) but sleeps for real: measured on Now, the time a sleep took would never pass and every
	// call would wait longer than the one before.
	Wall  func() time.Time
	Sleep func(context.Context, time.Duration) error
}

// LimitStats are what the limiter did, for /metrics.
type LimitStats struct {
	// Waits counts the calls that waited (for the token bucket or a vendor's reset).
	Waits int64
	// WaitSeconds is the time those calls waited.
	WaitSeconds float64
	// RateLimited counts the vendor's rate-limit answers (429).
	RateLimited int64
	// Retries counts the calls tried again after a vendor's reset.
	Retries int64
}

// Limited is a Provider whose calls keep within Limits. Build it with Limit.
type Limited struct {
	inner Provider
	l     Limits
	slots chan struct{} // nil without a concurrency limit

	mu sync.Mutex
	// tat is when the bucket is next empty of a whole token's worth of time (the
	// "theoretical arrival time" of the cell rate algorithm): a call may go once now is within
	// (Burst-1)/Rate of it.
	tat time.Time
	// notBefore is the vendor's latest reset: every caller waits for it.
	notBefore time.Time
	stats     LimitStats
}

// Limit wraps p so that every call but Name and Check takes a concurrency slot and a token of a
// token bucket, and pauses every caller until the vendor's reset when it answers a rate limit.
func Limit(p Provider, l Limits) *Limited {
	if l.Now == nil {
		l.Now = time.Now
	}
	if l.Sleep == nil {
		l.Sleep = source.SleepContext
	}
	if l.Wall == nil {
		l.Wall = l.Now
	}
	l.Burst = max(l.Burst, 1)
	lp := &Limited{inner: p, l: l}
	if l.Concurrency > 0 {
		lp.slots = make(chan struct{}, l.Concurrency)
	}
	return lp
}

// Unwrap is the provider under the limits.
func (lp *Limited) Unwrap() Provider { return lp.inner }

// Stats are the limiter's counters so far.
func (lp *Limited) Stats() LimitStats {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	return lp.stats
}

// Name implements Provider.
func (lp *Limited) Name() string { return lp.inner.Name() }

// Check implements Provider. It is not limited: readiness must not queue behind hydration.
func (lp *Limited) Check(ctx context.Context) error { return lp.inner.Check(ctx) }

// ProfilePosts implements Provider.
func (lp *Limited) ProfilePosts(ctx context.Context, p ProfilePostsParams) (posts []Post, next string, err error) {
	err = lp.do(ctx, func(ctx context.Context) error {
		posts, next, err = lp.inner.ProfilePosts(ctx, p)
		return err
	})
	return posts, next, err
}

// CompanyPosts implements Provider.
func (lp *Limited) CompanyPosts(ctx context.Context, companySlug string) (posts []Post, err error) {
	err = lp.do(ctx, func(ctx context.Context) error {
		posts, err = lp.inner.CompanyPosts(ctx, companySlug)
		return err
	})
	return posts, err
}

// Post implements Provider.
func (lp *Limited) Post(ctx context.Context, postURN string) (post Post, err error) {
	err = lp.do(ctx, func(ctx context.Context) error {
		post, err = lp.inner.Post(ctx, postURN)
		return err
	})
	return post, err
}

// Comments implements Provider.
func (lp *Limited) Comments(ctx context.Context, postURN string, page, limit int) (out CommentsPage, err error) {
	err = lp.do(ctx, func(ctx context.Context) error {
		out, err = lp.inner.Comments(ctx, postURN, page, limit)
		return err
	})
	return out, err
}

// Reactions implements Provider.
func (lp *Limited) Reactions(ctx context.Context, postURN string, page, limit int) (out ReactionsPage, err error) {
	err = lp.do(ctx, func(ctx context.Context) error {
		out, err = lp.inner.Reactions(ctx, postURN, page, limit)
		return err
	})
	return out, err
}

// SearchPosts implements Provider.
func (lp *Limited) SearchPosts(ctx context.Context, p SearchParams) (out SearchPage, err error) {
	err = lp.do(ctx, func(ctx context.Context) error {
		out, err = lp.inner.SearchPosts(ctx, p)
		return err
	})
	return out, err
}

// Profile implements Provider.
func (lp *Limited) Profile(ctx context.Context, username string) (out Profile, err error) {
	err = lp.do(ctx, func(ctx context.Context) error {
		out, err = lp.inner.Profile(ctx, username)
		return err
	})
	return out, err
}

type interactiveKey struct{}

// Interactive marks ctx as a call a client waits on (a live lookup): it still takes a slot and a
// token, but it neither waits for a vendor's reset nor is held by one another call met; the
// vendor answers it for itself, and its 429 comes back at once (the client gets Retry-After)
// while still pausing the background callers. Without this a lookup could hang for MaxWait.
func Interactive(ctx context.Context) context.Context {
	return context.WithValue(ctx, interactiveKey{}, true)
}

func isInteractive(ctx context.Context) bool {
	v, _ := ctx.Value(interactiveKey{}).(bool)
	return v
}

// do runs call within the limits, trying it again after the vendor's reset while the waits for
// resets stay within MaxWait and the deadline of ctx.
func (lp *Limited) do(ctx context.Context, call func(context.Context) error) error {
	if lp.slots != nil {
		select {
		case lp.slots <- struct{}{}:
		case <-ctx.Done():
			return fmt.Errorf("%s: waiting for a request slot: %w", lp.Name(), ctx.Err())
		}
		defer func() { <-lp.slots }()
	}
	// waitedForResets is all the call waited for the vendor's resets, its own and others'.
	var waitedForResets time.Duration
	for {
		if err := lp.take(ctx, &waitedForResets); err != nil {
			return err
		}
		err := call(ctx)
		var rl *source.RateLimitError
		if !errors.As(err, &rl) {
			return err
		}
		// The reset is on the providers' clock: what is left of it is a pause on the wall.
		// A reset already past would have the call hammer the vendor: wait a little anyway.
		now := lp.l.Wall()
		resetAt := now.Add(max(rl.ResetAt.Sub(lp.l.Now()), minPause))
		lp.mu.Lock()
		lp.stats.RateLimited++
		if resetAt.After(lp.notBefore) {
			lp.notBefore = resetAt
		}
		lp.mu.Unlock()
		if isInteractive(ctx) || waitedForResets+resetAt.Sub(now) > lp.l.MaxWait || beyondDeadline(ctx, resetAt.Sub(now)) {
			return err
		}
		lp.mu.Lock()
		lp.stats.Retries++
		lp.mu.Unlock()
	}
}

// minPause is the least all callers pause after a vendor's rate-limit answer.
const minPause = time.Second

// take waits for the vendor's reset, if one is pending, and then for a token; paused adds up
// the waits for resets. A reset beyond what the call may still wait for is answered at once
// with a RateLimitError, as the vendor would answer.
func (lp *Limited) take(ctx context.Context, paused *time.Duration) error {
	reserved := false
	var waited time.Duration
	defer func() {
		if waited > 0 {
			lp.mu.Lock()
			lp.stats.Waits++
			lp.stats.WaitSeconds += waited.Seconds()
			lp.mu.Unlock()
		}
	}()
	for {
		now := lp.l.Wall()
		lp.mu.Lock()
		notBefore := lp.notBefore
		pause := now.Before(notBefore) && !isInteractive(ctx)
		var at time.Time
		switch {
		case pause:
			at = notBefore
			if reserved {
				// A token taken before the reset would burst into the vendor after it:
				// take a new one then, behind the reset.
				lp.unreserveLocked()
				reserved = false
			}
		case !reserved && lp.l.Rate > 0:
			at = lp.reserveLocked(now, !isInteractive(ctx))
			reserved = true
		}
		lp.mu.Unlock()
		if !at.After(now) {
			return nil
		}
		d := at.Sub(now)
		if pause && (*paused+d > lp.l.MaxWait || beyondDeadline(ctx, d)) {
			return &source.RateLimitError{Source: lp.Name(), ResetAt: lp.l.Now().Add(d)}
		}
		if err := lp.l.Sleep(ctx, d); err != nil {
			if reserved {
				lp.mu.Lock()
				lp.unreserveLocked()
				lp.mu.Unlock()
			}
			return fmt.Errorf("%s: waiting within the rate limit: %w", lp.Name(), err)
		}
		waited += d
		if pause {
			*paused += d
		}
	}
}

// reserveLocked takes the next token and says when it may be used; behindReset puts it after a
// pending vendor's reset.
func (lp *Limited) reserveLocked(now time.Time, behindReset bool) time.Time {
	interval := lp.interval()
	tat := lp.tat
	// After a vendor's reset the bucket starts empty: no burst into a vendor that just refused.
	if behindReset && tat.Before(lp.notBefore) {
		tat = lp.notBefore
	}
	if tat.Before(now) {
		tat = now
	}
	at := tat.Add(-time.Duration(lp.l.Burst-1) * interval)
	if at.Before(now) {
		at = now
	}
	lp.tat = tat.Add(interval)
	return at
}

// unreserveLocked gives back the token of a call that will not use it.
func (lp *Limited) unreserveLocked() { lp.tat = lp.tat.Add(-lp.interval()) }

func (lp *Limited) interval() time.Duration { return time.Duration(float64(time.Second) / lp.l.Rate) }

// beyondDeadline reports whether ctx ends within d. A context's deadline is on the real clock,
// whatever clock the limiter is given.
func beyondDeadline(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return ok && time.Until(dl) < d
}

var _ Provider = (*Limited)(nil)

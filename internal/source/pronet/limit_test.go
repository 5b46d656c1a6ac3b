package pronet

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// fakeClock is a clock that only moves when a caller sleeps on it.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
	// frozen keeps the time still through sleeps, to read what each caller was told to wait.
	frozen bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	if !c.frozen {
		c.t = c.t.Add(d)
	}
	return nil
}

// fakeProvider answers every call with answer, counting calls and those in flight.
type fakeProvider struct {
	answer func(ctx context.Context) error

	calls, inFlight, maxInFlight atomic.Int64
}

func (f *fakeProvider) run(ctx context.Context) error {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxInFlight.Load()
		if n <= m || f.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	f.calls.Add(1)
	if f.answer == nil {
		return nil
	}
	return f.answer(ctx)
}

func (f *fakeProvider) Name() string                    { return "fake" }
func (f *fakeProvider) Check(ctx context.Context) error { return f.run(ctx) }
func (f *fakeProvider) ProfilePosts(ctx context.Context, _ ProfilePostsParams) ([]Post, string, error) {
	return nil, "", f.run(ctx)
}
func (f *fakeProvider) CompanyPosts(ctx context.Context, _ string) ([]Post, error) {
	return nil, f.run(ctx)
}
func (f *fakeProvider) Post(ctx context.Context, urn string) (Post, error) {
	return Post{URN: urn}, f.run(ctx)
}
func (f *fakeProvider) Comments(ctx context.Context, _ string, _, _ int) (CommentsPage, error) {
	return CommentsPage{}, f.run(ctx)
}
func (f *fakeProvider) Reactions(ctx context.Context, _ string, _, _ int) (ReactionsPage, error) {
	return ReactionsPage{}, f.run(ctx)
}
func (f *fakeProvider) SearchPosts(ctx context.Context, _ SearchParams) (SearchPage, error) {
	return SearchPage{}, f.run(ctx)
}
func (f *fakeProvider) Profile(ctx context.Context, _ string) (Profile, error) {
	return Profile{}, f.run(ctx)
}

// TestLimitRate: sequential calls keep to the rate, the burst goes at once, and every method
// is limited but Name and Check.
func TestLimitRate(t *testing.T) {
	cases := []struct {
		name  string
		rate  float64
		burst int
		calls int
		// want is how long the calls take on the fake clock.
		want time.Duration
	}{
		{"no limit", 0, 0, 50, 0},
		{"10 per second", 10, 1, 101, 10 * time.Second},
		{"burst of 5 then 2 per second", 2, 5, 25, 10 * time.Second},
		{"fractional rate", 0.5, 1, 4, 6 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			start := clock.Now()
			fp := &fakeProvider{}
			var times []time.Time
			fp.answer = func(context.Context) error { times = append(times, clock.Now()); return nil }
			lp := Limit(fp, Limits{Rate: tc.rate, Burst: tc.burst, Now: clock.Now, Sleep: clock.Sleep})
			ctx := context.Background()
			for i := range tc.calls {
				var err error
				switch i % 7 {
				case 0:
					_, _, err = lp.ProfilePosts(ctx, ProfilePostsParams{Username: "a"})
				case 1:
					_, err = lp.CompanyPosts(ctx, "a")
				case 2:
					_, err = lp.Post(ctx, "urn")
				case 3:
					_, err = lp.Comments(ctx, "urn", 1, 10)
				case 4:
					_, err = lp.Reactions(ctx, "urn", 1, 10)
				case 5:
					_, err = lp.SearchPosts(ctx, SearchParams{})
				case 6:
					_, err = lp.Profile(ctx, "a")
				}
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			if got := clock.Now().Sub(start); got != tc.want {
				t.Errorf("calls took %s, want %s", got, tc.want)
			}
			// No window of a second holds more than burst + rate calls.
			if tc.rate > 0 {
				most := max(tc.burst, 1) + int(tc.rate)
				for i := range times {
					n := 0
					for j := i; j < len(times) && times[j].Sub(times[i]) < time.Second; j++ {
						n++
					}
					if n > most {
						t.Fatalf("%d calls within a second from %s, want at most %d", n, times[i].Sub(start), most)
					}
				}
			}
			// Check and Name are not limited.
			before := clock.Now()
			for range 5 {
				if err := lp.Check(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if clock.Now() != before || lp.Name() != "fake" {
				t.Errorf("Check waited %s, Name %q", clock.Now().Sub(before), lp.Name())
			}
		})
	}
}

// TestLimitRateConcurrent: callers arriving together are told to wait one interval more each.
func TestLimitRateConcurrent(t *testing.T) {
	clock := newFakeClock()
	clock.frozen = true
	lp := Limit(&fakeProvider{}, Limits{Rate: 4, Burst: 1, Now: clock.Now, Sleep: clock.Sleep})
	const callers = 20
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := lp.Post(context.Background(), "urn"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	seen := map[time.Duration]bool{}
	for _, d := range clock.sleeps {
		if d%(250*time.Millisecond) != 0 || seen[d] {
			t.Fatalf("waits %v: want distinct multiples of 250ms", clock.sleeps)
		}
		seen[d] = true
	}
	if len(clock.sleeps) != callers-1 {
		t.Errorf("%d callers waited, want %d (the first goes at once)", len(clock.sleeps), callers-1)
	}
	if st := lp.Stats(); st.Waits != callers-1 {
		t.Errorf("stats %+v, want %d waits", st, callers-1)
	}
}

// TestLimitConcurrency: never more calls in flight than the limit (run with -race).
func TestLimitConcurrency(t *testing.T) {
	for _, limit := range []int{1, 3, 8} {
		fp := &fakeProvider{}
		release := make(chan struct{})
		fp.answer = func(context.Context) error { <-release; return nil }
		lp := Limit(fp, Limits{Concurrency: limit})
		var wg sync.WaitGroup
		const callers = 40
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := lp.Profile(context.Background(), "a"); err != nil {
					t.Error(err)
				}
			}()
		}
		// The limit is reached (the callers start at their own pace)...
		for deadline := time.Now().Add(10 * time.Second); fp.inFlight.Load() < int64(limit); {
			if time.Now().After(deadline) {
				t.Fatalf("limit %d: only %d in flight after 10 s", limit, fp.inFlight.Load())
			}
			runtime.Gosched()
		}
		// ...and never passed: let the calls through one by one, watching how many are in flight.
		for range callers {
			release <- struct{}{}
			if n := fp.inFlight.Load(); n > int64(limit) {
				t.Fatalf("limit %d: %d in flight", limit, n)
			}
		}
		wg.Wait()
		if got := fp.maxInFlight.Load(); got != int64(limit) {
			t.Errorf("limit %d: at most %d in flight, want exactly the limit", limit, got)
		}
	}
}

// TestLimitRateLimited: a 429 with Retry-After pauses every caller until the reset; the call is
// tried again and succeeds; beyond MaxWait the vendor's error comes back.
func TestLimitRateLimited(t *testing.T) {
	cases := []struct {
		name       string
		retryAfter time.Duration
		refusals   int // how many 429 answers before the vendor accepts
		maxWait    time.Duration
		wantErr    bool
		wantCalls  int64
		wantWaited time.Duration
	}{
		{"waits and succeeds", 30 * time.Second, 1, time.Minute, false, 2, 30 * time.Second},
		{"twice within max wait", 20 * time.Second, 2, time.Minute, false, 3, 40 * time.Second},
		{"beyond max wait", 2 * time.Minute, 1, time.Minute, true, 1, 0},
		{"second refusal beyond max wait", 40 * time.Second, 2, time.Minute, true, 2, 40 * time.Second},
		{"no max wait", 5 * time.Second, 1, 0, true, 1, 0},
		{"reset already past", -time.Second, 1, time.Minute, false, 2, time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			start := clock.Now()
			fp := &fakeProvider{}
			refused := 0
			fp.answer = func(context.Context) error {
				if refused < tc.refusals {
					refused++
					return &source.RateLimitError{Source: "fake", ResetAt: clock.Now().Add(tc.retryAfter)}
				}
				return nil
			}
			lp := Limit(fp, Limits{MaxWait: tc.maxWait, Now: clock.Now, Sleep: clock.Sleep})
			_, err := lp.Post(context.Background(), "urn")
			var rl *source.RateLimitError
			if tc.wantErr != errors.As(err, &rl) {
				t.Fatalf("err = %v, want rate limit error %v", err, tc.wantErr)
			}
			if got := fp.calls.Load(); got != tc.wantCalls {
				t.Errorf("%d calls, want %d", got, tc.wantCalls)
			}
			if got := clock.Now().Sub(start); got != tc.wantWaited {
				t.Errorf("waited %s, want %s", got, tc.wantWaited)
			}
		})
	}
}

// TestLimitSharedPause: after one caller's 429, a later caller waits for the reset before it
// reaches the vendor, or gives up at once when the reset is beyond its MaxWait.
func TestLimitSharedPause(t *testing.T) {
	clock := newFakeClock()
	fp := &fakeProvider{}
	reset := clock.Now().Add(45 * time.Second)
	var calledAt []time.Time
	fp.answer = func(context.Context) error {
		calledAt = append(calledAt, clock.Now())
		if len(calledAt) == 1 {
			return &source.RateLimitError{Source: "fake", ResetAt: reset}
		}
		return nil
	}
	// The first caller may not wait: its error comes back, and the pause stays for the others.
	short := Limit(fp, Limits{MaxWait: 0, Rate: 100, Now: clock.Now, Sleep: clock.Sleep})
	if _, err := short.Profile(context.Background(), "a"); err == nil {
		t.Fatal("want the rate limit error")
	}
	if _, err := short.Profile(context.Background(), "a"); err == nil || fp.calls.Load() != 1 {
		t.Fatalf("second call: err %v after %d calls, want a rate limit error without calling", err, fp.calls.Load())
	}
	st := short.Stats()
	if st.RateLimited != 1 {
		t.Errorf("stats %+v", st)
	}

	// With room to wait, a later caller goes after the reset.
	clock2 := newFakeClock()
	fp2 := &fakeProvider{}
	var n int
	fp2.answer = func(context.Context) error {
		n++
		if n == 1 {
			return &source.RateLimitError{Source: "fake", ResetAt: clock2.Now().Add(45 * time.Second)}
		}
		calledAt = append(calledAt[:0], clock2.Now())
		return nil
	}
	lp := Limit(fp2, Limits{MaxWait: time.Minute, Now: clock2.Now, Sleep: clock2.Sleep})
	start := clock2.Now()
	if _, err := lp.Post(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	if got := calledAt[0].Sub(start); got != 45*time.Second {
		t.Errorf("retried after %s, want 45s", got)
	}
	if st := lp.Stats(); st.RateLimited != 1 || st.Retries != 1 || st.Waits != 1 || st.WaitSeconds != 45 {
		t.Errorf("stats %+v", st)
	}
}

// TestLimitCancel: a call waiting for a slot, a token or a reset stops at once when its ctx ends.
func TestLimitCancel(t *testing.T) {
	blockingSleep := func(ctx context.Context, _ time.Duration) error {
		<-ctx.Done()
		return ctx.Err()
	}
	t.Run("slot", func(t *testing.T) {
		fp := &fakeProvider{}
		hold := make(chan struct{})
		fp.answer = func(context.Context) error { <-hold; return nil }
		lp := Limit(fp, Limits{Concurrency: 1})
		go func() { _, _ = lp.Post(context.Background(), "holder") }()
		for fp.inFlight.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { _, err := lp.Post(ctx, "waiter"); done <- err }()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the waiting call did not stop")
		}
		close(hold)
	})
	t.Run("token", func(t *testing.T) {
		clock := newFakeClock()
		fp := &fakeProvider{}
		lp := Limit(fp, Limits{Rate: 1, Now: clock.Now, Sleep: blockingSleep})
		if _, err := lp.Post(context.Background(), "first"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { _, err := lp.Post(ctx, "second"); done <- err }()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) || fp.calls.Load() != 1 {
				t.Errorf("err = %v after %d calls, want context.Canceled after 1", err, fp.calls.Load())
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the waiting call did not stop")
		}
		// The cancelled call gave its token back.
		if at := lp.tat.Sub(clock.Now()); at != time.Second {
			t.Errorf("bucket full until %s from now, want 1s", at)
		}
	})
	t.Run("reset", func(t *testing.T) {
		clock := newFakeClock()
		fp := &fakeProvider{}
		fp.answer = func(context.Context) error {
			return &source.RateLimitError{Source: "fake", ResetAt: clock.Now().Add(10 * time.Second)}
		}
		lp := Limit(fp, Limits{MaxWait: time.Minute, Now: clock.Now, Sleep: blockingSleep})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { _, err := lp.Post(ctx, "urn"); done <- err }()
		for fp.calls.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the waiting call did not stop")
		}
	})
	t.Run("deadline before the reset", func(t *testing.T) {
		fp := &fakeProvider{}
		fp.answer = func(context.Context) error {
			return &source.RateLimitError{Source: "fake", ResetAt: time.Now().Add(time.Hour)}
		}
		lp := Limit(fp, Limits{MaxWait: 2 * time.Hour, Sleep: blockingSleep})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var rl *source.RateLimitError
		if _, err := lp.Post(ctx, "urn"); !errors.As(err, &rl) {
			t.Errorf("err = %v, want the rate limit error at once", err)
		}
	})
}

// TestLimitInteractive: a call a client waits on is neither held by a pending reset nor waits
// for its own: the vendor answers it, and its 429 comes back at once and pauses the others.
func TestLimitInteractive(t *testing.T) {
	clock := newFakeClock()
	start := clock.Now()
	fp := &fakeProvider{}
	limited := map[string]bool{"ratelimited": true}
	fp.answer = func(ctx context.Context) error {
		if limited[ctx.Value(nameKey{}).(string)] {
			return &source.RateLimitError{Source: "fake", ResetAt: clock.Now().Add(30 * time.Second)}
		}
		return nil
	}
	lp := Limit(fp, Limits{MaxWait: time.Minute, Rate: 100, Burst: 5, Now: clock.Now, Sleep: clock.Sleep})
	call := func(ctx context.Context, name string) error {
		_, err := lp.Post(context.WithValue(ctx, nameKey{}, name), "urn")
		return err
	}
	var rl *source.RateLimitError
	if err := call(Interactive(context.Background()), "ratelimited"); !errors.As(err, &rl) || fp.calls.Load() != 1 {
		t.Fatalf("interactive 429: err %v after %d calls, want the vendor's rate limit error after 1", err, fp.calls.Load())
	}
	if got := clock.Now().Sub(start); got != 0 {
		t.Fatalf("the interactive call waited %s", got)
	}
	// Another interactive call is not held by the pause: the vendor answers it.
	if err := call(Interactive(context.Background()), "ok"); err != nil || fp.calls.Load() != 2 || clock.Now() != start {
		t.Fatalf("interactive call during the pause: err %v, %d calls, waited %s", err, fp.calls.Load(), clock.Now().Sub(start))
	}
	// A background call waits for the reset the interactive call met.
	if err := call(context.Background(), "ok"); err != nil || clock.Now().Sub(start) != 30*time.Second {
		t.Fatalf("background call: err %v, waited %s, want the 30s reset", err, clock.Now().Sub(start))
	}
	if st := lp.Stats(); st.RateLimited != 1 || st.Retries != 0 {
		t.Errorf("stats %+v", st)
	}
}

type nameKey struct{}

// TestLimitOnAStoppedClock: a service on an injected clock that stands still while the limiter
// sleeps for real keeps its bucket and pauses on the wall clock, so calls keep the rate instead
// of each waiting longer than the one before; a vendor's reset, given on the stopped clock, is
// a pause of what is left of it.
func TestLimitOnAStoppedClock(t *testing.T) {
	stopped := time.Date(2030, 6, 1, 7, 0, 0, 0, time.UTC) // days away from the wall clock
	wall := newFakeClock()
	fp := &fakeProvider{}
	lp := Limit(fp, Limits{Rate: 5, Burst: 5, MaxWait: time.Minute, Now: func() time.Time { return stopped },
		Wall: wall.Now, Sleep: wall.Sleep})
	for range 50 {
		if _, err := lp.Post(context.Background(), "urn"); err != nil {
			t.Fatal(err)
		}
	}
	for i, d := range wall.sleeps {
		if d > 200*time.Millisecond {
			t.Fatalf("sleep %d = %s, want at most one token's 200ms", i, d)
		}
	}
	if got, want := wall.Now().Sub(newFakeClock().Now()), 9*time.Second; got != want {
		t.Errorf("50 calls at 5/s with a burst of 5 took %s, want %s", got, want)
	}

	limited := true
	fp.answer = func(context.Context) error {
		if limited {
			limited = false
			return &source.RateLimitError{Source: "fake", ResetAt: stopped.Add(30 * time.Second)}
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	before := wall.Now()
	if _, err := lp.Post(ctx, "urn"); err != nil {
		t.Fatal(err)
	}
	if got := wall.Now().Sub(before); got < 30*time.Second || got > 31*time.Second {
		t.Errorf("paused %s for a reset 30 s away on the providers' clock", got)
	}
}

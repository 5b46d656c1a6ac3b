package jobs

import (
	"context"
	"log/slog"
	"time"
)

// Heartbeat tells the other processes sharing a PostgreSQL database that
// this one is alive, every Interval, and hands back the work of those that
// stopped (store.Beat); when it handed something back it kicks the scans,
// which take the work over at once.
type Heartbeat struct {
	// Beat records a beat at now and answers how much work of gone
	// processes it handed back.
	Beat func(ctx context.Context, now time.Time) (int64, error)
	// Kick runs the due-work scans (Runner.Kick).
	Kick     func(ctx context.Context) error
	Now      func() time.Time
	Interval time.Duration
	Log      *slog.Logger
	// Ticks, when set (tests), replaces the interval's ticker.
	Ticks <-chan time.Time

	cancel context.CancelFunc
	done   chan struct{}
}

// Start beats at once, then every Interval until Stop.
func (h *Heartbeat) Start(ctx context.Context) {
	ctx, h.cancel = context.WithCancel(ctx)
	h.done = make(chan struct{})
	go func() {
		defer close(h.done)
		ticks := h.Ticks
		if ticks == nil {
			t := time.NewTicker(h.Interval)
			defer t.Stop()
			ticks = t.C
		}
		for {
			h.beat(ctx)
			select {
			case <-ctx.Done():
				return
			case <-ticks:
			}
		}
	}()
}

// Stop ends the beats and waits for the one in progress.
func (h *Heartbeat) Stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	<-h.done
}

func (h *Heartbeat) beat(ctx context.Context) {
	handed, err := h.Beat(ctx, h.Now())
	if err != nil {
		if ctx.Err() == nil {
			h.Log.Warn("heartbeat failed; the next one retries", "error", err)
		}
		return
	}
	if handed == 0 {
		return
	}
	h.Log.Info("took over the work of a process that stopped beating", "claims_and_jobs", handed)
	if err := h.Kick(ctx); err != nil && ctx.Err() == nil {
		// The leader's tick finds the work all the same.
		h.Log.Warn("kick the due-work scans", "error", err)
	}
}

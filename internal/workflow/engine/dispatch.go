package engine

import (
	"context"
	"log/slog"
	"time"
)

// EventRepo fires event-triggered workflows on the outboxes that
// collection writes: the saved searches' new posts and the topics'
// engagements.
type EventRepo interface {
	DispatchNewPosts(ctx context.Context, lease time.Duration, limit int) (int, error)
	DispatchEngagements(ctx context.Context, lease time.Duration, limit int) (int, error)
}

// dispatchEvents fires workflows on every unprocessed outbox event, a
// batch per transaction.
func dispatchEvents(ctx context.Context, repo EventRepo, lease time.Duration) error {
	for _, dispatch := range []func(context.Context, time.Duration, int) (int, error){repo.DispatchNewPosts, repo.DispatchEngagements} {
		for {
			n, err := dispatch(ctx, lease, dispatchBatch)
			if err != nil {
				return err
			}
			if n < dispatchBatch {
				break
			}
		}
	}
	return nil
}

// Dispatcher fires workflows on new outbox events as soon as collection
// commits them, instead of at the next tick: the store kicks it after a
// commit that wrote events. Kicks while it works fold into one more pass.
// It only wakes up what the database already holds, so a kick lost to a
// crash costs latency, not events: the tick dispatches whatever is left.
type Dispatcher struct {
	Repo  EventRepo
	Lease time.Duration
	Log   *slog.Logger
	kicks chan struct{}
}

// NewDispatcher returns a dispatcher; Run it, then Kick it.
func NewDispatcher(repo EventRepo, lease time.Duration, log *slog.Logger) *Dispatcher {
	return &Dispatcher{Repo: repo, Lease: lease, Log: log, kicks: make(chan struct{}, 1)}
}

// Kick asks for a pass; it never blocks.
func (d *Dispatcher) Kick() {
	select {
	case d.kicks <- struct{}{}:
	default:
	}
}

// Run dispatches on every kick until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.kicks:
			if err := dispatchEvents(ctx, d.Repo, d.Lease); err != nil && ctx.Err() == nil {
				d.Log.Warn("dispatch events (the tick will retry)", "error", err)
			}
		}
	}
}

package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/jobs"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// TestKickIsNotSwallowedByATick: ticks are unique per second, so a tick of
// the second a killed process last ticked in would be skipped; the kick a
// restart or a heartbeat sends after handing work back is always inserted.
func TestKickIsNotSwallowedByATick(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, store.SQLite, nil)
	runner, err := jobs.New(jobs.Config{Store: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, TickInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		var n int
		if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM river_job`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for range 2 {
		if err := runner.Enqueue(ctx, jobs.TickArgs{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ticks := count()
	for range 2 {
		if err := runner.Kick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := count() - ticks; got != 2 {
		t.Fatalf("two kicks inserted %d jobs beside %d ticks, want 2", got, ticks)
	}
}

// TestWorkBeginRunsBeforeEachJob: the hook that adopts claims
// (store.AdoptJob) sees every job this process starts, with its kind and
// arguments.
func TestWorkBeginRunsBeforeEachJob(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, store.SQLite, nil)
	began := make(chan string, 10)
	runner, err := jobs.New(jobs.Config{Store: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now,
		TickInterval: time.Hour, Work: true, Workers: 1,
		WorkBegin: func(_ context.Context, kind string, _ []byte) error { began <- kind; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer runner.Stop(ctx)
	if err := runner.Kick(ctx); err != nil {
		t.Fatal(err)
	}
	for kind := range began {
		if kind == (jobs.KickArgs{}).Kind() {
			return
		}
	}
}

package store_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/jobs"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// TestFirstRunJobCommitsWithTheSearch: the job of a new search's first run
// is inserted in the creation's transaction, so a creation that fails (here
// for want of credits) leaves no job, and one that succeeds leaves one, with
// the run claimed for the lease so the tick does not start it twice.
func TestFirstRunJobCommitsWithTheSearch(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		s := storetest.Open(t, engine, clk.Now)
		runner, err := jobs.New(jobs.Config{Store: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clk.Now, TickInterval: time.Hour,
			Register: func(w *river.Workers) { river.AddWorker(w, &search.RunWorker{}) }})
		if err != nil {
			t.Fatal(err)
		}
		s.SetJobInserter(runner)
		a := newAccount(t, s, auth.PlanStarter)
		jobsOfKind := func() int {
			var n int
			err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE kind = $1`, search.RunArgs{}.Kind()).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		sr := search.Search{AccountID: a.ID, Name: "n", Kind: search.KindPosts, Definition: search.Definition{Keywords: []string{"crm"}, Frequency: search.Daily}}
		broke := credits.Charge{AccountID: a.ID, Feature: credits.SearchCreate, Amount: 1, Allocation: 0}
		if err := s.CreateSearch(ctx, &sr, broke, 10*time.Minute); !errors.Is(err, credits.ErrInsufficient) {
			t.Fatalf("create without credits: err = %v", err)
		}
		if n := jobsOfKind(); n != 0 {
			t.Fatalf("a failed creation left %d run jobs", n)
		}
		paid := credits.Charge{AccountID: a.ID, Feature: credits.SearchCreate, Amount: 1, Allocation: 10}
		if err := s.CreateSearch(ctx, &sr, paid, 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		if n := jobsOfKind(); n != 1 {
			t.Fatalf("creation left %d run jobs, want 1", n)
		}
		if due, err := s.ClaimDue(ctx, clk.Now(), time.Minute, 10); err != nil || len(due) != 0 {
			t.Fatalf("the tick would claim %v (%v): the first run is already enqueued", due, err)
		}
	})
}

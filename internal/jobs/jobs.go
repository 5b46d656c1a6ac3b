// Package jobs runs Trawl's background work on River. Application tables
// say what is due; River runs the work, retries it with backoff and elects
// the leader that fires the periodic tick. Capabilities hang their due-work
// scans on the tick as Scanners.
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/trawlhq/trawl/internal/store"
)

// Scanner finds work that is due at now and carries it out or enqueues it.
// It must be safe to run again after a crash: what is due lives in the
// database, so a scan that died half-way is simply repeated.
type Scanner interface {
	Name() string
	ScanDue(ctx context.Context, now time.Time) error
}

// Config configures the runner.
type Config struct {
	Store *store.Store
	Log   *slog.Logger
	Now   func() time.Time
	// Work is false for processes that only enqueue (TRAWL_ROLE=api).
	Work bool
	// TickInterval is how often the leader fires the tick.
	TickInterval time.Duration
	// Workers is how many jobs run at once in this process.
	Workers int
	// ID names the River client: the process's id (store.ProcessID), so
	// that the jobs a gone process was running can be told apart.
	ID string
	// Lease is how long claimed work may take (TRAWL_SEARCH_RUN_LEASE);
	// River rescues a job running longer than any job may.
	Lease time.Duration
	// WorkBegin, when set, runs before each job in this process
	// (store.AdoptJob).
	WorkBegin func(ctx context.Context, kind string, encodedArgs []byte) error
	// Register adds capability workers beside the tick.
	Register func(*river.Workers)
	Scanners []Scanner
}

// Runner owns the River client of the process.
type Runner struct {
	start func(context.Context) error
	stop  func(context.Context) error
	// insert enqueues a job; usable before Start and in the api role.
	insert func(context.Context, river.JobArgs, *river.InsertOpts) (*rivertype.JobInsertResult, error)
	// insertTx enqueues a job inside a store transaction.
	insertTx func(context.Context, store.JobTx, river.JobArgs, *river.InsertOpts) error
}

// TickArgs is the periodic job that runs every Scanner.
type TickArgs struct{}

// Kind is River's name for the job.
func (TickArgs) Kind() string { return "trawl.tick" }

// InsertOpts keeps ticks from piling up: at most one per interval.
func (TickArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByPeriod: time.Second}}
}

// KickArgs runs the scans once, now (Runner.Kick). It is not unique: a
// tick of the same second, finished or left by a process that is gone,
// must not swallow it.
type KickArgs struct{}

// Kind is River's name for the job.
func (KickArgs) Kind() string { return "trawl.kick" }

// InsertOpts: one attempt, as a tick.
func (KickArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// scanWorker runs every Scanner, for ticks and kicks.
type scanWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	scanners []Scanner
	now      func() time.Time
	log      *slog.Logger
}

func (w *scanWorker[T]) Work(ctx context.Context, _ *river.Job[T]) error {
	now := w.now()
	var errs []error
	for _, s := range w.scanners {
		if err := s.ScanDue(ctx, now); err != nil {
			w.log.Error("due-work scan failed", "scanner", s.Name(), "error", err)
			errs = append(errs, fmt.Errorf("%s: %w", s.Name(), err))
		}
	}
	return errors.Join(errs...)
}

// tickTimeout bounds one tick so that a stuck scan cannot hold the leader.
const tickTimeout = 5 * time.Minute

// Timeout bounds one tick.
func (w *scanWorker[T]) Timeout(*river.Job[T]) time.Duration { return tickTimeout }

// rescueAfter is when River's rescuer retries a job still running: once it
// has run longer than any job may (its lease, the tick's timeout), its
// process is stuck. Jobs of a process that died are handed back within the
// heartbeat timeout instead (store.Beat), not by River.
func rescueAfter(lease time.Duration) time.Duration {
	return max(lease, tickTimeout, river.JobTimeoutDefault) + time.Minute
}

// New builds the River client on the store's engine.
func New(cfg Config) (*Runner, error) {
	workers := river.NewWorkers()
	river.AddWorker(workers, &scanWorker[TickArgs]{scanners: cfg.Scanners, now: cfg.Now, log: cfg.Log})
	river.AddWorker(workers, &scanWorker[KickArgs]{scanners: cfg.Scanners, now: cfg.Now, log: cfg.Log})
	if cfg.Register != nil {
		cfg.Register(workers)
	}
	rc := &river.Config{
		ID:                   cfg.ID,
		Logger:               cfg.Log.With("component", "river"),
		Workers:              workers,
		RescueStuckJobsAfter: rescueAfter(cfg.Lease),
	}
	if cfg.WorkBegin != nil {
		rc.Hooks = []rivertype.Hook{river.HookWorkBeginFunc(func(ctx context.Context, job *rivertype.JobRow) error {
			return cfg.WorkBegin(ctx, job.Kind, job.EncodedArgs)
		})}
	}
	if cfg.Work {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: max(cfg.Workers, 1)}}
		rc.PeriodicJobs = []*river.PeriodicJob{river.NewPeriodicJob(
			river.PeriodicInterval(cfg.TickInterval),
			func() (river.JobArgs, *river.InsertOpts) { return TickArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true},
		)}
	}
	if cfg.Store.Dialect() == store.Postgres {
		return newRunner(riverpgxv5.New(cfg.Store.PgxPool()), rc, func(tx store.JobTx) pgx.Tx { return tx.Pgx })
	}
	rc.FetchPollInterval = 500 * time.Millisecond
	return newRunner(riversqlite.New(cfg.Store.DB()), rc, func(tx store.JobTx) *sql.Tx { return tx.SQL })
}

// newRunner builds the runner on driver; txOf picks the driver's view of a
// store transaction.
func newRunner[TTx any](driver riverdriver.Driver[TTx], rc *river.Config, txOf func(store.JobTx) TTx) (*Runner, error) {
	client, err := river.NewClient(driver, rc)
	if err != nil {
		return nil, fmt.Errorf("jobs: new river client: %w", err)
	}
	return &Runner{
		start:  client.Start,
		stop:   client.Stop,
		insert: client.Insert,
		insertTx: func(ctx context.Context, tx store.JobTx, args river.JobArgs, opts *river.InsertOpts) error {
			_, err := client.InsertTx(ctx, txOf(tx), args, opts)
			return err
		},
	}, nil
}

// Start runs the workers (and, on the elected leader, the periodic tick).
func (r *Runner) Start(ctx context.Context) error {
	if err := r.start(ctx); err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	return nil
}

// Stop stops fetching new jobs and waits for running ones until ctx ends;
// jobs still running then are handed back to the queue by River's rescuer.
func (r *Runner) Stop(ctx context.Context) error {
	if err := r.stop(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("jobs: stop: %w", err)
	}
	return nil
}

// InsertTx inserts a job in a store transaction: it exists exactly when the
// transaction commits (store.JobInserter).
func (r *Runner) InsertTx(ctx context.Context, tx store.JobTx, args river.JobArgs, opts *river.InsertOpts) error {
	if err := r.insertTx(ctx, tx, args, opts); err != nil {
		return fmt.Errorf("jobs: enqueue %s in transaction: %w", args.Kind(), err)
	}
	return nil
}

// Kick runs the due-work scans now, on whichever worker is free first,
// without waiting for the leader's next tick.
func (r *Runner) Kick(ctx context.Context) error { return r.Enqueue(ctx, KickArgs{}, nil) }

// Enqueue inserts a job.
func (r *Runner) Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error {
	if _, err := r.insert(ctx, args, opts); err != nil {
		return fmt.Errorf("jobs: enqueue %s: %w", args.Kind(), err)
	}
	return nil
}

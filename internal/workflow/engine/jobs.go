package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/trawlhq/trawl/internal/workflow"
)

// Worker runs ExecuteArgs jobs.
type Worker struct {
	river.WorkerDefaults[workflow.ExecuteArgs]
	Engine *Engine
}

// Work advances the execution; failures are recorded in it, not retried.
func (w *Worker) Work(ctx context.Context, job *river.Job[workflow.ExecuteArgs]) error {
	return w.Engine.Run(ctx, job.Args.ExecutionID, job.Args.Claim)
}

// Timeout lets a run take its lease.
func (w *Worker) Timeout(*river.Job[workflow.ExecuteArgs]) time.Duration { return w.Engine.Lease }

// SchedulerRepo is what the scheduler needs of the store.
type SchedulerRepo interface {
	ClaimDueExecutions(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]workflow.ExecuteArgs, error)
	PruneExecutions(ctx context.Context, cutoff time.Time) (int64, error)
	EventRepo
	DispatchSchedules(ctx context.Context, now time.Time, lease time.Duration, limit int) (int, error)
}

// Scheduler runs on the tick: it fires new-post workflows on the saved
// searches' outbox, engagement workflows on the topics' outbox, and scheduled workflows on their cron, resumes executions whose worker was lost or whose
// delay ended without their job, and prunes executions past their
// retention.
type Scheduler struct {
	Repo      SchedulerRepo
	Lease     time.Duration
	Retention time.Duration
	Enqueue   func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error
}

// Name names the scanner in logs.
func (s *Scheduler) Name() string { return "workflow executions" }

// dispatchBatch is how many outbox events one transaction fires.
const dispatchBatch = 500

// ScanDue fires workflows on new outbox events, claims due executions and
// enqueues their jobs.
func (s *Scheduler) ScanDue(ctx context.Context, now time.Time) error {
	if err := dispatchEvents(ctx, s.Repo, s.Lease); err != nil {
		return err
	}
	for {
		n, err := s.Repo.DispatchSchedules(ctx, now, s.Lease, dispatchBatch)
		if err != nil {
			return err
		}
		if n < dispatchBatch {
			break
		}
	}
	for {
		due, err := s.Repo.ClaimDueExecutions(ctx, now, s.Lease, 100)
		if err != nil {
			return err
		}
		for _, args := range due {
			if err := s.Enqueue(ctx, args, nil); err != nil {
				return fmt.Errorf("engine: enqueue execution %s: %w", args.ExecutionID, err)
			}
		}
		if len(due) < 100 {
			break
		}
	}
	if _, err := s.Repo.PruneExecutions(ctx, now.Add(-s.Retention)); err != nil {
		return err
	}
	return nil
}

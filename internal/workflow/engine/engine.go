// Package engine runs workflow executions: it walks a definition from
// $source, step by step, committing each step's record before the next
// step depends on it, so that an execution interrupted anywhere resumes
// from its first unfinished step in whichever process picks it up.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
)

// Repository is the state the engine keeps.
type Repository interface {
	Execution(ctx context.Context, id string) (workflow.Execution, []workflow.Step, error)
	SaveSteps(ctx context.Context, x workflow.Execution, steps []workflow.Step, charge *store.Charge, lease time.Duration) error
	ParkExecution(ctx context.Context, x workflow.Execution, steps []workflow.Step, until time.Time) error
	FinishExecution(ctx context.Context, x workflow.Execution, steps []workflow.Step, status workflow.ExecutionStatus, errMsg string) error
}

// Engine advances executions.
type Engine struct {
	Repo      Repository
	Catalogue *action.Catalogue
	Executors map[string]action.Executor
	// Secret opens an account secret by name.
	Secret func(ctx context.Context, accountID, name string) (string, error)
	// Allocation is an account's monthly credits, for charges.
	Allocation func(ctx context.Context, accountID string) (int64, error)
	Now        func() time.Time
	// Sleep waits between attempts; nil waits on a timer (tests inject).
	Sleep func(ctx context.Context, d time.Duration) error
	Lease time.Duration
	Log   *slog.Logger

	mu       sync.Mutex
	programs map[programKey]*workflow.Program
}

type programKey struct {
	workflowID string
	version    int64
	testRun    string // test runs may carry a draft: compiled apart
}

// maxPrograms bounds the compiled definitions kept in memory.
const maxPrograms = 1024

// program compiles a definition once per workflow version.
func (e *Engine) program(x workflow.Execution) (*workflow.Program, error) {
	key := programKey{x.WorkflowID, x.Version, ""}
	if x.Test != nil {
		key.testRun = x.ID
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.programs[key]; ok {
		return p, nil
	}
	p, err := workflow.Compile(x.Definition)
	if err != nil {
		return nil, err
	}
	if e.programs == nil || len(e.programs) >= maxPrograms {
		e.programs = map[programKey]*workflow.Program{}
	}
	if x.Test == nil {
		e.programs[key] = p
	}
	return p, nil
}

// errParked stops a run that waits for a delay.
var errParked = errors.New("engine: execution parked")

// Run advances an execution as far as it goes: to its end, to a delay,
// or until its claim is lost.
func (e *Engine) Run(ctx context.Context, id, claim string) error {
	x, steps, err := e.Repo.Execution(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if x.Status != workflow.ExecutionRunning || x.Claim != claim {
		return nil
	}
	prog, err := e.program(x)
	if err != nil {
		return e.finish(ctx, x, nil, workflow.ExecutionFailed, "the definition does not compile: "+err.Error())
	}
	r := newRun(e, x, prog, steps)
	_, err = r.region(ctx, r.topLevel(), workflow.Source, r.baseScope(), "")
	var failed *stepFailed
	switch {
	case errors.Is(err, errParked), errors.Is(err, store.ErrClaimLost):
		return nil
	case errors.As(err, &failed):
		return e.finish(ctx, x, r.pending, workflow.ExecutionFailed, failed.Error())
	case err != nil:
		return err
	}
	return e.finish(ctx, x, r.pending, workflow.ExecutionCompleted, "")
}

func (e *Engine) finish(ctx context.Context, x workflow.Execution, steps []workflow.Step, status workflow.ExecutionStatus, msg string) error {
	err := e.Repo.FinishExecution(ctx, x, steps, status, msg)
	if errors.Is(err, store.ErrClaimLost) {
		return nil
	}
	return err
}

// stepFailed ends an execution as failed.
type stepFailed struct {
	stepID string
	err    *workflow.StepError
}

func (f *stepFailed) Error() string {
	return fmt.Sprintf("step %s failed: %s: %s", f.stepID, f.err.Code, f.err.Message)
}

func insufficient(err error) bool { return errors.Is(err, credits.ErrInsufficient) }

func (e *Engine) sleep(ctx context.Context, d time.Duration) error {
	if e.Sleep != nil {
		return e.Sleep(ctx, d)
	}
	return sleepContext(ctx, d)
}

// sleepContext waits d unless ctx ends first.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

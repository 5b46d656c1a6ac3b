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
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/workflow"
)

// Repository is the state the engine keeps.
type Repository interface {
	CreateExecution(ctx context.Context, x *workflow.Execution, steps []workflow.Step, lease time.Duration, inline bool) (bool, error)
	Execution(ctx context.Context, id string) (workflow.Execution, []workflow.Step, error)
	SaveSteps(ctx context.Context, x workflow.Execution, steps []workflow.Step, charge *credits.Charge, lease time.Duration) error
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
	// Connection opens an account's connection of a type (nil: steps
	// that act through one fail NOT_CONNECTED).
	Connection func(ctx context.Context, accountID, typ string) (*integration.Conn, error)
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

// errDuplicate stops a run whose event had fired the workflow before.
var errDuplicate = errors.New("engine: event fired before")

// Outcome is where a run left an execution.
type Outcome struct {
	ExecutionID string
	// Stored says the execution is in the database (Start stores it
	// only when a step acts outside it, or when it ends).
	Stored bool
	// Duplicate says the execution's event had fired the workflow
	// before: nothing ran, and ExecutionID is the earlier execution.
	Duplicate bool
	Status    workflow.ExecutionStatus
	Error     string
	// Output is the output of the step that completed last.
	Output any
}

// Run advances a stored execution as far as it goes: to its end, to a
// delay, or until its claim is lost.
func (e *Engine) Run(ctx context.Context, id, claim string) error {
	x, steps, err := e.Repo.Execution(ctx, id)
	if errors.Is(err, workflow.ErrExecutionNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if x.Status != workflow.ExecutionRunning || x.Claim != claim {
		return nil
	}
	_, err = e.walk(ctx, x, steps, false)
	return err
}

// Start runs a new execution that is not stored yet, for a caller that
// waits for its end. Steps without effects outside the execution (control
// flow, set) run in memory; the execution is stored, claimed, with those
// steps before the first step that acts outside it, or at its end, so an
// execution that only computes costs one write. A crash before that write
// loses nothing the caller was told about.
func (e *Engine) Start(ctx context.Context, x workflow.Execution) (Outcome, error) {
	now := e.Now().UTC().Truncate(time.Millisecond)
	if x.ID == "" {
		x.ID = ident.New()
	}
	x.Status, x.Claim, x.CreatedAt, x.StartedAt = workflow.ExecutionRunning, ident.New(), now, now
	return e.walk(ctx, x, nil, true)
}

func (e *Engine) walk(ctx context.Context, x workflow.Execution, steps []workflow.Step, unsaved bool) (Outcome, error) {
	prog, err := e.program(x)
	r := newRun(e, x, prog, steps)
	r.unsaved = unsaved
	if err != nil {
		return r.finish(ctx, workflow.ExecutionFailed, "the definition does not compile: "+err.Error())
	}
	_, err = r.region(ctx, r.topLevel(), workflow.Source, r.baseScope(), "")
	var failed *stepFailed
	switch {
	case errors.Is(err, errDuplicate), errors.Is(err, errParked), errors.Is(err, workflow.ErrClaimLost):
		return r.outcome(workflow.ExecutionRunning, ""), nil
	case errors.As(err, &failed):
		return r.finish(ctx, workflow.ExecutionFailed, failed.Error())
	case err != nil:
		return r.outcome(workflow.ExecutionRunning, ""), err
	}
	return r.finish(ctx, workflow.ExecutionCompleted, "")
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

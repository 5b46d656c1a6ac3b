package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/workflow"
)

// execute runs a step that has not completed.
func (r *run) execute(ctx context.Context, a workflow.Action, st workflow.Step, sc scope, path string) (workflow.Step, error) {
	input, err := r.prog.Resolve(a.Inputs, r.env(sc))
	if err != nil {
		return st, r.fail(ctx, st, &workflow.StepError{Code: action.CodeInvalidInput, Message: err.Error()})
	}
	st.Input = input
	spec, _ := r.e.Catalogue.Lookup(a.Kind)
	if msgs := checkInputs(spec, input); len(msgs) > 0 {
		return st, r.fail(ctx, st, &workflow.StepError{Code: action.CodeInvalidInput, Message: strings.Join(msgs, "; ")})
	}
	if r.x.Test != nil {
		if m, ok := r.x.Test.Mocks[a.ID]; ok && m.Enabled {
			if msg := outputProblems(spec, m.Output); r.x.Test.StrictDataValidation && msg != "" {
				return st, r.fail(ctx, st, &workflow.StepError{Code: "OUTPUT_MISMATCH", Message: "the mock's " + msg})
			}
			return r.complete(ctx, st, m.Output, false)
		}
	}
	switch a.Kind {
	case action.KindIf:
		return r.complete(ctx, st, map[string]any{"result": input["condition"]}, false)
	case action.KindFilter:
		return r.complete(ctx, st, map[string]any{"passed": input["condition"]}, false)
	case action.KindSet:
		return r.complete(ctx, st, input["values"], false)
	case action.KindExit:
		return r.complete(ctx, st, map[string]any{"reason": input["reason"]}, false)
	case action.KindDelay:
		return r.delay(ctx, st, input)
	case action.KindLoop:
		return r.loop(ctx, a, st, sc, path, input)
	}
	return r.call(ctx, a, spec, st, input)
}

// checkInputs checks resolved inputs against the catalogue's types.
func checkInputs(spec action.Spec, in map[string]any) []string {
	var out []string
	for _, decl := range spec.Inputs {
		v, ok := in[decl.Name]
		if !ok || v == nil {
			if decl.Required {
				out = append(out, decl.Name+" is required")
			}
			continue
		}
		if msg := workflow.TypeProblem(decl, v); msg != "" {
			out = append(out, decl.Name+" "+msg)
		}
	}
	return out
}

func (r *run) delay(ctx context.Context, st workflow.Step, in map[string]any) (workflow.Step, error) {
	now := r.e.Now()
	if st.ResumeAt == nil {
		var until time.Time
		if s, ok := in["duration"].(string); ok {
			d, err := action.ParseDelay(s)
			if err != nil {
				return st, r.fail(ctx, st, &workflow.StepError{Code: action.CodeInvalidInput, Message: "duration " + err.Error()})
			}
			until = now.Add(d)
		} else if s, ok := in["until"].(string); ok {
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return st, r.fail(ctx, st, &workflow.StepError{Code: action.CodeInvalidInput, Message: "until must be an ISO 8601 time"})
			}
			until = t
		} else {
			return st, r.fail(ctx, st, &workflow.StepError{Code: action.CodeInvalidInput, Message: "give duration or until"})
		}
		if until.Sub(now) > action.MaxDelay {
			return st, r.fail(ctx, st, &workflow.StepError{Code: action.CodeInvalidInput, Message: "a delay may last at most 30 days"})
		}
		st.Status, st.StartedAt, st.ResumeAt = workflow.StepRunning, &now, &until
	}
	if now.Before(*st.ResumeAt) {
		if err := r.persist(ctx); err != nil {
			return st, err
		}
		if err := r.e.Repo.ParkExecution(ctx, r.x, append(r.pending, st), *st.ResumeAt); err != nil {
			return st, err
		}
		r.pending = nil
		return st, errParked
	}
	return r.complete(ctx, st, map[string]any{"resumed_at": now.UTC().Format(time.RFC3339Nano)}, true)
}

func (r *run) loop(ctx context.Context, a workflow.Action, st workflow.Step, sc scope, path string, in map[string]any) (workflow.Step, error) {
	items, ok := in["items"].([]any)
	if !ok {
		return st, r.fail(ctx, st, &workflow.StepError{Code: action.CodeInvalidInput, Message: "items must be an array, got " + action.JSONTypeName(in["items"])})
	}
	if len(items) > action.MaxLoopItems {
		return st, r.fail(ctx, st, &workflow.StepError{Code: action.CodeInvalidInput, Message: fmt.Sprintf("items holds %d; at most %d", len(items), action.MaxLoopItems)})
	}
	if st.Status != workflow.StepRunning {
		now := r.e.Now()
		st.Status, st.StartedAt = workflow.StepRunning, &now
		r.later(st)
	}
	body := r.body[a.ID]
	results := make([]any, 0, len(items))
	for i, item := range items {
		inner := scope{steps: map[string]any{}, loop: map[string]any{"item": item, "index": float64(i)}}
		for k, v := range sc.steps {
			inner.steps[k] = v
		}
		sub := path + "#" + strconv.Itoa(i)
		exited, err := r.region(ctx, body, a.ID, inner, sub)
		var failed *stepFailed
		if errors.As(err, &failed) {
			// The loop fails with the item that failed, recorded with the
			// execution's end, rather than staying running forever.
			now := r.e.Now()
			st.Status, st.EndedAt = workflow.StepFailed, &now
			st.Error = &workflow.StepError{Code: "ITEM_FAILED", Message: fmt.Sprintf("item %d: %s", i, failed.Error())}
			r.later(st)
		}
		if err != nil {
			return st, err
		}
		results = append(results, r.lastOutput(body, sub))
		if exited {
			break
		}
	}
	return r.complete(ctx, st, map[string]any{"results": results, "count": float64(len(results))}, false)
}

// lastOutput is the output of the body step that ran last in one item.
func (r *run) lastOutput(body map[string]bool, path string) any {
	var last *workflow.Step
	for id := range body {
		if st, ok := r.records[id+path]; ok && st.Status == workflow.StepCompleted && (last == nil || st.Seq > last.Seq) {
			last = &st
		}
	}
	if last == nil {
		return nil
	}
	return last.Output
}

// call runs an action through its executor, with the step's retries and
// time limit, charging its cost once: as it starts, or with its output
// (action.Spec.CreditPer).
func (r *run) call(ctx context.Context, a workflow.Action, spec action.Spec, st workflow.Step, input map[string]any) (workflow.Step, error) {
	exec, ok := r.e.Executors[a.Kind]
	if !ok {
		return st, r.fail(ctx, st, &workflow.StepError{Code: "NOT_AVAILABLE", Message: a.Kind + " cannot run in this deployment yet"})
	}
	if st.Status != workflow.StepRunning {
		now := r.e.Now()
		st.Status, st.StartedAt = workflow.StepRunning, &now
		if err := r.charged(ctx, st, a.Kind, spec.UpfrontCost()); err != nil {
			return st, err
		}
	}
	attempts := 1
	var backoff time.Duration
	if a.Retry != nil {
		attempts, backoff = a.Retry.MaxAttempts, time.Duration(a.Retry.BackoffMS)*time.Millisecond
	}
	timeout := 60 * time.Second
	if a.TimeoutMS != nil {
		timeout = time.Duration(*a.TimeoutMS) * time.Millisecond
	}
	call := action.Call{AccountID: r.x.AccountID, Inputs: input, IdempotencyKey: r.x.ID + ":" + st.Key,
		Secret: func(ctx context.Context, name string) (string, error) { return r.e.Secret(ctx, r.x.AccountID, name) }}
	if r.e.Connection != nil {
		call.Connection = func(ctx context.Context, typ string) (*integration.Conn, error) {
			return r.e.Connection(ctx, r.x.AccountID, typ)
		}
	}
	for n := len(st.Attempts) + 1; ; n++ {
		started := r.e.Now()
		actx, cancel := context.WithTimeout(ctx, timeout)
		out, err := exec(actx, call)
		cancel()
		att := workflow.Attempt{Attempt: n, StartedAt: started, EndedAt: r.e.Now()}
		if err == nil {
			st.Attempts = append(st.Attempts, att)
			if r.x.Test != nil && r.x.Test.StrictDataValidation {
				if msg := outputProblems(spec, out); msg != "" {
					return st, r.fail(ctx, st, &workflow.StepError{Code: "OUTPUT_MISMATCH", Message: msg})
				}
			}
			if cost := spec.ResultCost(out); cost > 0 {
				// Paid with the record of its output, as the endpoint
				// it stands for charges what it returned.
				done := r.completed(st, out)
				return done, r.charged(ctx, done, a.Kind, cost)
			}
			return r.complete(ctx, st, out, true)
		}
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		ae := action.AsError(err)
		att.Error = &workflow.StepError{Code: ae.Code, Message: ae.Message}
		st.Attempts = append(st.Attempts, att)
		r.e.Log.Info("workflow step attempt failed", "execution_id", r.x.ID, "step", st.Key, "attempt", n, "code", ae.Code)
		if !ae.Retryable || n >= attempts {
			return st, r.fail(ctx, st, att.Error)
		}
		if err := r.save(ctx, st, nil); err != nil {
			return st, err
		}
		if err := r.e.sleep(ctx, max(backoff<<(n-1), ae.RetryAfter)); err != nil {
			return st, err
		}
	}
}

// charged saves a step's record with a charge of cost credits (none when
// 0), in one write; a balance that cannot pay fails the step instead.
func (r *run) charged(ctx context.Context, st workflow.Step, kind string, cost int64) error {
	var charge *credits.Charge
	if cost > 0 {
		alloc, err := r.e.Allocation(ctx, r.x.AccountID)
		if err != nil {
			return err
		}
		charge = &credits.Charge{AccountID: r.x.AccountID, Feature: credits.WorkflowExecution, Amount: cost,
			Allocation: alloc, Reference: r.x.ID + "/" + st.Key, WorkflowID: r.x.WorkflowID,
			Action: "workflow step " + st.Key + " (" + kind + ")"}
	}
	err := r.save(ctx, st, charge)
	if insufficient(err) {
		// An unpaid output is not kept, as the endpoint returns none.
		st.Output, st.MappedOutput = nil, nil
		return r.fail(ctx, st, &workflow.StepError{Code: "INSUFFICIENT_CREDITS",
			Message: fmt.Sprintf("the account cannot pay the %d credits of %s", cost, kind)})
	}
	return err
}

// outputProblems says how an output breaks its action's output schema
// (missing members, wrong types), every problem listed; "" when it fits.
func outputProblems(spec action.Spec, out map[string]any) string {
	if msgs := action.OutputProblems(spec, out); len(msgs) > 0 {
		return "output does not match the catalogue: " + strings.Join(msgs, "; ")
	}
	return ""
}

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
	"github.com/trawlhq/trawl/internal/workflow"
)

// run is one pass over an execution.
type run struct {
	e       *Engine
	x       workflow.Execution
	prog    *workflow.Program
	def     workflow.Definition
	records map[string]workflow.Step // by step key
	seq     int
	// out[node] lists the edges leaving it; body[loop] is its body.
	out    map[string][]int
	body   map[string]map[string]bool
	back   map[int]bool
	inBody map[string]bool
	// pending are records of steps without effects outside the execution
	// (control flow, set, skips), written with the next write: a crash
	// before it recomputes them, to the same result.
	pending []workflow.Step
	// exited is set once a builtin:exit ran (or replayed): every level
	// still walking stops.
	exited bool
	// unsaved says the execution is not stored yet (Engine.Start);
	// duplicate, that storing it found its event had fired before.
	unsaved, duplicate bool
}

func newRun(e *Engine, x workflow.Execution, prog *workflow.Program, steps []workflow.Step) *run {
	r := &run{e: e, x: x, prog: prog, def: x.Definition, records: map[string]workflow.Step{},
		out: map[string][]int{}, body: map[string]map[string]bool{}, back: map[int]bool{}, inBody: map[string]bool{}}
	for _, st := range steps {
		r.records[st.Key] = st
		r.seq = max(r.seq, st.Seq)
	}
	for i, ed := range r.def.Edges {
		r.out[ed.From] = append(r.out[ed.From], i)
	}
	// Loop bodies, as the validator defines them: what the loop edge
	// reaches without passing the loop again.
	for _, a := range r.def.Actions {
		if a.Kind != action.KindLoop {
			continue
		}
		body := map[string]bool{}
		for _, ei := range r.out[a.ID] {
			if r.edgeType(ei) == workflow.EdgeLoop {
				queue := []string{r.def.Edges[ei].To}
				body[queue[0]] = true
				for len(queue) > 0 {
					n := queue[0]
					queue = queue[1:]
					for _, ej := range r.out[n] {
						to := r.def.Edges[ej].To
						if to == a.ID {
							r.back[ej] = true
							continue
						}
						if !body[to] {
							body[to] = true
							queue = append(queue, to)
						}
					}
				}
			}
		}
		r.body[a.ID] = body
		for n := range body {
			r.inBody[n] = true
		}
	}
	return r
}

func (r *run) edgeType(i int) string {
	if c := r.def.Edges[i].Conditional; c != nil {
		return c.Type
	}
	return ""
}

func (r *run) topLevel() map[string]bool {
	nodes := map[string]bool{}
	for _, a := range r.def.Actions {
		if !r.inBody[a.ID] {
			nodes[a.ID] = true
		}
	}
	return nodes
}

// scope is what templates read: the steps visible at this point.
type scope struct {
	steps map[string]any
	loop  map[string]any
}

func (r *run) baseScope() scope { return scope{steps: map[string]any{}} }

func (r *run) env(sc scope) workflow.Env {
	env := workflow.Env{
		"trigger":  r.x.Trigger,
		"steps":    sc.steps,
		"workflow": map[string]any{"id": r.x.WorkflowID, "version": r.x.Version},
		"execution": map[string]any{"id": r.x.ID, "run_id": r.x.ID, "event_name": r.x.EventName,
			"is_test": r.x.Test != nil, "started_at": r.x.StartedAt.Format(time.RFC3339Nano)},
		"now":  r.x.StartedAt,
		"loop": sc.loop,
	}
	if env["loop"] == nil {
		env["loop"] = map[string]any{}
	}
	return env
}

// region runs the nodes of one level (the top level, or one loop item's
// body) in a deterministic order: a node runs once every edge into it
// from this level is settled, and is skipped when none of them was taken.
// It returns whether a builtin:exit ended the execution.
func (r *run) region(ctx context.Context, nodes map[string]bool, start string, sc scope, path string) (bool, error) {
	taken := map[int]bool{}
	settled := map[int]bool{}
	for _, ei := range r.out[start] {
		if start != workflow.Source && r.edgeType(ei) != workflow.EdgeLoop {
			continue
		}
		settled[ei], taken[ei] = true, true
	}
	// The edges into each step of the region, loop back edges aside.
	incoming := map[string][]int{}
	for i, ed := range r.def.Edges {
		if nodes[ed.To] && !r.back[i] && (nodes[ed.From] || ed.From == start) {
			incoming[ed.To] = append(incoming[ed.To], i)
		}
	}
	done := map[string]bool{}
	for {
		next := ""
		for _, a := range r.def.Actions {
			if !nodes[a.ID] || done[a.ID] {
				continue
			}
			ready := true
			for _, ei := range incoming[a.ID] {
				if !settled[ei] {
					ready = false
					break
				}
			}
			if ready {
				next = a.ID
				break
			}
		}
		if next == "" {
			return false, nil
		}
		done[next] = true
		run := false
		for _, ei := range incoming[next] {
			run = run || taken[ei]
		}
		a, _ := r.prog.Action(next)
		var (
			follow map[int]bool
			exited bool
			err    error
		)
		if run {
			follow, exited, err = r.step(ctx, a, sc, path)
		} else {
			err = r.skip(ctx, a, path)
		}
		if err != nil {
			return false, err
		}
		for _, ei := range r.out[next] {
			settled[ei], taken[ei] = true, follow[ei]
		}
		if exited {
			// Whatever has not run at this level is skipped.
			for _, b := range r.def.Actions {
				if nodes[b.ID] && !done[b.ID] {
					if err := r.skip(ctx, b, path); err != nil {
						return false, err
					}
				}
			}
			return true, nil
		}
	}
}

func (r *run) newRecord(a workflow.Action, path string) workflow.Step {
	key := a.ID + path
	if st, ok := r.records[key]; ok {
		return st
	}
	r.seq++
	return workflow.Step{Key: key, Seq: r.seq, StepID: a.ID, Name: a.Name, Operation: a.Kind, Status: workflow.StepPending}
}

// persist stores an execution that Start began in memory, claimed, with
// the steps pending; errDuplicate when its event had fired before.
func (r *run) persist(ctx context.Context) error {
	if !r.unsaved {
		return nil
	}
	created, err := r.e.Repo.CreateExecution(ctx, &r.x, r.pending, r.e.Lease, true)
	if err != nil {
		return err
	}
	if !created {
		r.duplicate = true
		return errDuplicate
	}
	r.unsaved, r.pending = false, nil
	return nil
}

// finish ends the execution with the steps pending, storing it with them
// when Start began it in memory.
func (r *run) finish(ctx context.Context, status workflow.ExecutionStatus, msg string) (Outcome, error) {
	// The message may quote the data (a webhook payload's string with
	// NUL), which PostgreSQL's text cannot hold; the step's own error,
	// stored as JSON, keeps it.
	msg = strings.ReplaceAll(msg, "\x00", "\uFFFD")
	if r.unsaved {
		now := r.e.Now()
		x := r.x
		x.Status, x.Error, x.EndedAt, x.ResumeAt = status, msg, &now, nil
		created, err := r.e.Repo.CreateExecution(ctx, &x, r.pending, r.e.Lease, true)
		if err != nil {
			return r.outcome(workflow.ExecutionRunning, ""), err
		}
		r.x.ID, r.unsaved, r.duplicate = x.ID, false, !created
		if !created {
			return r.outcome(workflow.ExecutionRunning, ""), nil
		}
		return r.outcome(status, msg), nil
	}
	err := r.e.Repo.FinishExecution(ctx, r.x, r.pending, status, msg)
	if errors.Is(err, workflow.ErrClaimLost) {
		return r.outcome(workflow.ExecutionRunning, ""), nil
	}
	if err != nil {
		return r.outcome(workflow.ExecutionRunning, ""), err
	}
	return r.outcome(status, msg), nil
}

// outcome reports where the run left the execution.
func (r *run) outcome(status workflow.ExecutionStatus, msg string) Outcome {
	o := Outcome{ExecutionID: r.x.ID, Stored: !r.unsaved, Duplicate: r.duplicate, Status: status, Error: msg}
	var last *workflow.Step
	for _, st := range r.records {
		if st.Status == workflow.StepCompleted && (last == nil || st.Seq > last.Seq) {
			last = &st
		}
	}
	if last != nil {
		o.Output = last.Output
	}
	return o
}

// save commits a step's record with those pending.
func (r *run) save(ctx context.Context, st workflow.Step, charge *credits.Charge) error {
	if err := r.persist(ctx); err != nil {
		return err
	}
	if err := r.e.Repo.SaveSteps(ctx, r.x, append(r.pending, st), charge, r.e.Lease); err != nil {
		return err
	}
	r.pending = nil
	r.records[st.Key] = st
	return nil
}

// later records a step to be written with the next write.
func (r *run) later(st workflow.Step) {
	r.pending = append(r.pending, st)
	r.records[st.Key] = st
}

func (r *run) skip(ctx context.Context, a workflow.Action, path string) error {
	st := r.newRecord(a, path)
	if st.Status == workflow.StepSkipped {
		return nil
	}
	st.Status = workflow.StepSkipped
	r.later(st)
	return nil
}

// step runs one action, or replays its record, and says which edges
// leaving it are taken.
func (r *run) step(ctx context.Context, a workflow.Action, sc scope, path string) (map[int]bool, bool, error) {
	st := r.newRecord(a, path)
	if st.Status != workflow.StepCompleted {
		var err error
		if st, err = r.execute(ctx, a, st, sc, path); err != nil {
			return nil, false, err
		}
	}
	sc.steps[a.ID] = map[string]any{"output": st.Output}
	follow := map[int]bool{}
	out, _ := st.Output.(map[string]any)
	for _, ei := range r.out[a.ID] {
		switch t := r.edgeType(ei); {
		case a.Kind == action.KindIf:
			result, _ := out["result"].(bool)
			follow[ei] = (t == workflow.EdgeIf) == result
		case a.Kind == action.KindFilter:
			passed, _ := out["passed"].(bool)
			follow[ei] = passed
		case a.Kind == action.KindLoop:
			follow[ei] = t == workflow.EdgeCompleted
		case t == workflow.EdgeMatch:
			ok, err := r.prog.Match(ei, r.env(sc), st.Output)
			if err != nil {
				return nil, false, r.fail(ctx, st, &workflow.StepError{Code: "INVALID_CONDITION", Message: fmt.Sprintf("edge %d: %v", ei, err)})
			}
			follow[ei] = ok
		default:
			follow[ei] = true
		}
	}
	if a.Kind == action.KindExit {
		r.exited = true
	}
	return follow, r.exited, nil
}

// fail records a step's failure and ends the execution's walk.
func (r *run) fail(ctx context.Context, st workflow.Step, se *workflow.StepError) error {
	now := r.e.Now()
	st.Status, st.Error, st.EndedAt = workflow.StepFailed, se, &now
	if st.StartedAt == nil {
		st.StartedAt = &now
	}
	if err := r.save(ctx, st, nil); err != nil {
		return err
	}
	return &stepFailed{stepID: st.StepID, err: se}
}

// complete records a completed step; effect says whether it acted outside
// the execution (then its record is committed before anything depends on
// it).
func (r *run) complete(ctx context.Context, st workflow.Step, output any, effect bool) (workflow.Step, error) {
	st = r.completed(st, output)
	if effect {
		return st, r.save(ctx, st, nil)
	}
	r.later(st)
	return st, nil
}

// completed is the record of a step that completed with output.
func (r *run) completed(st workflow.Step, output any) workflow.Step {
	now := r.e.Now()
	st.Status, st.Output, st.EndedAt, st.Error, st.ResumeAt = workflow.StepCompleted, output, &now, nil, nil
	if st.StartedAt == nil {
		st.StartedAt = &now
	}
	st.MappedOutput = r.mapped(st.StepID, output)
	return st
}

// mapped flattens the step's output into the execution's columns.
func (r *run) mapped(stepID string, output any) map[string]any {
	var out map[string]any
	for _, col := range r.def.ColumnConfig {
		if col.StepID != stepID {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		v := output
		for _, seg := range strings.Split(col.FieldPath, ".") {
			switch x := v.(type) {
			case map[string]any:
				v = x[seg]
			case []any:
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 || i >= len(x) {
					v = nil
				} else {
					v = x[i]
				}
			default:
				v = nil
			}
		}
		out[cmpOr(col.Label, col.ID)] = v
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

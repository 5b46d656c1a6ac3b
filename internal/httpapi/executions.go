package httpapi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
)

// stepOut is one step of an execution log.
type stepOut struct {
	StepID       string             `json:"step_id"`
	Key          string             `json:"key" doc:"The step id, plus #i per enclosing loop item."`
	StepName     *string            `json:"step_name"`
	Operation    string             `json:"operation" doc:"The action kind."`
	Status       string             `json:"status" enum:"pending,running,completed,failed,skipped"`
	StartedAt    *string            `json:"started_at"`
	EndedAt      *string            `json:"ended_at"`
	DurationMS   *int64             `json:"duration_ms"`
	Input        map[string]any     `json:"input" doc:"The inputs with templates resolved."`
	Output       any                `json:"output"`
	MappedOutput map[string]any     `json:"mapped_output" nullable:"true" doc:"The output's values named by column_config; null when it has none."`
	Error        *stepFailure       `json:"error" doc:"Why the step failed; null unless it did."`
	Attempts     []workflow.Attempt `json:"attempts" doc:"Every try of the step, with its error."`
	ResumeAt     *string            `json:"resume_at,omitempty" doc:"Delay steps: when they end."`
}

// stepFailure is why a step failed, or null: a type of its own because huma
// makes a named object nullable only through a tag of the type itself.
type stepFailure struct {
	_       struct{} `nullable:"true"`
	Code    string   `json:"code"`
	Message string   `json:"message"`
}

// executionOut is an execution as the API shows it.
type executionOut struct {
	ID           string            `json:"id"`
	RunID        string            `json:"run_id"`
	WorkflowID   string            `json:"workflow_id"`
	EventName    string            `json:"event_name"`
	Status       string            `json:"status" enum:"running,completed,failed"`
	StartedAt    string            `json:"started_at"`
	EndedAt      *string           `json:"ended_at"`
	DurationMS   *int64            `json:"duration_ms"`
	Created      string            `json:"created"`
	ColumnConfig []workflow.Column `json:"column_config"`
	Error        *string           `json:"error"`
	IsTest       bool              `json:"is_test"`
	RerunOf      *string           `json:"rerun_of" doc:"The failed execution this one reran."`
	Trigger      map[string]any    `json:"trigger" doc:"The event's payload."`
	Steps        []stepOut         `json:"steps,omitempty" doc:"In the order they ran (GET of one execution)."`
}

func duration(from time.Time, to *time.Time) *int64 {
	if to == nil {
		return nil
	}
	d := to.Sub(from).Milliseconds()
	return &d
}

func toExecution(x workflow.Execution, steps []workflow.Step) executionOut {
	out := executionOut{ID: x.ID, RunID: x.ID, WorkflowID: x.WorkflowID, EventName: x.EventName, Status: string(x.Status),
		StartedAt: formatTime(x.StartedAt), EndedAt: optTime(x.EndedAt), DurationMS: duration(x.StartedAt, x.EndedAt),
		Created: formatTime(x.CreatedAt), ColumnConfig: x.Definition.ColumnConfig, IsTest: x.Test != nil, Trigger: x.Trigger}
	if x.Error != "" {
		out.Error = &x.Error
	}
	if x.RerunOf != "" {
		out.RerunOf = &x.RerunOf
	}
	if steps != nil {
		out.Steps = make([]stepOut, 0, len(steps))
	}
	for _, st := range steps {
		so := stepOut{StepID: st.StepID, Key: st.Key, Operation: st.Operation, Status: string(st.Status),
			StartedAt: optTime(st.StartedAt), EndedAt: optTime(st.EndedAt), Input: st.Input, Output: st.Output,
			MappedOutput: st.MappedOutput, Attempts: st.Attempts, ResumeAt: optTime(st.ResumeAt)}
		if st.Error != nil {
			so.Error = &stepFailure{Code: st.Error.Code, Message: st.Error.Message}
		}
		if so.Input == nil {
			// A step that failed before its inputs resolved: the spec's
			// input is an object.
			so.Input = map[string]any{}
		}
		if st.StartedAt != nil {
			so.DurationMS = duration(*st.StartedAt, st.EndedAt)
		}
		if st.Name != "" {
			so.StepName = &st.Name
		}
		if so.Attempts == nil {
			so.Attempts = []workflow.Attempt{}
		}
		out.Steps = append(out.Steps, so)
	}
	return out
}

type testRunInput struct {
	ID string `path:"id" doc:"Workflow id."`
	// A pointer: huma requires a struct body whatever its tag says, and a
	// test run without a body runs with the defaults.
	Body *testRunBody `required:"false"`

	w          workflow.Workflow
	def        workflow.Definition // what the run runs: the draft when there is one
	datePosted string              // overrides.date_posted, in the payload's format
}

func (in *testRunInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *testRunInput) check(hctx huma.Context, s *Server, p *problems) error {
	ctx := hctx.Context()
	if in.Body == nil {
		in.Body = &testRunBody{}
	}
	w, err := s.accountWorkflow(ctx, in.ID)
	if err != nil {
		return err
	}
	// A test runs what is being edited.
	in.w, in.def = w, w.Definition
	if _, d, err := s.store.WorkflowDraft(ctx, w.AccountID, in.ID); err == nil {
		in.def = d.Definition
	}
	var mocks map[string]workflow.Mock
	if tc := in.Body.TestConfig; tc != nil {
		mocks = tc.ActionMocks
	}
	// The sample a test run sees is the linked search's latest result.
	if err := s.keyMayArm(ctx, arming{def: in.def, root: "/workflow", searchID: w.SearchID, mocked: mockedIn(mocks)}); err != nil {
		return err
	}
	if o := in.Body.Overrides; o != nil && o.DatePosted != nil {
		if t, err := time.Parse(time.RFC3339, *o.DatePosted); err != nil {
			p.add("body.overrides.date_posted", "%v", errBadTimestamp)
		} else {
			in.datePosted = t.UTC().Format(time.RFC3339)
		}
	}
	if tc := in.Body.TestConfig; tc != nil {
		for _, id := range slices.Sorted(maps.Keys(tc.ActionMocks)) {
			if !slices.ContainsFunc(in.def.Actions, func(a workflow.Action) bool { return a.ID == id }) {
				p.add("body.test_config.action_mocks."+id, "names no step of the workflow")
			}
		}
	}
	return nil
}

type testRunBody struct {
	Overrides *struct {
		AuthorURL  *string `json:"author_url,omitempty"`
		Text       *string `json:"text,omitempty"`
		PostURL    *string `json:"post_url,omitempty"`
		Likes      *int64  `json:"likes,omitempty"`
		Comments   *int64  `json:"comments,omitempty"`
		DatePosted *string `json:"date_posted,omitempty" doc:"ISO 8601."`
		Source     *string `json:"source,omitempty" doc:"A label."`
	} `json:"overrides,omitempty" doc:"Values of the new-post payload the run sees."`
	TestConfig *struct {
		Mode                 string                   `json:"mode,omitempty" enum:"real_with_override" doc:"The only mode: actions really run unless mocked."`
		StrictDataValidation *bool                    `json:"strict_data_validation,omitempty" doc:"Default true: fail a step whose resolved input or whose output (a mock's included) breaks the catalogue's types, every mismatch listed."`
		ActionMocks          map[string]workflow.Mock `json:"action_mocks,omitempty" doc:"Step id → {enabled, output}: the step outputs that instead of running (and costs nothing)."`
	} `json:"test_config,omitempty"`
}

type testRunOut struct {
	TestRunID   string `json:"test_run_id" doc:"Read the run at GET /v1/workflows/{id}/executions/{test_run_id}."`
	WorkflowID  string `json:"workflow_id"`
	TriggerType string `json:"trigger_type"`
}

func (s *Server) handleTestWorkflow(ctx context.Context, in *testRunInput) (*Reply[testRunOut], error) {
	acct := principalFrom(ctx).Account.ID
	w, def := in.w, in.def
	now := s.now()
	kind := def.TriggerKind()
	payload := workflow.SamplePayload(kind, now)
	if kind == workflow.TriggerNewPost && w.SearchID != "" {
		// The linked search's latest result is the most faithful sample.
		latest, err := s.store.LatestNewPostPayload(ctx, w.SearchID)
		switch {
		case err == nil:
			payload = latest
		case !errors.Is(err, store.ErrNotFound):
			return nil, s.fail(ctx, err)
		}
	}
	if o := in.Body.Overrides; o != nil {
		for k, v := range map[string]*string{"author_url": o.AuthorURL, "text": o.Text, "post_url": o.PostURL, "source": o.Source} {
			if v != nil {
				payload[k] = *v
			}
		}
		for k, v := range map[string]*int64{"likes": o.Likes, "comments": o.Comments} {
			if v != nil {
				payload[k] = float64(*v)
			}
		}
		if in.datePosted != "" {
			payload["date_posted"] = in.datePosted
		}
	}
	test := &workflow.TestConfig{StrictDataValidation: true}
	if tc := in.Body.TestConfig; tc != nil {
		if tc.StrictDataValidation != nil {
			test.StrictDataValidation = *tc.StrictDataValidation
		}
		test.Mocks = tc.ActionMocks
	}
	x := workflow.Execution{WorkflowID: w.ID, AccountID: acct, Version: w.Version, Definition: def,
		EventName: kind, Trigger: payload, Test: test}
	if _, err := s.store.CreateExecution(ctx, &x, nil, s.cfg.SearchRunLease, false); err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Test run started", testRunOut{TestRunID: x.ID, WorkflowID: w.ID, TriggerType: kind}), nil
}

type executionInput struct {
	ID    string `path:"id" doc:"Workflow id."`
	RunID string `path:"runId" doc:"Execution id (run_id or test_run_id)."`
}

func (s *Server) accountExecution(ctx context.Context, in *executionInput) (workflow.Execution, []workflow.Step, error) {
	x, steps, err := s.store.AccountExecution(ctx, principalFrom(ctx).Account.ID, in.ID, in.RunID)
	if errors.Is(err, store.ErrNotFound) {
		return x, nil, notFound("Execution " + in.RunID + " of workflow " + in.ID)
	}
	if err != nil {
		return x, nil, s.fail(ctx, err)
	}
	return x, steps, nil
}

func (s *Server) handleGetExecution(ctx context.Context, in *executionInput) (*Reply[executionOut], error) {
	x, steps, err := s.accountExecution(ctx, in)
	if err != nil {
		return nil, err
	}
	if steps == nil {
		steps = []workflow.Step{}
	}
	return reply("Execution", toExecution(x, steps)), nil
}

type listExecutionsInput struct {
	ID string `path:"id" doc:"Workflow id."`
	PageQuery
	Status    string `query:"status" enum:"running,completed,failed,RUNNING,COMPLETED,FAILED"`
	EventName string `query:"event_name" enum:"workflows/new-post,workflows/engagement,workflows/webhook,workflows/scheduled-trigger"`
}

func (s *Server) handleListExecutions(ctx context.Context, in *listExecutionsInput) (*pagedReply[executionOut], error) {
	acct := principalFrom(ctx).Account.ID
	// Executions of a deleted workflow stay readable: look them up by
	// the account, not through the live workflow.
	xs, total, err := s.store.ListExecutions(ctx, acct, in.ID, workflow.ExecutionStatus(strings.ToLower(in.Status)), in.EventName, in.Page, in.PageSize)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("Workflow " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	items := make([]executionOut, 0, len(xs))
	for _, x := range xs {
		items = append(items, toExecution(x, nil))
	}
	return paged("Executions", items, in.PageQuery, total), nil
}

func (s *Server) handleRerunExecution(ctx context.Context, in *executionInput) (*createdReply[executionOut], error) {
	x, steps, err := s.accountExecution(ctx, in)
	if err != nil {
		return nil, err
	}
	if x.Status != workflow.ExecutionFailed {
		return nil, NewAPIError(http.StatusConflict, CodeConflict, fmt.Sprintf("Only a failed execution can be rerun; this one is %s.", x.Status))
	}
	// A rerun runs the steps again on the caller's say-so, with the
	// payload it had: the linked search gives it nothing new.
	var mocks map[string]workflow.Mock
	if x.Test != nil {
		mocks = x.Test.Mocks
	}
	if err := s.keyMayArm(ctx, arming{def: x.Definition, root: "/workflow", mocked: mockedIn(mocks)}); err != nil {
		return nil, err
	}
	// The new execution keeps what completed and runs from the failure on.
	var kept []workflow.Step
	for _, st := range steps {
		if st.Status == workflow.StepCompleted || st.Status == workflow.StepSkipped {
			kept = append(kept, st)
		}
	}
	next := workflow.Execution{WorkflowID: x.WorkflowID, AccountID: x.AccountID, Version: x.Version, Definition: x.Definition,
		EventName: x.EventName, Trigger: x.Trigger, Test: x.Test, RerunOf: x.ID}
	if _, err := s.store.CreateExecution(ctx, &next, kept, s.cfg.SearchRunLease, false); err != nil {
		return nil, s.fail(ctx, err)
	}
	return createdWith("Execution rerun", toExecution(next, nil)), nil
}

func (s *Server) handleCancelExecution(ctx context.Context, in *executionInput) (*Reply[executionOut], error) {
	err := s.store.CancelExecution(ctx, principalFrom(ctx).Account.ID, in.ID, in.RunID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, notFound("Execution " + in.RunID + " of workflow " + in.ID)
	case errors.Is(err, store.ErrConflict):
		return nil, NewAPIError(http.StatusConflict, CodeConflict, "Only a running execution can be cancelled.")
	case err != nil:
		return nil, s.fail(ctx, err)
	}
	x, steps, err := s.accountExecution(ctx, in)
	if err != nil {
		return nil, err
	}
	return reply("Execution cancelled", toExecution(x, steps)), nil
}

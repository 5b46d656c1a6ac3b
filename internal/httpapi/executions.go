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
	Status       string             `json:"status" enum:"pending,running,completed,failed,skipped" doc:"pending: not reached yet (the execution runs); skipped: never ran (a branch not taken, or after the execution failed or exited)."`
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
	Version      int64             `json:"version" doc:"The number of the workflow version it ran (POST /v1/workflows/{id}/publish)."`
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
	Steps        []stepOut         `json:"steps,omitempty" doc:"GET of one execution: every step of the definition in the order the engine considers them, one record per loop item that reached a step; a step that has not run is pending while the execution runs and skipped once it has ended (after a failure, or on a branch not taken)."`
}

func duration(from time.Time, to *time.Time) *int64 {
	if to == nil {
		return nil
	}
	d := to.Sub(from).Milliseconds()
	return &d
}

func toExecution(x workflow.Execution, steps []workflow.Step) executionOut {
	out := executionOut{ID: x.ID, RunID: x.ID, WorkflowID: x.WorkflowID, EventName: x.EventName, Version: x.Version, Status: string(x.Status),
		StartedAt: formatTime(x.StartedAt), EndedAt: optTime(x.EndedAt), DurationMS: duration(x.StartedAt, x.EndedAt),
		Created: formatTime(x.CreatedAt), ColumnConfig: x.Definition.ColumnConfig, IsTest: x.Test != nil, Trigger: x.Trigger}
	if out.ColumnConfig == nil {
		out.ColumnConfig = []workflow.Column{} // an array, empty when none: the spec's "array or null" admits it
	}
	if x.Error != "" {
		out.Error = &x.Error
	}
	if x.RerunOf != "" {
		out.RerunOf = &x.RerunOf
	}
	if steps != nil {
		// Every step of the definition, those that never ran included.
		steps = workflow.Timeline(x.Definition, x.Status, steps)
		out.Steps = make([]stepOut, 0, len(steps))
	}
	for _, st := range steps {
		so := stepOut{StepID: st.StepID, Key: st.Key, Operation: st.Operation, Status: string(st.Status),
			StartedAt: optTime(st.StartedAt), EndedAt: optTime(st.EndedAt), Input: st.Input, Output: st.Output,
			MappedOutput: st.MappedOutput, Attempts: st.Attempts, ResumeAt: optTime(st.ResumeAt)}
		if st.Error != nil {
			so.Error = &stepFailure{Code: st.Error.Code, Message: st.Error.Message}
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
		if so.Input == nil {
			// A step that never resolved its inputs (skipped, pending).
			so.Input = map[string]any{}
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

	w         workflow.Workflow
	def       workflow.Definition // what the run runs: the draft when there is one
	overrides workflow.Overrides
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
	if o := in.Body.Overrides; o != nil {
		in.overrides = workflow.Overrides{AuthorURL: o.AuthorURL, Text: o.Text, PostURL: o.PostURL, Source: o.Source, Likes: o.Likes, Comments: o.Comments}
		if o.DatePosted != nil {
			if t, err := time.Parse(time.RFC3339, *o.DatePosted); err != nil {
				p.add("body.overrides.date_posted", "%v", errBadTimestamp)
			} else {
				in.overrides.DatePosted = &t
			}
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
	} `json:"overrides,omitempty" doc:"Values set in the event the run sees, on top of the newest real event of its trigger (or the sample). A new-post payload has these fields; an engagement takes author_url as prospect.pronet_url, text as engagement.text, post_url, likes, comments and date_posted as the post's postUrl, likeCount, commentsCount and postedDate; webhook and scheduled payloads get them at their top level, by name; source is a top-level label everywhere."`
	TestConfig *struct {
		Mode                 string                   `json:"mode,omitempty" enum:"real_with_override" doc:"The only mode: actions really run unless mocked."`
		StrictDataValidation *bool                    `json:"strict_data_validation,omitempty" doc:"Default true: fail a step whose resolved input or whose output (a mock's included) breaks the catalogue's types, every mismatch listed."`
		ActionMocks          map[string]workflow.Mock `json:"action_mocks,omitempty" doc:"Step id → {enabled, output}: the step outputs that instead of running (and costs nothing)."`
	} `json:"test_config,omitempty"`
}

type testRunOut struct {
	TestRunID         string   `json:"test_run_id" doc:"Read the run at GET /v1/workflows/{id}/executions/{test_run_id}."`
	WorkflowID        string   `json:"workflow_id"`
	TriggerType       string   `json:"trigger_type"`
	TriggerPostSource string   `json:"trigger_post_source" enum:"search,topic,webhook,schedule,override,synthetic" doc:"The event the run sees: the newest real event of its trigger's source (search: the linked search's newest result, or the account's newest one when it links none; topic: the topic's newest engagement; webhook: the webhook's last delivery; schedule: the cron's latest occurrence), else a sample: override when overrides were given, synthetic when not."`
	OverridesApplied  []string `json:"overrides_applied" doc:"The overrides set in that event."`
}

// testEvents finds a test run's real events for the calling key.
type testEvents struct {
	store *store.Store
	// anySearch says the key may read the account's search results, which
	// feed a new-post workflow that links no search.
	anySearch bool
}

func found(payload map[string]any, err error) (map[string]any, bool, error) {
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	return payload, err == nil, err
}

func (e testEvents) LatestResult(ctx context.Context, accountID, searchID string) (map[string]any, bool, error) {
	if searchID != "" {
		return found(e.store.LatestNewPostPayload(ctx, searchID))
	}
	if !e.anySearch {
		return nil, false, nil
	}
	return found(e.store.LatestAccountNewPostPayload(ctx, accountID))
}

func (e testEvents) LatestEngagement(ctx context.Context, accountID, topicID string) (map[string]any, bool, error) {
	return found(e.store.LatestEngagementPayload(ctx, accountID, topicID))
}

func (e testEvents) LatestDelivery(ctx context.Context, workflowID string) (map[string]any, bool, error) {
	return found(e.store.LatestWebhookPayload(ctx, workflowID))
}

// testRunMessages say which event a test run runs on.
var testRunMessages = map[workflow.EventSource]string{
	workflow.FromSearch:    "Test run started on the newest search result",
	workflow.FromTopic:     "Test run started on the topic's newest engagement",
	workflow.FromWebhook:   "Test run started on the webhook's last delivery",
	workflow.FromSchedule:  "Test run started on the schedule's latest occurrence",
	workflow.FromOverride:  "Test run started on a sample event with the overrides (the trigger's source has no event yet)",
	workflow.FromSynthetic: "Test run started on a sample event (the trigger's source has no event yet)",
}

func (s *Server) handleTestWorkflow(ctx context.Context, in *testRunInput) (*Reply[testRunOut], error) {
	p := principalFrom(ctx)
	acct := p.Account.ID
	w, def := in.w, in.def
	kind := def.TriggerKind()
	// An unlinked new-post workflow samples any of the account's searches:
	// only for a key that may read their results (a linked search is
	// checked with the workflow's other needs).
	acc, _ := s.endpointAccess(workflow.SearchLinkEndpoint)
	events := testEvents{store: s.store, anySearch: acc.permission == "" || p.Key.Has(acc.permission)}
	ev, err := workflow.NewTestEvent(ctx, events, w, def, in.overrides, s.now())
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	payload := ev.Payload
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
	out := testRunOut{TestRunID: x.ID, WorkflowID: w.ID, TriggerType: kind, TriggerPostSource: string(ev.Source), OverridesApplied: ev.Overridden}
	if out.OverridesApplied == nil {
		out.OverridesApplied = []string{}
	}
	return reply(testRunMessages[ev.Source], out), nil
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

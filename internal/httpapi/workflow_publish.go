package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
)

// publish makes an edit of w a publish, the one code path of PATCH with
// status PUBLISHED and POST /v1/workflows/{id}/publish: the draft, if any,
// is checked again (what it names may have gone since it was saved) and
// promoted into w; w becomes PUBLISHED; the store records the next
// version v and leaves a draft equal to what went live. armed says the
// caller already checked the key for what the published definition needs.
func (s *Server) publish(ctx context.Context, w *workflow.Workflow, draft *workflow.Draft, armed bool, v *workflow.Version) (store.WorkflowEdit, error) {
	var edit store.WorkflowEdit
	if !armed {
		// Publishing arms what a key, maybe another, saved: the key that
		// arms it must be allowed what it does.
		arm := arming{def: w.Definition, root: "/workflow", searchID: w.SearchID}
		if draft != nil {
			arm.def, arm.root = draft.Definition, "/draft/workflow"
		}
		if err := s.keyMayArm(ctx, arm); err != nil {
			return edit, err
		}
	}
	if draft != nil {
		var p problems
		if err := s.checkDefinition(ctx, draft.Definition, "/draft/workflow", &p); err != nil {
			return edit, err
		}
		if err := p.err(); err != nil {
			return edit, err
		}
		w.Name, w.Description, w.Definition = draft.Name, draft.Description, draft.Definition
	}
	w.Status = workflow.StatusPublished
	edit.Draft, edit.Publish = publishedDraft(draft), v
	return edit, nil
}

type publishInput struct {
	ID   string       `path:"id" doc:"Workflow id."`
	Body *publishBody `required:"false"`
}

type publishBody struct {
	ChangeSummary             *string `json:"change_summary,omitempty" maxLength:"2000" doc:"What changed, kept with the version (at most 2,000 characters)."`
	ExpectedDraftLastModified *string `json:"expected_draft_last_modified,omitempty" doc:"The draft's last_modified as the caller last read it: when the draft changed since (or was discarded), the publish answers 409 CONFLICT and changes nothing."`
}

func (in *publishInput) Resolve(huma.Context) []error {
	if in.Body == nil || in.Body.ExpectedDraftLastModified == nil {
		return nil
	}
	if _, err := parseTimestamp(*in.Body.ExpectedDraftLastModified); err != nil {
		return []error{detailError(Detail{Field: "body.expected_draft_last_modified", Message: "must be an RFC 3339 timestamp, the draft's last_modified"})}
	}
	return nil
}

type publishedOut struct {
	VersionID     string  `json:"version_id"`
	VersionNumber int64   `json:"version_number" doc:"The workflow's version, counted from 1; executions record the number they ran (version)."`
	PublishedAt   string  `json:"published_at"`
	ChangeSummary *string `json:"change_summary" doc:"As given; null when none was."`
	WebhookSecret *string `json:"webhook_secret,omitempty" doc:"When the publish gave the workflow its first webhook trigger: the signing secret, shown once."`
}

func (s *Server) handlePublishWorkflow(ctx context.Context, in *publishInput) (*Reply[publishedOut], error) {
	v := &workflow.Version{}
	var expected, shown *string
	if in.Body != nil {
		v.ChangeSummary, expected = in.Body.ChangeSummary, in.Body.ExpectedDraftLastModified
	}
	_, err := s.store.UpdateWorkflow(ctx, principalFrom(ctx).Account.ID, in.ID, func(w *workflow.Workflow, draft *workflow.Draft) (store.WorkflowEdit, error) {
		if expected != nil {
			at, _ := parseTimestamp(*expected)
			if draft == nil || !draft.LastModified.Equal(at) {
				return store.WorkflowEdit{}, NewAPIError(http.StatusConflict, CodeConflict,
					"The draft changed since expected_draft_last_modified; nothing was published.").
					WithSuggestion("Read the draft again (GET /v1/workflows/{id}/draft), check it, and publish with its last_modified.")
			}
		}
		edit, err := s.publish(ctx, w, draft, false, v)
		if err == nil {
			shown = s.ensureWebhookSecret(w)
		}
		return edit, err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("Workflow " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Workflow published", publishedOut{VersionID: v.ID, VersionNumber: v.Number,
		PublishedAt: formatTime(v.PublishedAt), ChangeSummary: v.ChangeSummary, WebhookSecret: shown}), nil
}

type versionOut struct {
	VersionID     string              `json:"version_id"`
	VersionNumber int64               `json:"version_number"`
	PublishedAt   string              `json:"published_at"`
	ChangeSummary *string             `json:"change_summary" doc:"What its publish said changed; null when it said nothing, or the version was not made by a publish (creation, a change of the live definition)."`
	Name          string              `json:"name"`
	Description   string              `json:"description"`
	Workflow      workflow.Definition `json:"workflow"`
}

type versionList struct {
	Items []versionOut `json:"items"`
	Total int          `json:"total"`
}

func (s *Server) handleListVersions(ctx context.Context, in *workflowIDInput) (*Reply[versionList], error) {
	vs, err := s.store.WorkflowVersions(ctx, principalFrom(ctx).Account.ID, in.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("Workflow " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := versionList{Items: make([]versionOut, 0, len(vs)), Total: len(vs)}
	for _, v := range vs {
		out.Items = append(out.Items, versionOut{VersionID: v.ID, VersionNumber: v.Number,
			PublishedAt: formatTime(v.PublishedAt), ChangeSummary: v.ChangeSummary, Name: v.Name, Description: v.Description, Workflow: v.Definition})
	}
	return reply("Workflow versions", out), nil
}

type variablesOut struct {
	RunID    string                  `json:"run_id"`
	Status   string                  `json:"status" enum:"running,completed,failed"`
	HaltedAt *string                 `json:"halted_at" doc:"The key of the step the execution stopped at: the one that failed, or the one it waits on while it runs; null otherwise."`
	Steps    map[string]stepVariable `json:"steps" doc:"Each step that ran, by key (the step id, plus #i per enclosing loop item)."`
}

type stepVariable struct {
	Input  map[string]any `json:"input,omitempty" doc:"The inputs with templates resolved."`
	Output any            `json:"output,omitempty"`
}

func (s *Server) handleExecutionVariables(ctx context.Context, in *executionInput) (*Reply[variablesOut], error) {
	x, steps, err := s.accountExecution(ctx, in)
	if err != nil {
		return nil, err
	}
	out := variablesOut{RunID: x.ID, Status: string(x.Status), Steps: map[string]stepVariable{}}
	for _, st := range steps {
		if st.Status == workflow.StepPending || st.Status == workflow.StepSkipped {
			continue
		}
		out.Steps[st.Key] = stepVariable{Input: st.Input, Output: st.Output}
		if st.Status == workflow.StepFailed || (st.Status == workflow.StepRunning && x.Status == workflow.ExecutionRunning) {
			key := st.Key
			out.HaltedAt = &key
		}
	}
	return reply("Execution variables", out), nil
}

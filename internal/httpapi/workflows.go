package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
)

// workflowOut is a workflow as the API shows it.
type workflowOut struct {
	ID                  string              `json:"id"`
	Name                string              `json:"name"`
	Description         string              `json:"description"`
	Workflow            workflow.Definition `json:"workflow"`
	Enabled             bool                `json:"enabled" doc:"Whether its trigger fires (only while PUBLISHED)."`
	Status              string              `json:"status" enum:"DRAFT,PUBLISHED"`
	SocialSavedSearchID *string             `json:"social_saved_search_id" doc:"The linked saved search."`
	Version             int64               `json:"version" doc:"The number of the live version: 1 is the definition it was created with; each publish, and each change of the live definition itself, makes the next (POST /v1/workflows/{id}/publish)."`
	HasDraft            bool                `json:"has_draft" doc:"Whether the workflow has a draft (GET /v1/workflows/{id}/draft; its is_synced says whether it differs from the live workflow). A publish leaves one; DELETE of the draft discards it."`
	Created             string              `json:"created"`
	Updated             string              `json:"updated"`
	WebhookURL          *string             `json:"webhook_url,omitempty" doc:"Webhook triggers: where to POST events (signed as Standard Webhooks)."`
	WebhookSecret       *string             `json:"webhook_secret,omitempty" doc:"Webhook triggers: the signing secret, shown once, in the answer of the write that created it."`
	RequiredPermissions []auth.Permission   `json:"required_permissions" doc:"What the live definition's steps need of a key: saving, publishing, enabling or testing it checks the calling key for these (the permissions of the endpoints its steps stand for, and secrets:read for steps that send secrets). Executions run for the account without a key."`
}

func (s *Server) toWorkflow(w workflow.Workflow, hasDraft bool) workflowOut {
	out := workflowOut{ID: w.ID, Name: w.Name, Description: w.Description, Workflow: w.Definition,
		Enabled: w.Enabled, Status: string(w.Status), Version: w.Version, HasDraft: hasDraft,
		Created: formatTime(w.CreatedAt), Updated: formatTime(w.UpdatedAt), RequiredPermissions: s.requiredPermissions(w)}
	if w.SearchID != "" {
		out.SocialSavedSearchID = &w.SearchID
	}
	if w.Definition.TriggerKind() == workflow.TriggerWebhook && w.WebhookToken != "" {
		u := s.publicURL + "/v1/hooks/" + w.WebhookToken
		out.WebhookURL = &u
	}
	return out
}

// accountLookup answers the validator's questions about one account.
type accountLookup struct {
	store   *store.Store
	account string
}

func (l accountLookup) TopicExists(ctx context.Context, id string) (bool, error) {
	return l.store.TopicExists(ctx, l.account, id)
}

func (l accountLookup) SecretExists(ctx context.Context, name string) (bool, error) {
	return l.store.SecretExists(ctx, l.account, name)
}

// checkDefinition adds the problems of a definition found at pointer root.
func (s *Server) checkDefinition(ctx context.Context, def workflow.Definition, root string, p *problems) error {
	found, err := s.validator.Validate(ctx, def, root, accountLookup{s.store, principalFrom(ctx).Account.ID})
	if err != nil {
		return s.fail(ctx, err)
	}
	for _, f := range found {
		*p = append(*p, Detail{Field: pointerField(f.Pointer), Pointer: f.Pointer, Message: f.Message})
	}
	return nil
}

// ensureWebhookSecret gives a webhook-triggered workflow its signing secret
// when it has none, and returns it (once) for the answer.
func (s *Server) ensureWebhookSecret(w *workflow.Workflow) *string {
	if w.Definition.TriggerKind() != workflow.TriggerWebhook || w.WebhookSecret != nil {
		return nil
	}
	token := make([]byte, 32)
	_, _ = rand.Read(token)
	w.WebhookToken = base64.RawURLEncoding.EncodeToString(token)
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	plain := "whsec_" + base64.StdEncoding.EncodeToString(raw)
	w.WebhookSecret = s.secrets.Seal([]byte(plain), secret.WebhookContext(w.ID))
	return &plain
}

func parseWorkflowStatus(v string) workflow.Status { return workflow.Status(strings.ToUpper(v)) }

type createWorkflowInput struct {
	Body struct {
		Name        string              `json:"name" maxLength:"255" doc:"1-255 characters."`
		Description string              `json:"description,omitempty"`
		Workflow    workflow.Definition `json:"workflow"`
		SearchID    string              `json:"search_id,omitempty" doc:"A saved search of the account to link (shown as social_saved_search_id; it cannot change later)."`
		Enabled     bool                `json:"enabled,omitempty" doc:"Default false."`
		Status      string              `json:"status,omitempty" enum:"DRAFT,PUBLISHED,draft,published" doc:"Default DRAFT."`
	}
}

func (in *createWorkflowInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *createWorkflowInput) check(hctx huma.Context, s *Server, p *problems) error {
	ctx := hctx.Context()
	if err := s.keyMayArm(ctx, arming{def: in.Body.Workflow, root: "/workflow", searchID: in.Body.SearchID}); err != nil {
		return err
	}
	checkName(in.Body.Name, p)
	if id := in.Body.SearchID; id != "" {
		if _, err := s.store.AccountSearch(ctx, principalFrom(ctx).Account.ID, id); errors.Is(err, store.ErrNotFound) {
			p.add("body.search_id", "names no saved search of this account")
		} else if err != nil {
			return s.fail(ctx, err)
		}
	}
	return s.checkDefinition(ctx, in.Body.Workflow, "/workflow", p)
}

func (s *Server) handleCreateWorkflow(ctx context.Context, in *createWorkflowInput) (*createdReply[workflowOut], error) {
	acct := principalFrom(ctx).Account.ID
	w := workflow.Workflow{ID: ident.New(), AccountID: acct, Name: strings.TrimSpace(in.Body.Name),
		Description: in.Body.Description, Definition: in.Body.Workflow, Enabled: in.Body.Enabled,
		Status: cmpOr(parseWorkflowStatus(in.Body.Status), workflow.StatusDraft), SearchID: in.Body.SearchID}
	shown := s.ensureWebhookSecret(&w)
	var draft func(workflow.Workflow) *workflow.Draft
	if w.Status == workflow.StatusPublished {
		// Created published is a publish: it leaves a draft to edit.
		draft = publishedDraft(nil)
	}
	if err := s.store.CreateWorkflow(ctx, &w, draft); err != nil {
		return nil, s.fail(ctx, err)
	}
	out := s.toWorkflow(w, draft != nil)
	out.WebhookSecret = shown
	return createdWith("Workflow created", out), nil
}

type listWorkflowsInput struct {
	Limit    int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Workflows per page, 1-100."`
	Offset   int    `query:"offset" minimum:"0" maximum:"1000000000" default:"0" doc:"Workflows to skip, at most 1,000,000,000 (the deepest page of a list paged by number)."`
	Page     int    `query:"page" minimum:"1" maximum:"10000000" doc:"Alias of offset (give one of them): page number from 1, of limit workflows each."`
	PageSize int    `query:"page_size" minimum:"1" maximum:"100" doc:"Alias of limit (give one of them)."`
	Status   string `query:"status" enum:"DRAFT,PUBLISHED,draft,published" doc:"Only workflows in this status."`
}

// Resolve implements huma.Resolver: page and page_size, the list's aliases,
// turned into offset and limit.
func (in *listWorkflowsInput) Resolve(ctx huma.Context) []error {
	var p problems
	raw := queryOf(ctx)
	if aliasGiven(raw, "limit", "page_size", &p) && in.PageSize >= 1 && in.PageSize <= 100 {
		in.Limit = in.PageSize
	}
	if aliasGiven(raw, "offset", "page", &p) && in.Page >= 1 && in.Page <= maxPage {
		in.Offset = (in.Page - 1) * in.Limit
	}
	return p.errs()
}

type workflowList struct {
	Items   []workflowOut `json:"items"`
	HasMore bool          `json:"has_more"`
	Total   int64         `json:"total" doc:"Workflows matching the filter."`
}

func (s *Server) handleListWorkflows(ctx context.Context, in *listWorkflowsInput) (*Reply[workflowList], error) {
	acct := principalFrom(ctx).Account.ID
	ws, total, err := s.store.ListWorkflows(ctx, acct, parseWorkflowStatus(in.Status), in.Limit, in.Offset)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	drafts, err := s.store.DraftedWorkflows(ctx, acct, ids(ws))
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := workflowList{Items: make([]workflowOut, 0, len(ws)), Total: total, HasMore: int64(in.Offset+len(ws)) < total}
	for _, w := range ws {
		out.Items = append(out.Items, s.toWorkflow(w, drafts[w.ID]))
	}
	return reply("Workflows", out), nil
}

func ids(ws []workflow.Workflow) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.ID
	}
	return out
}

// accountWorkflow is the caller's workflow, or the 404 to answer.
func (s *Server) accountWorkflow(ctx context.Context, id string) (workflow.Workflow, error) {
	w, err := s.store.AccountWorkflow(ctx, principalFrom(ctx).Account.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return w, notFound("Workflow " + id)
	}
	if err != nil {
		return w, s.fail(ctx, err)
	}
	return w, nil
}

type workflowIDInput struct {
	ID string `path:"id" doc:"Workflow id."`
}

func (s *Server) handleGetWorkflow(ctx context.Context, in *workflowIDInput) (*Reply[workflowOut], error) {
	acct := principalFrom(ctx).Account.ID
	w, err := s.accountWorkflow(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	drafts, err := s.store.DraftedWorkflows(ctx, acct, []string{w.ID})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Workflow", s.toWorkflow(w, drafts[w.ID])), nil
}

type patchWorkflowInput struct {
	ID   string `path:"id" doc:"Workflow id."`
	Body struct {
		Name        *string              `json:"name,omitempty" doc:"1-255 characters."`
		Description *string              `json:"description,omitempty"`
		Workflow    *workflow.Definition `json:"workflow,omitempty" doc:"Replaces the live definition."`
		Enabled     *bool                `json:"enabled,omitempty" doc:"Turns the trigger on or off, whatever the status."`
		Status      string               `json:"status,omitempty" enum:"DRAFT,PUBLISHED,draft,published" doc:"PUBLISHED promotes the draft, if any, into the live workflow; the draft stays, equal to what went live (is_synced), and a publish without one leaves one."`
		// The link to a saved search is fixed; these are declared to say so.
		SearchID            any `json:"search_id,omitempty" doc:"Cannot be changed: delete the workflow and create it again."`
		SocialSavedSearchID any `json:"social_saved_search_id,omitempty" doc:"Cannot be changed: delete the workflow and create it again."`
	}
}

func (in *patchWorkflowInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *patchWorkflowInput) check(ctx huma.Context, s *Server, p *problems) error {
	b := in.Body
	for _, f := range []struct {
		field string
		value any
	}{{"body.search_id", b.SearchID}, {"body.social_saved_search_id", b.SocialSavedSearchID}} {
		if f.value != nil {
			p.add(f.field, "cannot be changed; to link another saved search, delete the workflow and create it again with that search_id")
		}
	}
	if b.Name != nil {
		checkName(*b.Name, p)
	}
	if b.Workflow != nil {
		w, err := s.accountWorkflow(ctx.Context(), in.ID)
		if err != nil {
			return err
		}
		if err := s.keyMayArm(ctx.Context(), arming{def: *b.Workflow, root: "/workflow", searchID: w.SearchID}); err != nil {
			return err
		}
		return s.checkDefinition(ctx.Context(), *b.Workflow, "/workflow", p)
	}
	return nil
}

func (s *Server) handlePatchWorkflow(ctx context.Context, in *patchWorkflowInput) (*Reply[workflowOut], error) {
	acct := principalFrom(ctx).Account.ID
	b := in.Body
	var (
		shown    *string
		hasDraft bool
	)
	w, err := s.store.UpdateWorkflow(ctx, acct, in.ID, func(w *workflow.Workflow, draft *workflow.Draft) (store.WorkflowEdit, error) {
		var edit store.WorkflowEdit
		status := parseWorkflowStatus(b.Status)
		hasDraft = draft != nil
		if status == workflow.StatusPublished {
			// A body workflow was checked for the key with the request.
			e, err := s.publish(ctx, w, draft, b.Workflow != nil, &workflow.Version{})
			if err != nil {
				return edit, err
			}
			edit, hasDraft = e, true
		} else if b.Workflow == nil && b.Enabled != nil && *b.Enabled {
			// Enabling arms what a key, maybe another, saved.
			if err := s.keyMayArm(ctx, arming{def: w.Definition, root: "/workflow", searchID: w.SearchID}); err != nil {
				return edit, err
			}
		}
		if b.Name != nil {
			w.Name = strings.TrimSpace(*b.Name)
		}
		if b.Description != nil {
			w.Description = *b.Description
		}
		if b.Workflow != nil {
			w.Definition = *b.Workflow
		}
		if b.Enabled != nil {
			w.Enabled = *b.Enabled
		}
		if status != "" {
			w.Status = status
		}
		shown = s.ensureWebhookSecret(w)
		return edit, nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("Workflow " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := s.toWorkflow(w, hasDraft)
	out.WebhookSecret = shown
	return reply("Workflow updated", out), nil
}

// publishedDraft makes the draft a publish leaves (workflow.AfterPublish)
// from the workflow as stored, d being the draft before it.
func publishedDraft(d *workflow.Draft) func(workflow.Workflow) *workflow.Draft {
	return func(live workflow.Workflow) *workflow.Draft {
		after := workflow.AfterPublish(d, live, live.UpdatedAt)
		return &after
	}
}

func (s *Server) handleDeleteWorkflow(ctx context.Context, in *workflowIDInput) (*Reply[deletedData], error) {
	err := s.store.DeleteWorkflow(ctx, principalFrom(ctx).Account.ID, in.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("Workflow " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Workflow deleted", deletedData{ID: in.ID, Deleted: true}), nil
}

// draftOut is a workflow's edited copy.
type draftOut struct {
	ID           string              `json:"id"`
	WorkflowID   string              `json:"workflow_id"`
	Name         string              `json:"name"`
	Description  string              `json:"description"`
	Workflow     workflow.Definition `json:"workflow"`
	Created      string              `json:"created"`
	LastModified string              `json:"last_modified"`
	IsSynced     bool                `json:"is_synced" doc:"Whether the draft equals the live workflow (name, description, definition): true after a publish, until the draft or the live workflow is edited."`
}

func toDraft(d workflow.Draft, live workflow.Workflow) draftOut {
	out := draftOut{ID: d.ID, WorkflowID: d.WorkflowID, Name: d.Name, Description: d.Description,
		Workflow: d.Definition, Created: formatTime(d.CreatedAt), LastModified: formatTime(d.LastModified),
		IsSynced: d.Synced(live)}
	return out
}

func (s *Server) handleGetDraft(ctx context.Context, in *workflowIDInput) (*Reply[draftOut], error) {
	w, d, err := s.store.WorkflowDraft(ctx, principalFrom(ctx).Account.ID, in.ID)
	if errors.Is(err, store.ErrNotFound) {
		if w.ID == "" {
			return nil, notFound("Workflow " + in.ID)
		}
		return nil, notFound("A draft of workflow " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Workflow draft", toDraft(d, w)), nil
}

type putDraftInput struct {
	ID   string `path:"id" doc:"Workflow id."`
	Body struct {
		Name        *string             `json:"name,omitempty" doc:"1-255 characters; default the workflow's."`
		Description *string             `json:"description,omitempty" doc:"Default the workflow's."`
		Workflow    workflow.Definition `json:"workflow"`
	}

	live workflow.Workflow
}

func (in *putDraftInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *putDraftInput) check(ctx huma.Context, s *Server, p *problems) error {
	live, err := s.accountWorkflow(ctx.Context(), in.ID)
	if err != nil {
		return err
	}
	in.live = live
	if err := s.keyMayArm(ctx.Context(), arming{def: in.Body.Workflow, root: "/workflow", searchID: live.SearchID}); err != nil {
		return err
	}
	if in.Body.Name != nil {
		checkName(*in.Body.Name, p)
	}
	return s.checkDefinition(ctx.Context(), in.Body.Workflow, "/workflow", p)
}

func (s *Server) handlePutDraft(ctx context.Context, in *putDraftInput) (*Reply[draftOut], error) {
	acct := principalFrom(ctx).Account.ID
	live := in.live
	d := workflow.Draft{WorkflowID: in.ID, Name: live.Name, Description: live.Description, Definition: in.Body.Workflow}
	if in.Body.Name != nil {
		d.Name = strings.TrimSpace(*in.Body.Name)
	}
	if in.Body.Description != nil {
		d.Description = *in.Body.Description
	}
	live, err := s.store.PutDraft(ctx, acct, &d)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("Workflow " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Workflow draft saved", toDraft(d, live)), nil
}

type draftDeleted struct {
	WorkflowID string `json:"workflow_id"`
	Deleted    bool   `json:"deleted"`
}

func (s *Server) handleDeleteDraft(ctx context.Context, in *workflowIDInput) (*Reply[draftDeleted], error) {
	err := s.store.DeleteDraft(ctx, principalFrom(ctx).Account.ID, in.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("A draft of workflow " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Workflow draft deleted", draftDeleted{WorkflowID: in.ID, Deleted: true}), nil
}

type catalogueInput struct {
	Category string `query:"category" doc:"ai, enrichment, crm, messaging, social, control_flow, utility, integration, other; also control-flow, integrations, utilities, database."`
}

type catalogue struct {
	Items []catalogueItem `json:"items"`
	Total int             `json:"total"`
}

func (s *Server) handleActionCatalogue(ctx context.Context, in *catalogueInput) (*Reply[catalogue], error) {
	var cat action.Category
	if in.Category != "" {
		c, ok := action.ParseCategory(in.Category)
		if !ok {
			return nil, validationError(Detail{Field: "query.category",
				Message: "must be one of " + strings.Join(action.CategoryNames(), ", ")})
		}
		cat = c
	}
	specs := s.catalogue.List(cat)
	items := make([]catalogueItem, 0, len(specs))
	for _, spec := range specs {
		items = append(items, s.toCatalogueItem(spec))
	}
	return reply("Workflow actions", catalogue{Items: items, Total: len(items)}), nil
}

// createdReply answers 201 with an envelope.
type createdReply[T any] struct {
	Status int
	Body   Envelope[T]
}

func createdWith[T any](message string, data T) *createdReply[T] {
	return &createdReply[T]{Status: http.StatusCreated, Body: Envelope[T]{Message: message, Success: true, Data: data}}
}

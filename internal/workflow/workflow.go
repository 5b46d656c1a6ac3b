// Package workflow is workflow definitions: their shape, their validation
// against the action catalogue, templates, drafts and publishing rules.
// The engine that runs them lives in workflow/engine.
package workflow

import (
	"encoding/json"
	"time"
)

// Status of a workflow: a DRAFT never fires; a PUBLISHED one fires while enabled.
type Status string

// Workflow statuses.
const (
	StatusDraft     Status = "DRAFT"
	StatusPublished Status = "PUBLISHED"
)

// Source is the start of every workflow graph.
const Source = "$source"

// Trigger kinds (also the event_name of an execution).
const (
	TriggerNewPost    = "workflows/new-post"
	TriggerEngagement = "workflows/engagement"
	TriggerWebhook    = "workflows/webhook"
	TriggerScheduled  = "workflows/scheduled-trigger"
)

// TriggerKinds lists the trigger kinds.
func TriggerKinds() []string {
	return []string{TriggerNewPost, TriggerEngagement, TriggerWebhook, TriggerScheduled}
}

// Definition is what a workflow does: a trigger, actions and the edges
// between them, starting at Source.
type Definition struct {
	Trigger      *Trigger `json:"trigger,omitempty" doc:"What starts an execution; omitted means workflows/new-post (and is shown so)."`
	Actions      []Action `json:"actions" doc:"The steps, at most 100."`
	Edges        []Edge   `json:"edges" doc:"From $source or an action to an action."`
	ColumnConfig []Column `json:"column_config,omitempty" doc:"Step outputs shown as columns of an execution (mapped_output)."`
}

// Trigger starts executions.
type Trigger struct {
	Kind   string         `json:"kind" doc:"workflows/new-post, workflows/engagement ({topic_id}), workflows/webhook or workflows/scheduled-trigger ({cron, timezone})."`
	Inputs map[string]any `json:"inputs" required:"false" doc:"The kind's inputs; {} when it takes none."`
}

// Action is one step of a workflow.
type Action struct {
	ID        string         `json:"id" doc:"Unique in the workflow: 1-64 letters, digits, _ or -."`
	Kind      string         `json:"kind" doc:"An action kind of GET /v1/workflows/actions."`
	Name      string         `json:"name" required:"false" doc:"A label of the step; \"\" when none was given."`
	Inputs    map[string]any `json:"inputs" required:"false" doc:"The kind's inputs; strings may hold {{ expr }} templates."`
	Retry     *Retry         `json:"retry,omitempty"`
	TimeoutMS *int64         `json:"timeout_ms,omitempty" doc:"Time limit of one attempt, 100-600000 ms."`
}

// Retry says how often a failing step is tried again.
type Retry struct {
	MaxAttempts int   `json:"max_attempts" doc:"Attempts in all, 1-10."`
	BackoffMS   int64 `json:"backoff_ms,omitempty" doc:"Wait before the second attempt, doubled after each; 0-3600000 ms."`
}

// Edge connects two nodes; a conditional edge is taken only on its condition.
type Edge struct {
	From        string       `json:"from"`
	To          string       `json:"to"`
	Name        string       `json:"name,omitempty"`
	Conditional *Conditional `json:"conditional,omitempty"`
}

// Edge conditions.
const (
	EdgeIf        = "if"        // from builtin:if, taken when the condition holds
	EdgeElse      = "else"      // from builtin:if, taken when it does not
	EdgeMatch     = "match"     // from any step, taken when ref (an expression) holds
	EdgeLoop      = "loop"      // from builtin:loop to the body
	EdgeCompleted = "completed" // from builtin:loop, after every item
)

// Conditional marks an edge taken only in some cases.
type Conditional struct {
	Type string `json:"type" enum:"if,else,match,loop,completed"`
	Ref  string `json:"ref,omitempty" doc:"For match: an expression over the same variables as templates plus output (the step's output)."`
}

// Column maps a step's output field to a column of the execution log.
type Column struct {
	ID        string `json:"id"`
	StepID    string `json:"stepId"`
	FieldPath string `json:"fieldPath" doc:"Dotted path into the step's output, e.g. prospect.job_title."`
	Label     string `json:"label"`
}

// MarshalJSON writes every member the spec gives a definition: the trigger
// (the workflows/new-post one TriggerKind reads when none was given), and
// actions and edges as arrays. Drafts are compared with live definitions
// by this encoding (SameDefinition), so a trigger left out equals the one
// it stands for.
func (d Definition) MarshalJSON() ([]byte, error) {
	type plain Definition
	p := plain(d)
	if p.Trigger == nil || p.Trigger.Kind == "" {
		t := Trigger{Kind: d.TriggerKind()}
		if p.Trigger != nil {
			t.Inputs = p.Trigger.Inputs
		}
		p.Trigger = &t
	}
	if p.Actions == nil {
		p.Actions = []Action{}
	}
	if p.Edges == nil {
		p.Edges = []Edge{}
	}
	return json.Marshal(p)
}

// MarshalJSON writes the trigger's inputs as {} when it has none.
func (t Trigger) MarshalJSON() ([]byte, error) {
	type plain Trigger
	p := plain(t)
	if p.Inputs == nil {
		p.Inputs = map[string]any{}
	}
	return json.Marshal(p)
}

// MarshalJSON writes the action's inputs as {} when it has none.
func (a Action) MarshalJSON() ([]byte, error) {
	type plain Action
	p := plain(a)
	if p.Inputs == nil {
		p.Inputs = map[string]any{}
	}
	return json.Marshal(p)
}

// TriggerKind is the definition's trigger kind, new-post when none is set.
func (d Definition) TriggerKind() string {
	if d.Trigger == nil || d.Trigger.Kind == "" {
		return TriggerNewPost
	}
	return d.Trigger.Kind
}

// TriggerEndpoint names the API endpoint whose data the trigger feeds into
// executions ("" for none): a key may arm the trigger only if it may call
// the endpoint.
func (d Definition) TriggerEndpoint() string {
	if d.TriggerKind() == TriggerEngagement {
		return "GET /v1/topics/{id}/engagements"
	}
	return ""
}

// SearchLinkEndpoint is the endpoint whose data a link to a saved search
// feeds into executions (its results), as TriggerEndpoint.
const SearchLinkEndpoint = "GET /v1/searches/{id}/results"

// Workflow is an account's automation.
type Workflow struct {
	ID          string
	AccountID   string
	Name        string
	Description string
	Definition  Definition
	Enabled     bool
	Status      Status
	SearchID    string // the linked saved search; "" for none
	// WebhookToken is the secret part of a webhook trigger's URL.
	WebhookToken string
	// WebhookSecret is the sealed signing secret of a webhook trigger
	// (nil until the live definition first has one).
	WebhookSecret []byte
	// ArmedAt is since when it fires (published and enabled); nil while
	// it does not. Events collected before it do not fire it.
	ArmedAt *time.Time
	// Version is the number of the live version (a publish or a change
	// of the live definition makes the next one; templates are compiled
	// once per version).
	Version   int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Draft is the edited copy of a workflow, promoted by publishing, after
// which it stays, equal to the live workflow until it is edited again.
type Draft struct {
	ID           string
	WorkflowID   string
	Name         string
	Description  string
	Definition   Definition
	CreatedAt    time.Time
	LastModified time.Time
}

// Synced tells whether the draft equals the live workflow.
func (d Draft) Synced(w Workflow) bool {
	return d.Name == w.Name && d.Description == w.Description && SameDefinition(d.Definition, w.Definition)
}

// AfterPublish is the draft a publish of live leaves, d being the draft
// before it (nil for none): the draft stays, equal to what went live, so
// that it is synced until it is edited; a publish without a draft leaves
// one too, so that every published workflow has a draft to edit. Its
// last_modified moves only when its content changes (the PATCH that
// publishes also renamed the workflow, say).
func AfterPublish(d *Draft, live Workflow, now time.Time) Draft {
	if d == nil {
		return Draft{WorkflowID: live.ID, Name: live.Name, Description: live.Description, Definition: live.Definition,
			CreatedAt: now, LastModified: now}
	}
	out := *d
	if !out.Synced(live) {
		out.Name, out.Description, out.Definition, out.LastModified = live.Name, live.Description, live.Definition, now
	}
	return out
}

// SameDefinition compares two definitions by their JSON (object keys are
// sorted by encoding/json, so equal definitions encode alike).
func SameDefinition(a, b Definition) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// Fires tells whether the workflow's trigger fires.
func (w Workflow) Fires() bool { return w.Status == StatusPublished && w.Enabled }

// NextFire is when a scheduled workflow fires next after t; nil unless
// the workflow is published, enabled and has a valid scheduled trigger.
func (w Workflow) NextFire(t time.Time) *time.Time {
	if !w.Fires() || w.Definition.TriggerKind() != TriggerScheduled {
		return nil
	}
	in := w.Definition.Trigger.Inputs
	spec, _ := in["cron"].(string)
	zone, _ := in["timezone"].(string)
	if zone == "" {
		zone = "UTC"
	}
	sched, loc, err := ParseSchedule(spec, zone)
	if err != nil {
		return nil
	}
	next := sched.Next(t.In(loc)).UTC()
	return &next
}

// Version is one live definition of a workflow: each publish makes one,
// and so does a change of the live definition itself; Workflow.Version is
// the number of the live one, and an execution records the number it ran.
type Version struct {
	ID          string
	WorkflowID  string
	Number      int64
	Name        string
	Description string
	Definition  Definition
	// ChangeSummary is what the publish said changed; nil when it said
	// nothing or the version was not made by a publish.
	ChangeSummary *string
	PublishedAt   time.Time
}

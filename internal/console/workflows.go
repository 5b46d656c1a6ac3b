package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
)

// workflowsPerPage is the workflows table's page.
const workflowsPerPage = 50

// executionsShown is how many of a workflow's executions its editor lists.
const executionsShown = 10

type workflowRow struct {
	workflow.Workflow
	Trigger  string
	HasDraft bool
	Last     *workflow.Execution
}

type workflowsData struct {
	Rows       []workflowRow
	Total      int64
	Prev, Next string
}

// workflows lists the account's workflows with the reads of GET
// /v1/workflows, and each one's last execution (that of GET
// /v1/workflows/{id}/executions).
func (c *Console) workflows(w http.ResponseWriter, r *http.Request, s session) {
	ctx, acct := r.Context(), s.p.Account.ID
	offset, err := strconv.Atoi(r.URL.Query().Get("offset"))
	if r.URL.Query().Get("offset") == "" {
		offset, err = 0, nil
	}
	if err != nil || offset < 0 {
		c.message(w, r, http.StatusBadRequest, "Bad page link", "The page link is not valid; start from the first page.")
		return
	}
	ws, total, err := c.store.ListWorkflows(ctx, acct, "", workflowsPerPage, offset)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	ids := make([]string, len(ws))
	for i, wf := range ws {
		ids[i] = wf.ID
	}
	drafts, err := c.store.DraftedWorkflows(ctx, acct, ids)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d := workflowsData{Total: total}
	for _, wf := range ws {
		row := workflowRow{Workflow: wf, Trigger: wf.Definition.TriggerKind(), HasDraft: drafts[wf.ID]}
		xs, _, err := c.store.ListExecutions(ctx, acct, wf.ID, "", "", 1, 1)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			c.serverError(w, r, err)
			return
		}
		if len(xs) > 0 {
			row.Last = &xs[0]
		}
		d.Rows = append(d.Rows, row)
	}
	if offset > 0 {
		d.Prev = strconv.Itoa(max(0, offset-workflowsPerPage))
	}
	if int64(offset+len(ws)) < total {
		d.Next = strconv.Itoa(offset + len(ws))
	}
	v := s.view("Workflows", "workflows")
	v.Data = d
	c.render(w, http.StatusOK, "workflows", v)
}

// exampleForm is one example of the new-workflow page with its form.
type exampleForm struct {
	Key  string // the example's number, or "blank"
	Name field
	// Topic replaces the example's TOPIC_ID placeholder, when it has one.
	Topic       *field
	Description string
	Category    string
	Trigger     string
	Steps       int
	Graph       template.HTML
	Problem     *apiProblem
}

type newWorkflowData struct {
	GraphCSS bool
	Examples []exampleForm
	// Topics are the account's topics to pick for a placeholder, or why
	// the key may not list them.
	Topics       []topicChoice
	TopicsDenied string
}

type topicChoice struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// topics lists the account's topics (GET /v1/topics) for the examples'
// topic placeholders; the API's refusal (permission, plan) is said instead.
func (c *Console) topics(r *http.Request, s session, d *newWorkflowData) error {
	a, err := c.api(r, s, http.MethodGet, "/v1/topics", url.Values{"page": {"1"}, "page_size": {"100"}}, nil)
	if err != nil {
		return err
	}
	if !a.OK() {
		d.TopicsDenied = a.Problem().Message
		return nil
	}
	return a.Data(&d.Topics)
}

// withTopic is def with the topic placeholder replaced by id.
func withTopic(def workflow.Definition, id string) (workflow.Definition, error) {
	raw, err := json.Marshal(def)
	if err != nil {
		return def, fmt.Errorf("console: encode example: %w", err)
	}
	quoted, _ := json.Marshal(id)
	var out workflow.Definition
	if err := json.Unmarshal(bytes.ReplaceAll(raw, []byte(`"`+workflow.TopicPlaceholder+`"`), quoted), &out); err != nil {
		return def, fmt.Errorf("console: decode example: %w", err)
	}
	return out, nil
}

// hasTopicPlaceholder tells whether an example names the topic to pick.
func hasTopicPlaceholder(def workflow.Definition) bool {
	raw, _ := json.Marshal(def)
	return bytes.Contains(raw, []byte(`"`+workflow.TopicPlaceholder+`"`))
}

// examples are GET /v1/workflows/examples, then a blank workflow.
func (c *Console) examples(r *http.Request, s session) ([]workflow.Example, *apiAnswer, error) {
	a, err := c.api(r, s, http.MethodGet, "/v1/workflows/examples", nil, nil)
	if err != nil {
		return nil, nil, err
	}
	if !a.OK() {
		return nil, &a, nil
	}
	var list struct {
		Items []workflow.Example `json:"items"`
	}
	if err := a.Data(&list); err != nil {
		return nil, nil, err
	}
	blank := workflow.Example{Name: "Untitled workflow", Description: "A new-post trigger and no step: add the steps yourself.",
		Category: "blank", Workflow: workflow.Definition{Trigger: &workflow.Trigger{Kind: workflow.TriggerNewPost}}}
	return append(list.Items, blank), nil, nil
}

func exampleForms(examples []workflow.Example) []exampleForm {
	out := make([]exampleForm, 0, len(examples))
	for i, ex := range examples {
		key := strconv.Itoa(i)
		if i == len(examples)-1 {
			key = "blank"
		}
		out = append(out, exampleForm{Key: key, Name: field{ID: "name-" + key, Value: ex.Name}, Description: ex.Description,
			Category: ex.Category, Trigger: ex.Workflow.TriggerKind(), Steps: len(ex.Workflow.Actions),
			Graph: workflowGraph(ex.Workflow, nil)})
		if hasTopicPlaceholder(ex.Workflow) {
			out[i].Topic = &field{ID: "topic-" + key}
		}
	}
	return out
}

// newWorkflow lists the examples to start from, each with its own form.
func (c *Console) newWorkflow(w http.ResponseWriter, r *http.Request, s session) {
	examples, refused, err := c.examples(r, s)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if refused != nil {
		c.apiFailure(w, r, *refused)
		return
	}
	d := newWorkflowData{Examples: exampleForms(examples), GraphCSS: graphCSS()}
	if err := c.topics(r, s, &d); err != nil {
		c.serverError(w, r, err)
		return
	}
	v := s.view("New workflow", "workflows")
	v.Data = d
	c.render(w, http.StatusOK, "workflow-new", v)
}

// createWorkflow creates the chosen example (POST /v1/workflows) under the
// name given and opens it in the editor; a webhook's signing secret, shown
// once by the API, is shown once by the editor's notice.
func (c *Console) createWorkflow(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	examples, refused, err := c.examples(r, s)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if refused != nil {
		c.apiFailure(w, r, *refused)
		return
	}
	forms := exampleForms(examples)
	key := r.PostForm.Get("example")
	i := len(examples) - 1
	if key != "blank" {
		if i, err = strconv.Atoi(key); err != nil || i < 0 || i >= len(examples)-1 {
			c.message(w, r, http.StatusBadRequest, "No such example", "Choose one of the examples on the new-workflow page.")
			return
		}
	}
	ex, f := examples[i], &forms[i]
	name, def := r.PostForm.Get("name"), ex.Workflow
	if f.Topic != nil {
		f.Topic.Value = strings.TrimSpace(r.PostForm.Get("topic"))
		if f.Topic.Value != "" {
			if def, err = withTopic(def, f.Topic.Value); err != nil {
				c.serverError(w, r, err)
				return
			}
		}
	}
	a, err := c.api(r, s, http.MethodPost, "/v1/workflows", nil,
		map[string]any{"name": name, "description": ex.Description, "workflow": def})
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		p := a.Problem()
		f.Name.Value, f.Name.Error = name, p.At("name").Message
		names := []string{"name"}
		if f.Topic != nil {
			f.Topic.Error = p.At("workflow.trigger.inputs.topic_id").Message
			names = append(names, "workflow.trigger.inputs.topic_id")
		}
		p = p.Place(names...)
		f.Problem = &p
		d := newWorkflowData{Examples: forms, GraphCSS: graphCSS()}
		if err := c.topics(r, s, &d); err != nil {
			c.serverError(w, r, err)
			return
		}
		v := s.view("New workflow", "workflows")
		v.Data = d
		c.render(w, a.Status, "workflow-new", v)
		return
	}
	var out struct {
		ID            string  `json:"id"`
		WebhookSecret *string `json:"webhook_secret"`
	}
	if err := a.Data(&out); err != nil {
		c.serverError(w, r, err)
		return
	}
	c.doneShowingSecret(w, r, s, "workflows", "/workflows/"+url.PathEscape(out.ID), apiMessage(a, "Workflow created")+".", out.WebhookSecret)
}

// apiMessage is the API's message of a success, or fallback.
func apiMessage(a apiAnswer, fallback string) string {
	var env struct {
		Message string `json:"message"`
	}
	if err := a.Decode(&env); err != nil || env.Message == "" {
		return fallback
	}
	return strings.TrimSuffix(env.Message, ".")
}

// workflowOut is a workflow as GET /v1/workflows/{id} answers it.
type workflowOut struct {
	ID                  string              `json:"id"`
	Name                string              `json:"name"`
	Description         string              `json:"description"`
	Workflow            workflow.Definition `json:"workflow"`
	Enabled             bool                `json:"enabled"`
	Status              string              `json:"status"`
	Version             int64               `json:"version"`
	HasDraft            bool                `json:"has_draft"`
	Updated             string              `json:"updated"`
	WebhookURL          *string             `json:"webhook_url"`
	SocialSavedSearchID *string             `json:"social_saved_search_id"`
	RequiredPermissions []string            `json:"required_permissions"`
}

type draftOut struct {
	Name         string              `json:"name"`
	Description  string              `json:"description"`
	Workflow     workflow.Definition `json:"workflow"`
	LastModified string              `json:"last_modified"`
	IsSynced     bool                `json:"is_synced"`
}

// kindOption is an entry of the trigger or action catalogue.
type kindOption struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type testForm struct {
	Overrides, Mocks field
	Strict           bool
}

// editorData is the editor page: the workflow, the definition being
// edited in its form, and the forms that act on the workflow.
type editorData struct {
	GraphCSS bool
	WF       workflowOut
	Fires    bool
	Draft    *draftOut
	Form     editorForm
	Graph    template.HTML
	Kinds    []kindOption
	Triggers []kindOption
	Versions []workflow.Version
	// Executions are its latest executions (test runs included).
	Executions []workflow.Execution
	// Lacking are the messages of the permissions the workflow's steps
	// need that the key lacks: saving, publishing, enabling and testing
	// are refused until a key has them.
	Lacking []string
	Test    testForm
	Summary field
	Confirm field
	Problem *apiProblem
}

// editor shows the workflow's editor: the draft when it has one, else the
// published definition.
func (c *Console) editor(w http.ResponseWriter, r *http.Request, s session) {
	d, ok := c.loadEditor(w, r, s)
	if !ok {
		return
	}
	c.renderEditor(w, s, http.StatusOK, d)
}

// loadEditor reads what the editor shows through the API (the workflow, its
// draft, the catalogues) and the store (its versions); false when it
// answered already.
func (c *Console) loadEditor(w http.ResponseWriter, r *http.Request, s session) (editorData, bool) {
	id := r.PathValue("id")
	base := "/v1/workflows/" + url.PathEscape(id)
	d := editorData{GraphCSS: graphCSS(), Test: testForm{Overrides: field{ID: "test-overrides", Value: "{}"}, Mocks: field{ID: "test-mocks", Value: "{}"}, Strict: true},
		Summary: field{ID: "change-summary"}, Confirm: field{ID: "delete-confirm"}}
	a, err := c.api(r, s, http.MethodGet, base, nil, nil)
	if err == nil && !a.OK() {
		c.apiFailure(w, r, a)
		return d, false
	}
	if err == nil {
		err = a.Data(&d.WF)
	}
	if err == nil {
		var dr apiAnswer
		if dr, err = c.api(r, s, http.MethodGet, base+"/draft", nil, nil); err == nil && dr.OK() {
			d.Draft = &draftOut{}
			err = dr.Data(d.Draft)
		} else if err == nil && dr.Status != http.StatusNotFound {
			c.apiFailure(w, r, dr)
			return d, false
		}
	}
	for _, cat := range []struct {
		path string
		into *[]kindOption
	}{{"/v1/workflows/actions", &d.Kinds}, {"/v1/workflows/triggers", &d.Triggers}} {
		if err != nil {
			break
		}
		var ca apiAnswer
		if ca, err = c.api(r, s, http.MethodGet, cat.path, nil, nil); err == nil {
			var list struct {
				Items []kindOption `json:"items"`
			}
			err = ca.Data(&list)
			*cat.into = list.Items
		}
	}
	if err == nil {
		d.Versions, err = c.store.WorkflowVersions(r.Context(), s.p.Account.ID, d.WF.ID)
	}
	if err == nil {
		d.Executions, _, err = c.store.ListExecutions(r.Context(), s.p.Account.ID, d.WF.ID, "", "", 1, executionsShown)
	}
	if err != nil {
		c.serverError(w, r, err)
		return d, false
	}
	d.Fires = d.WF.Status == string(workflow.StatusPublished) && d.WF.Enabled
	for _, p := range d.WF.RequiredPermissions {
		if !s.p.Key.Has(auth.Permission(p)) {
			d.Lacking = append(d.Lacking, lacks(auth.Permission(p)))
		}
	}
	name, description, def := d.WF.Name, d.WF.Description, d.WF.Workflow
	if d.Draft != nil {
		name, description, def = d.Draft.Name, d.Draft.Description, d.Draft.Workflow
	}
	d.Form = newEditorForm(name, description, def)
	d.Graph = workflowGraph(def, nil)
	return d, true
}

func (c *Console) renderEditor(w http.ResponseWriter, s session, status int, d editorData) {
	v := s.view(d.WF.Name, "workflows")
	v.Data = d
	c.render(w, status, "workflow-editor", v)
}

// editing is the definition the editor shows (the draft's, else the live one).
func (d editorData) editing() workflow.Definition {
	if d.Draft != nil {
		return d.Draft.Workflow
	}
	return d.WF.Workflow
}

// editorRefused shows the editor again with the API's refusal of a form: its
// messages at the editor's inputs they point to (def is the definition
// its pointers point into), the rest above the page.
func (c *Console) editorRefused(w http.ResponseWriter, s session, d *editorData, def workflow.Definition, a apiAnswer, extra map[string]*field) {
	p, marked := d.Form.placeProblem(a.Problem(), def, extra)
	d.Problem = &p
	d.Graph = workflowGraph(def, marked)
	c.renderEditor(w, s, a.Status, *d)
}

// choice is an option of a select.
type choice struct{ Value, Label string }

// KindChoices are the action kinds to choose from; a kind the catalogue
// does not list stays chosen, for the API to say what is wrong with it.
func (d editorData) KindChoices(current string) []choice {
	return kindChoices(d.Kinds, current, choice{"", "Choose a kind"})
}

// TriggerChoices are the trigger kinds to choose from.
func (d editorData) TriggerChoices(current string) []choice {
	return kindChoices(d.Triggers, current)
}

func kindChoices(opts []kindOption, current string, first ...choice) []choice {
	out, found := first, current == ""
	for _, o := range opts {
		out = append(out, choice{o.Kind, o.Kind + " — " + o.Name})
		found = found || o.Kind == current
	}
	if !found {
		out = append(out, choice{current, current + " (not in the catalogue)"})
	}
	return out
}

// ConditionChoices are the conditions an edge may have.
func (d editorData) ConditionChoices() []choice {
	return []choice{{"", "Always"}, {workflow.EdgeIf, "if (the builtin:if holds)"}, {workflow.EdgeElse, "else (it does not)"},
		{workflow.EdgeMatch, "match (the expression holds)"}, {workflow.EdgeLoop, "loop (each item)"}, {workflow.EdgeCompleted, "completed (after the loop)"}}
}

// NextVersion is the number the next publish makes.
func (d editorData) NextVersion() int64 {
	if len(d.Versions) == 0 {
		return d.WF.Version + 1
	}
	return max(d.Versions[0].Number, d.WF.Version) + 1
}

// graphCSS tells whether the graph's own stylesheet (graph.go's) is among
// the assets, so the pages that draw graphs link it.
func graphCSS() bool {
	_, err := fs.Stat(assetFS, "assets/graph.css")
	return err == nil
}

package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/workflow"
)

// The editor's forms. Each asks the API (PUT draft, DELETE draft, publish,
// PATCH, DELETE, test) and, when it worked, goes back to a page with the
// API's message; when it did not, shows the editor again with the API's
// messages at the inputs they point to.

func editorPath(id string) string  { return "/workflows/" + url.PathEscape(id) }
func workflowAPI(id string) string { return "/v1/workflows/" + url.PathEscape(id) }

// saveDraft sends the whole definition of the form as the draft (PUT
// /v1/workflows/{id}/draft). An input that is not JSON gets its message
// without asking the API.
func (c *Console) saveDraft(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	id := r.PathValue("id")
	form := parseEditorForm(r.PostForm)
	def, readable := form.definition()
	if !readable {
		d, ok := c.loadEditor(w, r, s)
		if !ok {
			return
		}
		d.Problem = &apiProblem{Code: "FORM", Message: "Some inputs could not be read, so nothing was saved: correct the fields marked below."}
		d.Graph = workflowGraph(def, form.localMarks(def))
		form.addBlanks()
		d.Form = form
		c.renderEditor(w, s, http.StatusBadRequest, d)
		return
	}
	a, err := c.api(r, s, http.MethodPut, workflowAPI(id)+"/draft", nil, map[string]any{"name": form.Name.Value, "description": form.Description.Value, "workflow": def})
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if a.OK() {
		c.done(w, r, editorPath(id), apiMessage(a, "Workflow draft saved")+".")
		return
	}
	d, ok := c.loadEditor(w, r, s)
	if !ok {
		return
	}
	form.addBlanks()
	d.Form = form
	c.editorRefused(w, s, &d, def, a, nil)
}

// act asks the API one write of the editor's buttons; after it worked, the
// editor (or to) with the API's message, else the editor with its refusal.
// extra, when given, fills the editor's fields from the form and names the
// fields (by pointer) that the API's messages may point to.
func (c *Console) act(w http.ResponseWriter, r *http.Request, s session, method, path string, body any, to, fallback string, extra func(*editorData) map[string]*field) {
	a, err := c.api(r, s, method, path, nil, body)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if a.OK() {
		var out struct {
			VersionNumber int64   `json:"version_number"`
			WebhookSecret *string `json:"webhook_secret"`
		}
		_ = a.Data(&out)
		msg := apiMessage(a, fallback)
		if out.VersionNumber > 0 {
			msg += " as version " + strconv.FormatInt(out.VersionNumber, 10)
		}
		c.doneShowingSecret(w, r, s, "workflows", to, msg+".", out.WebhookSecret)
		return
	}
	d, ok := c.loadEditor(w, r, s)
	if !ok {
		return
	}
	var fields map[string]*field
	if extra != nil {
		fields = extra(&d)
	}
	c.editorRefused(w, s, &d, d.editing(), a, fields)
}

// discardDraft deletes the draft (DELETE /v1/workflows/{id}/draft).
func (c *Console) discardDraft(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	id := r.PathValue("id")
	c.act(w, r, s, http.MethodDelete, workflowAPI(id)+"/draft", nil, editorPath(id), "Workflow draft deleted", nil)
}

// publish publishes the draft as the next version (POST
// /v1/workflows/{id}/publish), refused when the draft changed since the
// editor showed it.
func (c *Console) publish(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	id := r.PathValue("id")
	body := map[string]any{}
	summary := r.PostForm.Get("change-summary")
	if strings.TrimSpace(summary) != "" {
		body["change_summary"] = summary
	}
	if at := r.PostForm.Get("draft-modified"); at != "" {
		body["expected_draft_last_modified"] = at
	}
	c.act(w, r, s, http.MethodPost, workflowAPI(id)+"/publish", body, editorPath(id), "Workflow published", func(d *editorData) map[string]*field {
		d.Summary.Value = summary
		return map[string]*field{"/change_summary": &d.Summary}
	})
}

// setEnabled turns the trigger on or off (PATCH /v1/workflows/{id}).
func (c *Console) setEnabled(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	id := r.PathValue("id")
	on := r.PostForm.Get("enabled") == "true"
	c.act(w, r, s, http.MethodPatch, workflowAPI(id), map[string]any{"enabled": on}, editorPath(id), "Workflow updated", nil)
}

// deleteWorkflow deletes the workflow (DELETE /v1/workflows/{id}) once its
// box is ticked: its trigger stops at once and it cannot be undone.
func (c *Console) deleteWorkflow(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	if r.PostForm.Get("delete-confirm") == "" {
		d, ok := c.loadEditor(w, r, s)
		if !ok {
			return
		}
		d.Confirm.Error = "Tick this box to confirm: the workflow stops at once and cannot be restored."
		c.renderEditor(w, s, http.StatusBadRequest, d)
		return
	}
	c.act(w, r, s, http.MethodDelete, workflowAPI(r.PathValue("id")), nil, "/workflows", "Workflow deleted", nil)
}

// testRun starts a test run of what is being edited (POST
// /v1/workflows/{id}/test) with the event's overrides and the steps'
// mocked outputs, then opens its execution.
func (c *Console) testRun(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	id := r.PathValue("id")
	t := testForm{Overrides: field{ID: "test-overrides", Value: r.PostForm.Get("test-overrides")},
		Mocks: field{ID: "test-mocks", Value: r.PostForm.Get("test-mocks")}, Strict: r.PostForm.Get("test-strict") != ""}
	var overrides, outputs map[string]any
	readable := jsonObject(&t.Overrides, &overrides)
	if !jsonObject(&t.Mocks, &outputs) {
		readable = false
	}
	mocks := map[string]workflow.Mock{}
	for step, out := range outputs {
		o, isObj := out.(map[string]any)
		if !isObj {
			t.Mocks.Error, readable = "must map each step id to the output object it stands in for, such as {\"notify\": {\"ok\": true}}", false
			break
		}
		mocks[step] = workflow.Mock{Enabled: true, Output: o}
	}
	if !readable {
		d, ok := c.loadEditor(w, r, s)
		if !ok {
			return
		}
		d.Test = t
		d.Problem = &apiProblem{Code: "FORM", Message: "The test run's inputs could not be read, so it did not start: correct the fields marked below."}
		c.renderEditor(w, s, http.StatusBadRequest, d)
		return
	}
	body := map[string]any{"test_config": map[string]any{"strict_data_validation": t.Strict, "action_mocks": mocks}}
	if len(overrides) > 0 {
		body["overrides"] = overrides
	}
	a, err := c.api(r, s, http.MethodPost, workflowAPI(id)+"/test", nil, body)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if a.OK() {
		var out struct {
			TestRunID string `json:"test_run_id"`
		}
		if err := a.Data(&out); err != nil {
			c.serverError(w, r, err)
			return
		}
		c.done(w, r, editorPath(id)+"/executions/"+url.PathEscape(out.TestRunID), apiMessage(a, "Test run started")+".")
		return
	}
	d, ok := c.loadEditor(w, r, s)
	if !ok {
		return
	}
	d.Test = t
	c.editorRefused(w, s, &d, d.editing(), a, map[string]*field{"/overrides": &d.Test.Overrides, "/test_config": &d.Test.Mocks})
}

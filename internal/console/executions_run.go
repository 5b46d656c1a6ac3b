package console

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/trawlhq/trawl/internal/store"
)

// apiExecution is GET /v1/workflows/{id}/executions/{runId}'s data; the
// values a run computed stay raw JSON, shown as the API wrote them.
type apiExecution struct {
	ID         string          `json:"id"`
	WorkflowID string          `json:"workflow_id"`
	EventName  string          `json:"event_name"`
	Version    int64           `json:"version"`
	Status     string          `json:"status"`
	StartedAt  time.Time       `json:"started_at"`
	EndedAt    *time.Time      `json:"ended_at"`
	DurationMS *int64          `json:"duration_ms"`
	Error      *string         `json:"error"`
	IsTest     bool            `json:"is_test"`
	RerunOf    *string         `json:"rerun_of"`
	Trigger    json.RawMessage `json:"trigger"`
	Steps      []apiStep       `json:"steps"`
}

type apiStep struct {
	StepID       string          `json:"step_id"`
	Key          string          `json:"key"`
	StepName     *string         `json:"step_name"`
	Operation    string          `json:"operation"`
	Status       string          `json:"status"`
	StartedAt    *time.Time      `json:"started_at"`
	EndedAt      *time.Time      `json:"ended_at"`
	DurationMS   *int64          `json:"duration_ms"`
	Input        json.RawMessage `json:"input"`
	Output       json.RawMessage `json:"output"`
	MappedOutput json.RawMessage `json:"mapped_output"`
	Error        *apiStepError   `json:"error"`
	Attempts     []struct {
		Attempt int           `json:"attempt"`
		Error   *apiStepError `json:"error"`
	} `json:"attempts"`
	ResumeAt *time.Time `json:"resume_at"`
}

type apiStepError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// stepView is one step of the timeline.
type stepView struct {
	N                          int
	ID, Key, Name, Kind        string
	Status                     string
	Attempts                   int
	AttemptErrors              []string
	Started                    *time.Time
	StartedText, Duration      string
	ResumeText                 string
	Input, Output, Mapped      string
	Error                      *apiStepError
	HasInput, HasOutput, Shown bool
}

type statusCount struct {
	Status string
	N      int
}

type executionData struct {
	X                         apiExecution
	Path                      string // this page
	WorkflowName              string
	WorkflowGone              bool
	StartedText, EndedText    string
	Duration, Trigger         string
	Steps                     []stepView
	Totals                    []statusCount
	Live                      bool   // running: the timeline polls
	Poll                      string // the timeline's address while it polls, with what it has seen
	Problem                   *apiProblem
	CanRerun, CanCancel       bool
	WorkflowLink, ExecsFilter string
}

// executionPath is the console's page of an execution.
func executionPath(workflowID, runID string) string {
	return "/workflows/" + url.PathEscape(workflowID) + "/executions/" + url.PathEscape(runID)
}

// apiExecutionPath is the API's.
func apiExecutionPath(workflowID, runID string) string {
	return "/v1" + executionPath(workflowID, runID)
}

// execution shows one execution as the API answers it: a timeline of its
// steps. While it runs, htmx asks again every 2 s with what it has seen
// (seen); the same answer gets 204 (htmx leaves the page, and the open
// <details>, as they are), a new one the timeline.
func (c *Console) execution(w http.ResponseWriter, r *http.Request, s session) {
	c.showExecution(w, r, s, http.StatusOK, nil)
}

// showExecution renders the execution page, with the API's refusal of a
// rerun or cancel (problem) above its buttons.
func (c *Console) showExecution(w http.ResponseWriter, r *http.Request, s session, status int, problem *apiProblem) {
	wid, rid := r.PathValue("id"), r.PathValue("runId")
	a, err := c.api(r, s, http.MethodGet, apiExecutionPath(wid, rid), nil, nil)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	htmx := r.Header.Get("HX-Request") != "" && problem == nil
	if !a.OK() {
		if htmx {
			// The poll keeps the page it has; the next one tries again.
			w.WriteHeader(http.StatusNoContent)
			return
		}
		c.apiFailure(w, r, a)
		return
	}
	var x apiExecution
	if err := a.Data(&x); err != nil {
		c.serverError(w, r, err)
		return
	}
	sum := sha256.Sum256(a.Body)
	seen := hex.EncodeToString(sum[:8])
	if htmx && r.URL.Query().Get("seen") == seen {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	d := c.executionView(r, s, x)
	d.Problem = problem
	if d.Live {
		d.Poll = d.Path + "?seen=" + seen
	}
	v := s.view("Execution of "+d.WorkflowName, "executions")
	v.Data = d
	if htmx {
		c.renderBlock(w, http.StatusOK, "execution", "timeline", v)
		return
	}
	c.render(w, status, "execution", v)
}

func (c *Console) executionView(r *http.Request, s session, x apiExecution) executionData {
	d := executionData{X: x, Path: executionPath(x.WorkflowID, x.ID), StartedText: stamp(x.StartedAt), Duration: millis(x.DurationMS),
		Trigger: pretty(x.Trigger), Live: x.Status == "running", CanRerun: x.Status == "failed", CanCancel: x.Status == "running",
		ExecsFilter: "/executions?" + url.Values{"workflow": {x.WorkflowID}}.Encode()}
	if x.EndedAt != nil {
		d.EndedText = stamp(*x.EndedAt)
	}
	// The workflow's name as the API's GET of it reads it; a deleted
	// workflow's executions stay readable, by its id.
	d.WorkflowName = x.WorkflowID
	if wf, err := c.store.AccountWorkflow(r.Context(), s.p.Account.ID, x.WorkflowID); err == nil {
		d.WorkflowName, d.WorkflowLink = wf.Name, "/workflows/"+url.PathEscape(wf.ID)
	} else {
		d.WorkflowGone = errors.Is(err, store.ErrNotFound)
		if !d.WorkflowGone {
			c.log.Warn("console: workflow of an execution", "error", err)
		}
	}
	counts := map[string]int{}
	for i, st := range x.Steps {
		counts[st.Status]++
		sv := stepView{N: i + 1, ID: st.StepID, Key: st.Key, Kind: st.Operation, Status: st.Status, Attempts: len(st.Attempts),
			Started: st.StartedAt, Duration: millis(st.DurationMS), Input: pretty(st.Input), Output: pretty(st.Output),
			Mapped: pretty(st.MappedOutput), Error: st.Error}
		if st.StepName != nil {
			sv.Name = *st.StepName
		}
		if st.StartedAt != nil {
			sv.StartedText = stamp(*st.StartedAt)
		}
		if st.ResumeAt != nil {
			sv.ResumeText = stamp(*st.ResumeAt)
		}
		for _, at := range st.Attempts {
			if at.Error != nil {
				sv.AttemptErrors = append(sv.AttemptErrors, fmt.Sprintf("Attempt %d: %s (%s)", at.Attempt, at.Error.Message, at.Error.Code))
			}
		}
		sv.HasInput = sv.Input != "" && sv.Input != "{}"
		sv.HasOutput = sv.Output != "" && sv.Output != "null"
		sv.Shown = st.Status != "skipped" && st.Status != "pending"
		d.Steps = append(d.Steps, sv)
	}
	for _, st := range []string{"completed", "failed", "running", "pending", "skipped"} {
		if counts[st] > 0 {
			d.Totals = append(d.Totals, statusCount{Status: st, N: counts[st]})
		}
	}
	return d
}

// pretty is a JSON value indented for a <pre>; "" for none.
func pretty(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// executionAction posts the execution's action (rerun, cancel) to the API
// after the CSRF check; false when the page answered already (a refusal
// shown on the execution, a 500).
func (c *Console) executionAction(w http.ResponseWriter, r *http.Request, s session, action string) (apiAnswer, bool) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return apiAnswer{}, false
	}
	a, err := c.api(r, s, http.MethodPost, apiExecutionPath(r.PathValue("id"), r.PathValue("runId"))+"/"+action, nil, nil)
	if err != nil {
		c.serverError(w, r, err)
		return a, false
	}
	if !a.OK() {
		c.refused(w, r, s, a)
		return a, false
	}
	return a, true
}

// rerunExecution asks the API to rerun a failed execution from its failed
// step, then shows the new one; the API's refusal is shown on this one.
func (c *Console) rerunExecution(w http.ResponseWriter, r *http.Request, s session) {
	a, ok := c.executionAction(w, r, s, "rerun")
	if !ok {
		return
	}
	var next struct {
		ID         string `json:"id"`
		WorkflowID string `json:"workflow_id"`
	}
	if err := a.Data(&next); err != nil {
		c.serverError(w, r, err)
		return
	}
	c.done(w, r, executionPath(next.WorkflowID, next.ID), "Execution rerun from its failed step: this is the new run.")
}

// cancelExecution asks the API to cancel a running execution.
func (c *Console) cancelExecution(w http.ResponseWriter, r *http.Request, s session) {
	if _, ok := c.executionAction(w, r, s, "cancel"); ok {
		c.done(w, r, executionPath(r.PathValue("id"), r.PathValue("runId")), "Execution cancelled.")
	}
}

// refused shows the execution again with the API's refusal of a form (a
// 409 for a run that already ended, a 403 naming what the key lacks); an
// execution the API does not find is its 404 page.
func (c *Console) refused(w http.ResponseWriter, r *http.Request, s session, a apiAnswer) {
	if a.Status == http.StatusNotFound {
		c.apiFailure(w, r, a)
		return
	}
	p := a.Problem()
	c.showExecution(w, r, s, a.Status, &p)
}

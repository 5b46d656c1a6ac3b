package console

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
)

// executionsPerPage is the executions table's page.
const executionsPerPage = 50

// workflowsListed bounds the workflow filter's choices (the newest ones).
const workflowsListed = 100

// executionFilter is the list's GET form, named as the API's query
// (status, event_name) so its messages land at the inputs.
type executionFilter struct {
	Workflow string
	Status   string
	Event    string
}

// query is the filter as the page's query, cursor added when not empty.
func (f executionFilter) query(cursor string) url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"workflow": f.Workflow, "status": f.Status, "event_name": f.Event, "cursor": cursor} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// link is the list's address with the filter and cursor.
func (f executionFilter) link(cursor string) template.URL {
	q := f.query(cursor)
	if len(q) == 0 {
		return "/executions"
	}
	return template.URL("/executions?" + q.Encode())
}

// option is one choice of a filter's select.
type option struct {
	Value, Label string
	Selected     bool
}

// executionRow is one row of the executions table.
type executionRow struct {
	ID, WorkflowID, WorkflowName string
	WorkflowDeleted              bool
	Status, Event, Error         string
	Started                      time.Time
	StartedText, Duration        string
	Test                         bool
}

type executionsData struct {
	Filter    executionFilter
	Workflows []option
	Statuses  []option
	Events    []option
	Problem   apiProblem
	Rows      []executionRow
	Filtered  bool
	First     template.URL // the first page, when on a later one
	Next      template.URL
}

// executions lists the account's executions across its workflows, newest
// first, filtered by workflow, status and event. The API lists one
// workflow's executions at a time, so the rows come from the store; the
// filter's values are checked by the API first (checkExecutionFilter), so
// a bad one gets the API's own message at its input.
func (c *Console) executions(w http.ResponseWriter, r *http.Request, s session) {
	q := r.URL.Query()
	f := executionFilter{Workflow: strings.TrimSpace(q.Get("workflow")), Status: strings.TrimSpace(q.Get("status")), Event: strings.TrimSpace(q.Get("event_name"))}
	cursor := q.Get("cursor")
	d := executionsData{Filter: f, Filtered: f != executionFilter{}}
	wfs, _, err := c.store.ListWorkflows(r.Context(), s.p.Account.ID, "", workflowsListed, 0)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d.Workflows = workflowOptions(wfs, f.Workflow)
	d.Statuses = choices([]string{string(workflow.ExecutionRunning), string(workflow.ExecutionCompleted), string(workflow.ExecutionFailed)}, f.Status)
	d.Events = choices(workflow.TriggerKinds(), f.Event)
	status := http.StatusOK
	p, err := c.checkExecutionFilter(r, s, f)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if p.Has() {
		placed := p.Place("workflow", "status", "event_name")
		d.Problem, status = placed, p.Status
	} else {
		page, err := c.store.AccountExecutions(r.Context(), s.p.Account.ID,
			store.ExecutionFilter{WorkflowID: f.Workflow, Status: workflow.ExecutionStatus(strings.ToLower(f.Status)), EventName: f.Event},
			executionsPerPage, cursor)
		if errors.Is(err, store.ErrBadCursor) {
			c.message(w, r, http.StatusBadRequest, "Bad page link", "The page link is not valid; start from the first page.")
			return
		}
		if err != nil {
			c.serverError(w, r, err)
			return
		}
		for _, x := range page.Rows {
			d.Rows = append(d.Rows, listRow(x))
		}
		if cursor != "" {
			d.First = f.link("")
		}
		if page.NextCursor != "" {
			d.Next = f.link(page.NextCursor)
		}
	}
	v := s.view("Executions", "executions")
	v.Data = d
	c.render(w, status, "executions", v)
}

// checkExecutionFilter asks the API's list of a workflow's executions with
// the filter's values: the API's rules and messages, never a second copy.
// Its query is checked before the workflow is looked up, so without a
// workflow chosen any id does: a 404 then only says the values are fine.
// The workflow's 404 is the API's message at the workflow input.
func (c *Console) checkExecutionFilter(r *http.Request, s session, f executionFilter) (apiProblem, error) {
	if f == (executionFilter{}) {
		return apiProblem{}, nil
	}
	id := f.Workflow
	if id == "" {
		id = "-"
	}
	q := url.Values{"page_size": {"1"}}
	if f.Status != "" {
		q.Set("status", f.Status)
	}
	if f.Event != "" {
		q.Set("event_name", f.Event)
	}
	a, err := c.api(r, s, http.MethodGet, "/v1/workflows/"+url.PathEscape(id)+"/executions", q, nil)
	if err != nil || a.OK() {
		return apiProblem{}, err
	}
	p := a.Problem()
	if a.Status == http.StatusNotFound {
		if f.Workflow == "" {
			return apiProblem{}, nil
		}
		p.Fields = append(p.Fields, fieldProblem{Field: "query.workflow", Message: p.Message})
	}
	return p, nil
}

// workflowOptions are the workflow filter's choices; a chosen workflow not
// among them (older, deleted, unknown) stays chosen, by its id.
func workflowOptions(wfs []workflow.Workflow, chosen string) []option {
	out := []option{{Value: "", Label: "Any workflow", Selected: chosen == ""}}
	found := chosen == ""
	for _, w := range wfs {
		out = append(out, option{Value: w.ID, Label: w.Name, Selected: w.ID == chosen})
		found = found || w.ID == chosen
	}
	if !found {
		out = append(out, option{Value: chosen, Label: chosen, Selected: true})
	}
	return out
}

// choices are a filter's values after "Any"; a value outside them (typed
// into the address) stays chosen so its message has something to point at.
func choices(values []string, chosen string) []option {
	out := []option{{Value: "", Label: "Any", Selected: chosen == ""}}
	found := chosen == ""
	for _, v := range values {
		same := strings.EqualFold(v, chosen)
		out = append(out, option{Value: v, Label: v, Selected: same})
		found = found || same
	}
	if !found {
		out = append(out, option{Value: chosen, Label: chosen, Selected: true})
	}
	return out
}

func listRow(x store.ExecutionRow) executionRow {
	row := executionRow{ID: x.ID, WorkflowID: x.WorkflowID, WorkflowName: x.WorkflowName, WorkflowDeleted: x.WorkflowDeleted,
		Status: string(x.Status), Event: x.EventName, Error: x.Error, Started: x.StartedAt, StartedText: stamp(x.StartedAt), Test: x.Test != nil}
	if x.EndedAt != nil {
		ms := x.EndedAt.Sub(x.StartedAt).Milliseconds()
		row.Duration = millis(&ms)
	}
	return row
}

// stamp is a time as the executions pages show it: to the second, in UTC.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// millis is a duration in milliseconds as a person reads it; "" for none.
func millis(ms *int64) string {
	if ms == nil {
		return ""
	}
	d := time.Duration(*ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", *ms)
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
}

package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

// A saved search's page: its settings, what the key may do to it (pause,
// resume, run now, delete, each the API's route), and its results with the
// author filters of GET /v1/searches/{id}/results.

// searchResultFilterNames are the results endpoint's author filters and from, in
// the order of the filter form.
func searchResultFilterNames() []string {
	return []string{"job_title", "company", "industry", "country", "seniority", "from"}
}

// searchResultFilters are the filters a query gives, without the empty ones a
// GET form sends for the inputs left blank (the API refuses an empty one).
func searchResultFilters(q url.Values) url.Values {
	out := url.Values{}
	for _, name := range searchResultFilterNames() {
		if v := strings.TrimSpace(q.Get(name)); v != "" {
			out.Set(name, v)
		}
	}
	return out
}

// searchFilterFields are the filter form's inputs with their values and messages.
func searchFilterFields(f url.Values, p apiProblem) []searchInput {
	specs := []searchFieldSpec{
		{Name: "job_title", Label: "Job title contains"},
		{Name: "company", Label: "Company contains"},
		{Name: "industry", Label: "Industry"},
		{Name: "country", Label: "Country", Hint: "Code or English name."},
		{Name: "seniority", Label: "Seniority", Hint: strings.Join(mapping.SeniorityLevels(), ", ") + "."},
		{Name: "from", Label: "Published from", Hint: "ISO 8601, e.g. 2026-11-01T00:00:00Z."},
	}
	out := make([]searchInput, len(specs))
	for i, sp := range specs {
		sp.Type = searchText
		out[i] = searchInput{searchFieldSpec: sp, Value: f.Get(sp.Name), Problem: p.At(sp.Name)}
	}
	return out
}

type resultsData struct {
	Search search.Search
	Items  []source.Item
	Total  int64
	// Filtered: the page shows only the results that pass Query's filters.
	Filtered bool
	Filters  []searchInput
	// Links keep the filters: the next and first pages, the CSV export.
	NextHref, FirstHref, CSVHref string
	// Problem is the API's refusal of a filter or of an action.
	Problem     *apiProblem
	WriteDenied string
}

// searchResults is a saved search's page, with its results a page at a time.
func (c *Console) searchResults(w http.ResponseWriter, r *http.Request, s session) {
	sr, ok := c.accountSearch(w, r, s)
	if !ok {
		return
	}
	c.searchPage(w, r, s, sr, http.StatusOK, apiProblem{})
}

// searchPage renders the search's page with status; action is the API's
// refusal of what the form asked (run, pause…), shown above the results.
// Without filters the results are the store's read the API uses (nothing to
// check); with filters they are the API's own answer, so that its checks and
// messages are the page's.
func (c *Console) searchPage(w http.ResponseWriter, r *http.Request, s session, sr search.Search, status int, action apiProblem) {
	base := "/searches/" + url.PathEscape(sr.ID)
	q := r.URL.Query()
	if r.Method != http.MethodGet {
		q = url.Values{} // an action's answer shows the first page
	}
	f := searchResultFilters(q)
	cursor := q.Get("cursor")
	d := resultsData{Search: sr, Filtered: len(f) > 0, CSVHref: base + "/results.csv"}
	if !s.p.Key.Has(auth.PermSearchesWrite) {
		d.WriteDenied = lacks(auth.PermSearchesWrite)
	}
	if action.Has() {
		d.Problem = &action
	}
	var next string
	if len(f) == 0 {
		page, err := c.store.FilteredResults(r.Context(), sr, store.ResultQuery{}, resultsPerPage, cursor)
		if errors.Is(err, store.ErrBadCursor) {
			c.message(w, r, http.StatusBadRequest, "Bad page link", "The page link is not valid; start from the first page.")
			return
		}
		if err != nil {
			c.serverError(w, r, err)
			return
		}
		d.Items, d.Total, next = page.Items, page.TotalCount, page.NextCursor
	} else {
		api := url.Values{"limit": {strconv.Itoa(resultsPerPage)}}
		for k, v := range f {
			api[k] = v
		}
		if cursor != "" {
			api.Set("cursor", cursor)
		}
		a, err := c.api(r, s, http.MethodGet, "/v1/searches/"+url.PathEscape(sr.ID)+"/results", api, nil)
		if err != nil {
			c.serverError(w, r, err)
			return
		}
		switch {
		case a.Status == http.StatusNotFound || a.Status == http.StatusForbidden:
			c.apiFailure(w, r, a)
			return
		case !a.OK():
			p := a.Problem().Place(searchResultFilterNames()...)
			d.Problem, status = &p, a.Status
		default:
			var body struct {
				Data       []source.Item `json:"data"`
				Pagination struct {
					NextCursor *string `json:"next_cursor"`
					TotalCount *int64  `json:"total_count"`
				} `json:"pagination"`
			}
			if err := a.Decode(&body); err != nil {
				c.serverError(w, r, err)
				return
			}
			d.Items = body.Data
			if body.Pagination.NextCursor != nil {
				next = *body.Pagination.NextCursor
			}
			if body.Pagination.TotalCount != nil {
				d.Total = *body.Pagination.TotalCount
			}
		}
		d.CSVHref += "?" + f.Encode()
	}
	problem := apiProblem{}
	if d.Problem != nil {
		problem = *d.Problem
	}
	d.Filters = searchFilterFields(f, problem)
	if cursor != "" {
		d.FirstHref = base
		if len(f) > 0 {
			d.FirstHref += "?" + f.Encode()
		}
	}
	if next != "" {
		nq := url.Values{"cursor": {next}}
		for k, v := range f {
			nq[k] = v
		}
		d.NextHref = base + "?" + nq.Encode()
	}
	v := s.view(sr.Name, "searches")
	v.Data = d
	c.render(w, status, "results", v)
}

// postSearchStatus pauses or resumes the search (PATCH status).
func (c *Console) postSearchStatus(w http.ResponseWriter, r *http.Request, s session) {
	c.searchAction(w, r, s, func(sr search.Search) (string, string, any, func(apiAnswer) (string, error)) {
		status := r.PostForm.Get("status")
		return http.MethodPatch, "", map[string]any{"status": status}, func(apiAnswer) (string, error) {
			if status == string(search.StatusPaused) {
				return "Search paused: it does not run until resumed.", nil
			}
			return "Search resumed: it runs at once, then on its " + string(sr.Definition.Frequency) + " schedule.", nil
		}
	})
}

// postSearchRun runs the search now (POST run) and says what it collected.
func (c *Console) postSearchRun(w http.ResponseWriter, r *http.Request, s session) {
	c.searchAction(w, r, s, func(search.Search) (string, string, any, func(apiAnswer) (string, error)) {
		return http.MethodPost, "/run", nil, func(a apiAnswer) (string, error) {
			var run struct {
				NewResults   int   `json:"new_results"`
				TotalResults int64 `json:"total_results"`
			}
			if err := a.Data(&run); err != nil {
				return "", err
			}
			return fmt.Sprintf("The run collected %d new result(s); %d in all.", run.NewResults, run.TotalResults), nil
		}
	})
}

// searchAction asks the API what ask says of the session's search (method,
// path under /v1/searches/{id}, body) and, when it worked, goes back to the
// search's page with the flash it makes; a refusal shows the page with the
// API's message.
func (c *Console) searchAction(w http.ResponseWriter, r *http.Request, s session,
	ask func(search.Search) (method, path string, body any, flash func(apiAnswer) (string, error))) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	sr, ok := c.accountSearch(w, r, s)
	if !ok {
		return
	}
	method, path, body, flash := ask(sr)
	a, err := c.api(r, s, method, "/v1/searches/"+url.PathEscape(sr.ID)+path, nil, body)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.searchPage(w, r, s, sr, a.Status, a.Problem().Place())
		return
	}
	msg, err := flash(a)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	c.done(w, r, "/searches/"+url.PathEscape(sr.ID), msg)
}

// searchDelete asks to confirm the deletion.
func (c *Console) searchDelete(w http.ResponseWriter, r *http.Request, s session) {
	sr, ok := c.accountSearch(w, r, s)
	if !ok || !c.need(w, r, s, auth.PermSearchesWrite) {
		return
	}
	v := s.view("Delete "+sr.Name, "searches")
	v.Data = sr
	c.render(w, http.StatusOK, "search_delete", v)
}

// postSearchDelete deletes the search (DELETE) and goes to the list.
func (c *Console) postSearchDelete(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	sr, ok := c.accountSearch(w, r, s)
	if !ok {
		return
	}
	a, err := c.api(r, s, http.MethodDelete, "/v1/searches/"+url.PathEscape(sr.ID), nil, nil)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.apiFailure(w, r, a)
		return
	}
	c.done(w, r, "/searches", "Search “"+sr.Name+"” deleted; it no longer runs.")
}

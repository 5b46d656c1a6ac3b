package console

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
)

// failedShown is how many failed executions the overview lists.
const failedShown = 10

// resultsPerPage is the results table's page.
const resultsPerPage = 50

// searchesPerPage is the searches table's page.
const searchesPerPage = 100

type overviewData struct {
	CreditsLeft, CreditsUsed, CreditsAllocation int64
	ActiveSearches                              int64
	SearchesDenied                              string
	ResultsToday                                int64
	Failed                                      []workflow.Execution
	FailedLimit                                 int
	// Permissions are what the key may do, each permission by name
	// ("*" spelled out), with the plan's.
	Permissions []string
	Plan        string
}

// keyPermissions lists the key's permissions, the wildcard as every one.
func keyPermissions(k auth.Key) []string {
	var out []string
	for _, p := range auth.Permissions() {
		if k.Has(p) {
			out = append(out, string(p))
		}
	}
	return out
}

// lacks is the message of a page or figure the key may not read: the
// API's words for the same refusal.
func lacks(p auth.Permission) string { return "This key lacks the permission " + string(p) + "." }

// overview: the figures of GET /v1/credits/balance and /v1/usage, and the
// account's last failed executions.
func (c *Console) overview(w http.ResponseWriter, r *http.Request, s session) {
	ctx := r.Context()
	acct := s.p.Account
	var monthly int64
	if c.cfg != nil {
		monthly = c.cfg.MonthlyCredits(acct)
	}
	b, err := c.store.Balance(ctx, acct.ID, monthly)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d := overviewData{CreditsLeft: b.Remaining(), CreditsUsed: b.Used, CreditsAllocation: b.Allocation, FailedLimit: failedShown,
		Permissions: keyPermissions(s.p.Key), Plan: string(acct.Plan)}
	if s.p.Key.Has(auth.PermSearchesRead) {
		if d.ActiveSearches, err = c.store.CountActiveSearches(ctx, acct.ID); err != nil {
			c.serverError(w, r, err)
			return
		}
	} else {
		d.SearchesDenied = lacks(auth.PermSearchesRead)
	}
	now := c.now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	u, err := c.store.Usage(ctx, acct.ID, today, now)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d.ResultsToday = u.ResultsTotal
	if d.Failed, err = c.store.RecentFailedExecutions(ctx, acct.ID, failedShown); err != nil {
		c.serverError(w, r, err)
		return
	}
	v := s.view("Overview", "overview")
	v.Data = d
	c.render(w, http.StatusOK, "overview", v)
}

// need answers 403 with the permission's message when the key lacks it.
func (c *Console) need(w http.ResponseWriter, r *http.Request, s session, p auth.Permission) bool {
	if s.p.Key.Has(p) {
		return true
	}
	c.message(w, r, http.StatusForbidden, "Not allowed", lacks(p))
	return false
}

type searchesData struct {
	Searches []search.Search
	Next     string
}

// searches lists the account's saved searches (GET /v1/searches's read).
func (c *Console) searches(w http.ResponseWriter, r *http.Request, s session) {
	if !c.need(w, r, s, auth.PermSearchesRead) {
		return
	}
	page, err := c.store.ListSearches(r.Context(), s.p.Account.ID, "", searchesPerPage, r.URL.Query().Get("cursor"))
	if errors.Is(err, store.ErrBadCursor) {
		c.message(w, r, http.StatusBadRequest, "Bad page link", "The page link is not valid; start from the first page.")
		return
	}
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	v := s.view("Searches", "searches")
	v.Data = searchesData{Searches: page.Searches, Next: page.NextCursor}
	c.render(w, http.StatusOK, "searches", v)
}

type resultsData struct {
	Search search.Search
	Items  []source.Item
	Total  int64
	Cursor string
	Next   string
}

// accountSearch is the session account's search id, or a 404 page (the
// API's answer for another account's search).
func (c *Console) accountSearch(w http.ResponseWriter, r *http.Request, s session) (search.Search, bool) {
	if !c.need(w, r, s, auth.PermSearchesRead) {
		return search.Search{}, false
	}
	id := r.PathValue("id")
	sr, err := c.store.AccountSearch(r.Context(), s.p.Account.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		c.message(w, r, http.StatusNotFound, "Not found", "Search "+id+" not found.")
		return search.Search{}, false
	}
	if err != nil {
		c.serverError(w, r, err)
		return search.Search{}, false
	}
	return sr, true
}

// searchResults pages through a search's results with the read of GET
// /v1/searches/{id}/results.
func (c *Console) searchResults(w http.ResponseWriter, r *http.Request, s session) {
	sr, ok := c.accountSearch(w, r, s)
	if !ok {
		return
	}
	cursor := r.URL.Query().Get("cursor")
	page, err := c.store.FilteredResults(r.Context(), sr, store.ResultQuery{}, resultsPerPage, cursor)
	if errors.Is(err, store.ErrBadCursor) {
		c.message(w, r, http.StatusBadRequest, "Bad page link", "The page link is not valid; start from the first page.")
		return
	}
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	v := s.view(sr.Name, "searches")
	v.Data = resultsData{Search: sr, Items: page.Items, Total: page.TotalCount, Cursor: cursor, Next: page.NextCursor}
	c.render(w, http.StatusOK, "results", v)
}

// resultsCSV is the API's CSV export (GET /v1/searches/{id}/results with
// format=csv), served to the session's principal: the same code, the same
// permission and rate limit, the same file.
func (c *Console) resultsCSV(w http.ResponseWriter, r *http.Request, s session) {
	sr, ok := c.accountSearch(w, r, s)
	if !ok {
		return
	}
	if c.API == nil || c.AsPrincipal == nil {
		c.serverError(w, r, errors.New("console: no API to export through"))
		return
	}
	api := r.Clone(c.AsPrincipal(r.Context(), s.p))
	api.URL = &url.URL{Path: "/v1/searches/" + url.PathEscape(sr.ID) + "/results", RawQuery: "format=csv"}
	api.RequestURI = api.URL.RequestURI()
	api.Header.Del("x-api-key")
	api.Header.Del("Accept")
	c.API.ServeHTTP(w, api)
}

package console

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/store"
)

// resultsPerPage is the results table's page.
const resultsPerPage = 50

// searchesPerPage is the searches table's page.
const searchesPerPage = 100

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

// resultsCSV is the API's CSV export (GET /v1/searches/{id}/results with
// format=csv), served to the session's principal with the page's author
// filters: the same code, checks, permission and rate limit, the same file.
func (c *Console) resultsCSV(w http.ResponseWriter, r *http.Request, s session) {
	sr, ok := c.accountSearch(w, r, s)
	if !ok {
		return
	}
	q := searchResultFilters(r.URL.Query())
	q.Set("format", "csv")
	c.stream(w, r, s, "/v1/searches/"+url.PathEscape(sr.ID)+"/results", q)
}

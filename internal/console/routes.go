package console

import (
	"io/fs"
	"net/http"
)

// routes are every page and form of the console, in one place, by section.
// Every page but sign-in needs a session (signedIn); every POST checks the
// session's CSRF token (postForm) before it changes anything.
func (c *Console) routes(mux *http.ServeMux) {
	assets, _ := fs.Sub(assetFS, "assets")
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", cacheAssets(http.FileServerFS(assets))))
	mux.HandleFunc("GET /signin", c.getSignIn)
	mux.HandleFunc("POST /signin", c.postSignIn)
	mux.HandleFunc("POST /signout", c.postSignOut)

	// Overview
	mux.HandleFunc("GET /{$}", c.signedIn(c.overview))

	// Searches
	mux.HandleFunc("GET /searches", c.signedIn(c.searches))
	mux.HandleFunc("GET /searches/{id}", c.signedIn(c.searchResults))
	mux.HandleFunc("GET /searches/{id}/results.csv", c.signedIn(c.resultsCSV))

	// Topics

	// Leads
	mux.HandleFunc("GET /leads", c.signedIn(c.mappingPage))
	mux.HandleFunc("GET /leads.csv", c.signedIn(c.mappingCSV))
	mux.HandleFunc("GET /leads/creators", c.signedIn(c.creatorsPage))
	mux.HandleFunc("GET /leads/creators.csv", c.signedIn(c.creatorsCSV))

	// Workflows

	// Executions

	// Settings

	mux.HandleFunc("/", c.notFound)
}

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
	mux.HandleFunc("GET /searches/new", c.signedIn(c.searchNew))
	mux.HandleFunc("POST /searches/new", c.signedIn(c.postSearchNew))
	mux.HandleFunc("POST /searches/new/preview", c.signedIn(c.postSearchPreview))
	mux.HandleFunc("GET /searches/{id}", c.signedIn(c.searchResults))
	mux.HandleFunc("GET /searches/{id}/results.csv", c.signedIn(c.resultsCSV))
	mux.HandleFunc("POST /searches/{id}/status", c.signedIn(c.postSearchStatus))
	mux.HandleFunc("POST /searches/{id}/run", c.signedIn(c.postSearchRun))
	mux.HandleFunc("GET /searches/{id}/delete", c.signedIn(c.searchDelete))
	mux.HandleFunc("POST /searches/{id}/delete", c.signedIn(c.postSearchDelete))

	// Topics

	// Leads

	// Workflows

	// Executions

	// Settings

	mux.HandleFunc("/", c.notFound)
}

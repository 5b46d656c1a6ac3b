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

	// Workflows
	mux.HandleFunc("GET /workflows", c.signedIn(c.workflows))
	mux.HandleFunc("GET /workflows/new", c.signedIn(c.newWorkflow))
	mux.HandleFunc("POST /workflows/new", c.signedIn(c.createWorkflow))
	mux.HandleFunc("GET /workflows/{id}", c.signedIn(c.editor))
	mux.HandleFunc("POST /workflows/{id}/draft", c.signedIn(c.saveDraft))
	mux.HandleFunc("POST /workflows/{id}/draft/discard", c.signedIn(c.discardDraft))
	mux.HandleFunc("POST /workflows/{id}/publish", c.signedIn(c.publish))
	mux.HandleFunc("POST /workflows/{id}/enabled", c.signedIn(c.setEnabled))
	mux.HandleFunc("POST /workflows/{id}/delete", c.signedIn(c.deleteWorkflow))
	mux.HandleFunc("POST /workflows/{id}/test", c.signedIn(c.testRun))

	// Executions

	// Settings

	mux.HandleFunc("/", c.notFound)
}

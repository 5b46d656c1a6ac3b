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
	mux.HandleFunc("GET /topics", c.signedIn(c.topicsList))
	mux.HandleFunc("GET /topics/new", c.signedIn(c.topicNew))
	mux.HandleFunc("POST /topics", c.signedIn(c.topicCreate))
	mux.HandleFunc("GET /topics/{id}", c.signedIn(c.topicShow))
	mux.HandleFunc("POST /topics/{id}/status", c.signedIn(c.topicStatus))
	mux.HandleFunc("POST /topics/{id}/name", c.signedIn(c.topicRename))
	mux.HandleFunc("GET /topics/{id}/stop", c.signedIn(c.topicConfirmStop))
	mux.HandleFunc("GET /topics/{id}/delete", c.signedIn(c.topicConfirmDelete))
	mux.HandleFunc("POST /topics/{id}/delete", c.signedIn(c.topicDelete))
	mux.HandleFunc("GET /topics/{id}/engagers", c.signedIn(c.topicEngagers))
	mux.HandleFunc("GET /topics/{id}/engagers.csv", c.signedIn(c.topicEngagersCSV))
	mux.HandleFunc("GET /topics/{id}/posts/{post_id}", c.signedIn(c.topicPostEngagers))

	// Leads

	// Workflows

	// Executions

	// Settings

	mux.HandleFunc("/", c.notFound)
}

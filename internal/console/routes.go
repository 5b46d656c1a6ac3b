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
	mux.HandleFunc("GET /leads", c.signedIn(c.mappingPage))
	mux.HandleFunc("GET /leads.csv", c.signedIn(c.mappingCSV))
	mux.HandleFunc("GET /leads/creators", c.signedIn(c.creatorsPage))
	mux.HandleFunc("GET /leads/creators.csv", c.signedIn(c.creatorsCSV))

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
	mux.HandleFunc("GET /executions", c.signedIn(c.executions))
	mux.HandleFunc("GET /workflows/{id}/executions/{runId}", c.signedIn(c.execution))
	mux.HandleFunc("POST /workflows/{id}/executions/{runId}/rerun", c.signedIn(c.rerunExecution))
	mux.HandleFunc("POST /workflows/{id}/executions/{runId}/cancel", c.signedIn(c.cancelExecution))

	// Settings
	mux.HandleFunc("GET /settings", c.signedIn(c.settingsAccount))
	mux.HandleFunc("GET /settings/keys", c.signedIn(c.settingsKeys))
	mux.HandleFunc("POST /settings/keys", c.signedIn(c.createKey))
	mux.HandleFunc("GET /settings/keys/{id}/revoke", c.signedIn(c.confirmRevokeKey))
	mux.HandleFunc("POST /settings/keys/{id}/revoke", c.signedIn(c.revokeKey))
	mux.HandleFunc("GET /settings/secrets", c.signedIn(c.settingsSecrets))
	mux.HandleFunc("POST /settings/secrets", c.signedIn(c.putSecret))
	mux.HandleFunc("GET /settings/secrets/{name}/delete", c.signedIn(c.confirmDeleteSecret))
	mux.HandleFunc("POST /settings/secrets/{name}/delete", c.signedIn(c.deleteSecret))
	mux.HandleFunc("GET /settings/connections", c.signedIn(c.settingsConnections))
	mux.HandleFunc("GET /settings/connections/{type}", c.signedIn(c.connectForm))
	mux.HandleFunc("POST /settings/connections/{type}", c.signedIn(c.connect))
	mux.HandleFunc("GET /settings/connections/{type}/health", c.signedIn(c.connectionHealth))
	mux.HandleFunc("GET /settings/connections/{type}/disconnect", c.signedIn(c.confirmDisconnect))
	mux.HandleFunc("POST /settings/connections/{type}/disconnect", c.signedIn(c.disconnect))

	mux.HandleFunc("/", c.notFound)
}

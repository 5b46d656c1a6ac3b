package httpapi

import (
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/auth"
)

// access declares what a route needs from the caller.
type access struct {
	public     bool
	permission auth.Permission
	feature    auth.Feature
}

var (
	public  = access{public: true}
	anyKey  = access{}
	withKey = func(p auth.Permission) access { return access{permission: p} }
)

// route fills in what every operation shares: the access declaration (read by
// the auth middleware), the security requirement and the error responses.
func route(method, path, id, tag, summary string, a access, extra ...func(*huma.Operation)) huma.Operation {
	op := huma.Operation{
		OperationID: id, Method: method, Path: path, Summary: summary, Tags: []string{tag},
		Metadata: map[string]any{metaAuth: !a.public},
		Security: noKey(),
	}
	if !a.public {
		op.Security = []map[string][]string{{"apiKey": {}}}
		op.Errors = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusInternalServerError}
		if a.permission != "" {
			op.Metadata[metaPermission] = a.permission
			op.Errors = append(op.Errors, http.StatusForbidden)
		}
		if a.feature != "" {
			op.Metadata[metaFeature] = a.feature
			if a.permission == "" {
				op.Errors = append(op.Errors, http.StatusForbidden)
			}
		}
	}
	for _, f := range extra {
		f(&op)
	}
	return op
}

// routes is the one place where every endpoint is declared.
func (s *Server) routes() {
	api := s.api
	huma.Register(api, route(http.MethodGet, "/healthz", "healthz", "Operations", "Liveness: the process is up", public), s.handleHealthz)
	huma.Register(api, route(http.MethodGet, "/readyz", "readyz", "Operations", "Readiness: the database and the pronet provider answer", public, alsoErrors(http.StatusServiceUnavailable), described(readyzDescription)), s.handleReadyz)

	// Live pronet lookups.
	huma.Register(api, route(http.MethodPost, "/v1/profile/posts", "profile-posts", "Live lookups", "Recent posts of a pronet profile (1 credit per post)",
		access{permission: auth.PermTrackProfilePosts, feature: auth.FeatureProfilePosts}, alsoErrors(http.StatusNotFound, http.StatusBadGateway)), s.handleProfilePosts)
	huma.Register(api, route(http.MethodPost, "/v1/company/posts", "company-posts", "Live lookups", "Recent posts of a pronet company page (1 credit per post)",
		withKey(auth.PermTrackCompanyPosts), alsoErrors(http.StatusNotFound, http.StatusBadGateway)), s.handleCompanyPosts)
	huma.Register(api, route(http.MethodPost, "/v1/company/comments", "company-comments", "Live lookups", "Comments of a pronet post (1 credit per comment)",
		withKey(auth.PermTrackCompanyComment), alsoErrors(http.StatusNotFound, http.StatusBadGateway)), s.handleCompanyComments)
	huma.Register(api, route(http.MethodPost, "/v1/profile/enrich", "profile-enrich", "Live lookups", "Enriched pronet profile (1 credit when found)",
		withKey(auth.PermEnrichProfile), alsoErrors(http.StatusNotFound)), s.handleProfileEnrich)
	huma.Register(api, route(http.MethodPost, "/v1/company/enrich", "company-enrich", "Live lookups", "Enriched company, from its pronet page or website (1 credit when found)",
		withKey(auth.PermEnrichCompany), alsoErrors(http.StatusNotFound, http.StatusBadGateway)), s.handleCompanyEnrich)
	huma.Register(api, route(http.MethodPost, "/v1/post/by-url", "post-by-url", "Live lookups", "One pronet post by its URL, with its counts (1 credit)",
		withKey(auth.PermTrackCompanyPosts), alsoErrors(http.StatusNotFound, http.StatusBadGateway)), s.handlePostByURL)
	huma.Register(api, route(http.MethodPost, "/v1/post/comments", "post-comments", "Live lookups", "Comments of a pronet post, a page at a time (1 credit per comment)",
		withKey(auth.PermTrackCompanyComment), alsoErrors(http.StatusNotFound, http.StatusBadGateway)), s.handlePostComments)
	huma.Register(api, route(http.MethodPost, "/v1/post/engagements", "post-engagements", "Live lookups", "Reactions to a pronet post, a page at a time (1 credit per reaction)",
		withKey(auth.PermTrackCompanyComment), alsoErrors(http.StatusNotFound, http.StatusBadGateway)), s.handlePostReactions)

	// Microblog saved searches.
	read, write := withKey(auth.PermSearchesRead), withKey(auth.PermSearchesWrite)
	registerNamed(api, route(http.MethodPost, "/v1/searches/microblog/posts", "create-microblog-posts-search", "Searches", "Create a keyword search (1 credit)", write, created, alsoErrors(http.StatusForbidden, http.StatusConflict)), s.handleCreatePostsSearch)
	registerNamed(api, route(http.MethodPost, "/v1/searches/microblog/profile", "create-microblog-profile-search", "Searches", "Create a profile monitor (1 credit)", write, created, alsoErrors(http.StatusForbidden, http.StatusConflict)), s.handleCreateProfileSearch)
	registerNamed(api, route(http.MethodPost, "/v1/searches/microblog/posts/preview", "preview-microblog-posts-search", "Searches", "Preview a keyword search without creating it (free)", read, alsoErrors(http.StatusBadGateway)), s.handlePreviewPosts)
	registerNamed(api, route(http.MethodPost, "/v1/searches/microblog/profile/preview", "preview-microblog-profile-search", "Searches", "Preview a profile monitor without creating it (free)", read, alsoErrors(http.StatusNotFound, http.StatusBadGateway)), s.handlePreviewProfile)
	// Pronet saved searches: the same management routes below serve them.
	// registerNamed also answers each at the hosted API's path (names.go).
	registerNamed(api, route(http.MethodPost, "/v1/searches/pronet/posts", "create-pronet-posts-search", "Searches", "Create a pronet keyword or mention search (1 credit)", write, created, alsoErrors(http.StatusForbidden, http.StatusConflict)), s.handleCreatePronetPostsSearch)
	registerNamed(api, route(http.MethodPost, "/v1/searches/pronet/profile", "create-pronet-profile-search", "Searches", "Create a pronet profile monitor (1 credit)", write, created, alsoErrors(http.StatusForbidden, http.StatusConflict)), s.handleCreatePronetProfileSearch)
	registerNamed(api, route(http.MethodPost, "/v1/searches/pronet/posts/preview", "preview-pronet-posts-search", "Searches", "Preview a pronet keyword search without creating it (free)", read, alsoErrors(http.StatusUnprocessableEntity, http.StatusBadGateway)), s.handlePreviewPronetPosts)
	registerNamed(api, route(http.MethodPost, "/v1/searches/pronet/profile/preview", "preview-pronet-profile-search", "Searches", "Preview a pronet profile monitor without creating it (free)", read, alsoErrors(http.StatusUnprocessableEntity, http.StatusNotFound, http.StatusBadGateway)), s.handlePreviewPronetProfile)
	huma.Register(api, route(http.MethodGet, "/v1/searches", "list-searches", "Searches", "List saved searches", read), s.handleListSearches)
	huma.Register(api, route(http.MethodGet, "/v1/searches/{id}", "get-search", "Searches", "Get a saved search with its stats", read, alsoErrors(http.StatusNotFound)), s.handleGetSearch)
	huma.Register(api, route(http.MethodPatch, "/v1/searches/{id}", "update-search", "Searches", "Update a saved search (partial)", write, alsoErrors(http.StatusNotFound)), s.handlePatchSearch)
	huma.Register(api, route(http.MethodDelete, "/v1/searches/{id}", "delete-search", "Searches", "Delete a saved search; it stops at once", write, alsoErrors(http.StatusNotFound)), s.handleDeleteSearch)
	huma.Register(api, route(http.MethodGet, "/v1/searches/{id}/results", "list-search-results", "Searches", "Results of a saved search, newest first, filtered by author; JSON pages or a CSV export", read, alsoErrors(http.StatusNotFound), csvOrJSON(api, resultsBody{}, "SearchResults")), s.handleSearchResults)
	huma.Register(api, route(http.MethodGet, "/v1/searches/{id}/deliveries", "list-search-deliveries", "Searches", "Webhook deliveries of a saved search's new results, newest first", read, alsoErrors(http.StatusNotFound)), s.handleListDeliveries)
	huma.Register(api, route(http.MethodPost, "/v1/searches/{id}/run", "run-search", "Searches", "Run a saved search now", write, alsoErrors(http.StatusUnprocessableEntity, http.StatusNotFound, http.StatusConflict, http.StatusBadGateway)), s.handleRunSearch)

	// Topics.
	topicsRead := access{permission: auth.PermTopicsRead, feature: auth.FeatureTopics}
	topicsWrite := access{permission: auth.PermTopicsWrite, feature: auth.FeatureTopics}
	huma.Register(api, route(http.MethodPost, "/v1/topics", "create-topic", "Topics", "Create a topic monitor (free; collected posts and engagements cost 1 credit each)", topicsWrite, created), s.handleCreateTopic)
	huma.Register(api, route(http.MethodGet, "/v1/topics", "list-topics", "Topics", "List topic monitors", topicsRead), s.handleListTopics)
	huma.Register(api, route(http.MethodGet, "/v1/topics/{id}", "get-topic", "Topics", "Get a topic monitor", topicsRead, alsoErrors(http.StatusNotFound)), s.handleGetTopic)
	huma.Register(api, route(http.MethodPatch, "/v1/topics/{id}", "update-topic", "Topics", "Rename, pause, resume or stop a topic", topicsWrite, alsoErrors(http.StatusNotFound, http.StatusConflict)), s.handlePatchTopic)
	huma.Register(api, route(http.MethodDelete, "/v1/topics/{id}", "delete-topic", "Topics", "Delete a topic; it stops at once", topicsWrite, alsoErrors(http.StatusNotFound)), s.handleDeleteTopic)
	huma.Register(api, route(http.MethodGet, "/v1/topics/{id}/posts", "list-topic-posts", "Topics", "Posts linked to a topic, newest link first", topicsRead, alsoErrors(http.StatusNotFound)), s.handleTopicPosts)
	huma.Register(api, route(http.MethodGet, "/v1/topics/{id}/engagements", "list-topic-engagements", "Topics", "People who engaged with a topic's posts, one per person, newest first; JSON pages or a CSV export", topicsRead, alsoErrors(http.StatusNotFound), csvOrJSON(api, engagersBody{}, "TopicEngagers")), s.handleTopicEngagers)
	huma.Register(api, route(http.MethodGet, "/v1/topics/{id}/posts/{post_id}/engagements", "list-topic-post-engagements", "Topics", "Engagements a topic keeps on one of its posts, newest first", topicsRead, alsoErrors(http.StatusNotFound)), s.handlePostEngagements)
	huma.Register(api, route(http.MethodGet, "/v1/topics/{id}/credits-summary", "topic-credits-summary", "Topics", "Credits a topic consumed in a period", topicsRead, alsoErrors(http.StatusNotFound)), s.handleTopicCreditsSummary)

	// Discovery over the engagement data topics collect.
	huma.Register(api, route(http.MethodPost, "/v1/social/mapping", "social-mapping", "Discovery", "People who engaged with posts about keywords (1 credit per result)",
		access{permission: auth.PermSocialMappingRead, feature: auth.FeatureSocialMapping}, alsoErrors(http.StatusUnprocessableEntity)), s.handleSocialMapping)
	huma.Register(api, route(http.MethodPost, "/v1/discover/creators", "discover-creators", "Discovery", "People who posted about keywords (1 credit per result)",
		withKey(auth.PermDiscoverCreators), alsoErrors(http.StatusUnprocessableEntity)), s.handleDiscoverCreators)

	// Workflows and the secrets their actions use.
	huma.Register(api, route(http.MethodGet, "/v1/workflows/actions", "list-workflow-actions", "Workflows", "The action catalogue: what each action kind takes, gives and costs", anyKey), s.handleActionCatalogue)
	huma.Register(api, route(http.MethodPost, "/v1/workflows", "create-workflow", "Workflows", "Create a workflow (validated; DRAFT unless status says otherwise); the key must carry what its steps' endpoints need", anyKey, created, alsoErrors(http.StatusForbidden)), s.handleCreateWorkflow)
	huma.Register(api, route(http.MethodGet, "/v1/workflows", "list-workflows", "Workflows", "List workflows, newest first", anyKey), s.handleListWorkflows)
	huma.Register(api, route(http.MethodGet, "/v1/workflows/{id}", "get-workflow", "Workflows", "Get a workflow", anyKey, alsoErrors(http.StatusNotFound)), s.handleGetWorkflow)
	huma.Register(api, route(http.MethodPatch, "/v1/workflows/{id}", "update-workflow", "Workflows", "Update a workflow (partial); status PUBLISHED promotes its draft; saving, publishing or enabling needs what its steps' endpoints need", anyKey, alsoErrors(http.StatusForbidden, http.StatusNotFound)), s.handlePatchWorkflow)
	huma.Register(api, route(http.MethodDelete, "/v1/workflows/{id}", "delete-workflow", "Workflows", "Delete a workflow; its triggers stop at once", anyKey, alsoErrors(http.StatusNotFound)), s.handleDeleteWorkflow)
	huma.Register(api, route(http.MethodGet, "/v1/workflows/{id}/draft", "get-workflow-draft", "Workflows", "Get a workflow's draft (404 when none)", anyKey, alsoErrors(http.StatusNotFound)), s.handleGetDraft)
	huma.Register(api, route(http.MethodPut, "/v1/workflows/{id}/draft", "upsert-workflow-draft", "Workflows", "Create or replace a workflow's draft; the key must carry what its steps' endpoints need", anyKey, alsoErrors(http.StatusForbidden, http.StatusNotFound)), s.handlePutDraft)
	huma.Register(api, route(http.MethodDelete, "/v1/workflows/{id}/draft", "delete-workflow-draft", "Workflows", "Discard a workflow's draft", anyKey, alsoErrors(http.StatusNotFound)), s.handleDeleteDraft)
	huma.Register(api, route(http.MethodPost, "/v1/workflows/{id}/test", "test-workflow", "Workflows", "Start a test run (free; executed actions cost what their endpoints cost, mocked ones nothing); the key must carry what the unmocked steps' endpoints need", anyKey, alsoErrors(http.StatusForbidden, http.StatusNotFound)), s.handleTestWorkflow)
	huma.Register(api, route(http.MethodGet, "/v1/workflows/{id}/executions", "list-workflow-executions", "Workflows", "A workflow's executions, newest first, without steps", anyKey, alsoErrors(http.StatusNotFound)), s.handleListExecutions)
	huma.Register(api, route(http.MethodGet, "/v1/workflows/{id}/executions/{runId}", "get-workflow-execution", "Workflows", "One execution with its steps", anyKey, alsoErrors(http.StatusNotFound)), s.handleGetExecution)
	huma.Register(api, route(http.MethodPost, "/v1/workflows/{id}/executions/{runId}/rerun", "rerun-workflow-execution", "Workflows", "Rerun a failed execution from its failed step; the key must carry what its steps' endpoints need", anyKey, created, alsoErrors(http.StatusForbidden, http.StatusNotFound, http.StatusConflict)), s.handleRerunExecution)
	huma.Register(api, route(http.MethodPost, "/v1/workflows/{id}/executions/{runId}/cancel", "cancel-workflow-execution", "Workflows", "Cancel a running execution", anyKey, alsoErrors(http.StatusNotFound, http.StatusConflict)), s.handleCancelExecution)
	huma.Register(api, route(http.MethodPost, hooksPath+"{token}", "webhook", "Workflows", "Start an execution of a webhook-triggered workflow (no API key; the token is the secret)", public,
		alsoErrors(http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusConflict, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge),
		bodyLimit(s.cfg.WebhookMaxBody), func(op *huma.Operation) { op.DefaultStatus, op.SkipValidateBody = http.StatusAccepted, true },
		alsoAnswers(http.StatusOK, "With wait=true: the execution ended (or still runs after 30 s); data has its status and last output."),
		anyJSONBody("The event, any JSON: an object's members are the trigger payload; any other value is its body member. The signature covers these exact bytes.")), s.handleHook)
	// The hosted API's catalogues, publishing with versions, execution variables.
	huma.Register(api, route(http.MethodGet, "/v1/workflows/triggers", "list-workflow-triggers", "Workflows", "The trigger catalogue: what each trigger kind takes and the payload it gives (trigger.<field> in templates)", anyKey), s.handleTriggerCatalogue)
	huma.Register(api, route(http.MethodGet, "/v1/workflows/examples", "list-workflow-examples", "Workflows", "Ready workflows to start from, at least one per trigger kind; placeholders such as TOPIC_ID are the caller's to fill", anyKey), s.handleWorkflowExamples)
	huma.Register(api, route(http.MethodPost, "/v1/workflows/{id}/publish", "publish-workflow", "Workflows", "Publish the draft (or the live definition when none) as the next numbered version, with its change summary; 409 when the draft changed since expected_draft_last_modified", anyKey, alsoErrors(http.StatusForbidden, http.StatusNotFound, http.StatusConflict)), s.handlePublishWorkflow)
	huma.Register(api, route(http.MethodGet, "/v1/workflows/{id}/versions", "list-workflow-versions", "Workflows", "A workflow's versions, newest first: each live definition with its number and change summary", anyKey, alsoErrors(http.StatusNotFound)), s.handleListVersions)
	huma.Register(api, route(http.MethodPost, "/v1/workflows/{id}/backfill", "backfill-workflow", "Workflows", "Run a published new-post or engagement workflow over the events its source stored before (a window and a limit; dry_run shows the count and credits first), once per event, keyed as live events so none fires twice; the key must carry what its steps' endpoints need", anyKey, backfillAnswers, alsoErrors(http.StatusForbidden, http.StatusNotFound, http.StatusConflict)), s.handleBackfill)
	huma.Register(api, route(http.MethodGet, "/v1/workflows/{id}/executions/{runId}/variables", "get-workflow-execution-variables", "Workflows", "Each step's resolved input and output of an execution, by step key, and where it halted", anyKey, alsoErrors(http.StatusNotFound)), s.handleExecutionVariables)
	huma.Register(api, route(http.MethodPost, "/v1/secrets", "put-secret", "Secrets", "Create or replace a secret (201 when new, 200 when replaced); values are write-only", withKey(auth.PermSecretsWrite), created,
		alsoAnswers(http.StatusOK, "The secret existed and was replaced.")), s.handlePutSecret)
	huma.Register(api, route(http.MethodGet, "/v1/secrets", "list-secrets", "Secrets", "List secrets by name (never their values)", withKey(auth.PermSecretsRead)), s.handleListSecrets)
	huma.Register(api, route(http.MethodDelete, "/v1/secrets/{name}", "delete-secret", "Secrets", "Delete a secret", withKey(auth.PermSecretsWrite), alsoErrors(http.StatusNotFound)), s.handleDeleteSecret)

	// Integrations: the account's connections to outside services, guarded
	// as secrets are (docs/decisions.md, "Integrations: connections").
	huma.Register(api, route(http.MethodGet, "/v1/integrations", "list-integrations", "Integrations", "Every known integration type, connected or not (never credentials)", withKey(auth.PermSecretsRead)), s.handleListIntegrations)
	huma.Register(api, route(http.MethodPost, "/v1/integrations/{type}", "put-integration", "Integrations", "Connect a service (201 when new, 200 when replaced); credentials are write-only", withKey(auth.PermSecretsWrite), created,
		alsoAnswers(http.StatusOK, "The connection existed and was replaced."), alsoErrors(http.StatusNotFound)), s.handlePutIntegration)
	huma.Register(api, route(http.MethodGet, "/v1/integrations/{type}/health", "integration-health", "Integrations", "Probe a connection live: ok, error (with the service's reason) or not_connected", withKey(auth.PermSecretsRead), alsoErrors(http.StatusNotFound)), s.handleIntegrationHealth)
	huma.Register(api, route(http.MethodDelete, "/v1/integrations/{type}", "delete-integration", "Integrations", "Disconnect a service", withKey(auth.PermSecretsWrite), alsoErrors(http.StatusNotFound)), s.handleDeleteIntegration)
	// Lookups that build workflows, answered live through the account's connection.
	readsConn := withKey(auth.PermSecretsRead)
	huma.Register(api, route(http.MethodGet, "/v1/integrations/slack/channels", "slack-channels", "Integrations", "Slack channels the connected workspace has", readsConn, lookupErrors()), lookup[slackChannelsInput](s, "slack", "channels"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/slack/users", "slack-users", "Integrations", "Slack users of the connected workspace", readsConn, lookupErrors()), lookup[lookupSearchInput](s, "slack", "users"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/{type}/crm-fields", "crm-fields", "Integrations", "A connected CRM's fields of contacts and companies", readsConn, lookupErrors()), lookup[lookupByType](s, "", "crm-fields"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/{type}/crm-field-options", "crm-field-options", "Integrations", "The options of a connected CRM's enumeration field", readsConn, lookupErrors()), lookup[crmFieldOptionsInput](s, "", "crm-field-options"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/{type}/campaigns", "outreach-campaigns", "Integrations", "A connected outreach tool's campaigns (lists, on HeyReach)", readsConn, lookupErrors()), lookup[lookupByType](s, "", "campaigns"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/linear/teams", "linear-teams", "Integrations", "Teams of the connected Linear workspace", readsConn, lookupErrors()), lookup[noParams](s, "linear", "teams"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/linear/users", "linear-users", "Integrations", "Users of the connected Linear workspace", readsConn, lookupErrors()), lookup[linearUsersInput](s, "linear", "users"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/linear/states", "linear-states", "Integrations", "Workflow states of a Linear team", readsConn, lookupErrors()), lookup[linearStatesInput](s, "linear", "states"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/notion/databases", "notion-databases", "Integrations", "Notion databases shared with the connection", readsConn, lookupErrors()), lookup[notionDatabasesInput](s, "notion", "databases"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/notion/databases/{database_id}/schema", "notion-database-schema", "Integrations", "A Notion database's properties", readsConn, lookupErrors()), lookup[notionSchemaInput](s, "notion", "schema"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/airtable/bases", "airtable-bases", "Integrations", "Airtable bases the connection may use", readsConn, lookupErrors()), lookup[noParams](s, "airtable", "bases"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/airtable/bases/{base_id}/tables", "airtable-tables", "Integrations", "An Airtable base's tables", readsConn, lookupErrors()), lookup[airtableTablesInput](s, "airtable", "tables"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/airtable/fields", "airtable-fields", "Integrations", "An Airtable table's fields", readsConn, lookupErrors()), lookup[airtableFieldsInput](s, "airtable", "fields"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/google-sheets/documents", "google-sheets-documents", "Integrations", "Spreadsheets shared with the connection's service account", readsConn, lookupErrors()), lookup[noParams](s, "google_sheets", "documents"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/google-sheets/documents/{document_id}/sheets", "google-sheets-sheets", "Integrations", "A spreadsheet's sheets", readsConn, lookupErrors()), lookup[sheetsOfDocumentInput](s, "google_sheets", "sheets"))
	huma.Register(api, route(http.MethodGet, "/v1/integrations/google-sheets/columns", "google-sheets-columns", "Integrations", "A sheet's columns (its header row)", readsConn, lookupErrors()), lookup[sheetColumnsInput](s, "google_sheets", "columns"))

	huma.Register(api, route(http.MethodGet, "/v1/usage", "get-usage", "Usage", "Credits, monitors and results for a period", anyKey), s.handleUsage)

	// The hosted API's account and credit endpoints (account.go).
	huma.Register(api, route(http.MethodGet, "/v1/account", "get-account", "Usage", "The calling key and its account: permissions, plan, rate limit", anyKey), s.handleAccount)
	huma.Register(api, route(http.MethodGet, "/v1/credits/balance", "get-credit-balance", "Usage", "Credits of the current billing period: allocation, used, left", anyKey), s.handleCreditBalance)
	huma.Register(api, route(http.MethodGet, "/v1/credits/usage", "list-credit-usage", "Usage", "The credit ledger: each spend of the last days, newest first", anyKey), s.handleCreditUsage)
	huma.Register(api, route(http.MethodGet, "/v1/credits/breakdown", "get-credit-breakdown", "Usage", "Credits of the last days per feature, the largest first", anyKey), s.handleCreditBreakdown)
	huma.Register(api, route(http.MethodGet, "/v1/searches/limits", "get-search-limits", "Searches", "The saved-search quota of the account's plan, and what is used of it", read), s.handleSearchLimits)
}

// created makes an operation answer 201.
func created(op *huma.Operation) { op.DefaultStatus = http.StatusCreated }

func alsoErrors(codes ...int) func(*huma.Operation) {
	return func(op *huma.Operation) {
		op.Errors = append(op.Errors, codes...)
		if slices.Contains(codes, http.StatusUnprocessableEntity) {
			op.Metadata[metaDeclares422] = true
		}
	}
}

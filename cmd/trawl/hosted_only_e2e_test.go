package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// hostedOnlyCalls drives the endpoints the hosted API has beside the spec
// (account, credits, search limits, the workflow catalogue, publishing,
// variables, company enrichment, post lookups, search deliveries) as its
// client calls them, on the server TestHostedClientDropIn started: ids
// holds what its table created ("a workflow", "twitter keyword monitor").
func hostedOnlyCalls(t *testing.T, c *client.Client, ids map[string]string) {
	company := sandbox.New(sandbox.Config{Seed: 1, Now: time.Now}).World().Companies()[5]
	post := hostedPostWithEngagement(t, c, company.URL())
	calls := []hostedCall{
		{name: "account", method: "GET", path: "/v1/account", status: 200, want: map[string]any{"data.test_mode": true},
			has: []string{"data.user_id", "data.permissions", "data.subscription", "data.rate_limit.tier", "data.rate_limit.limit", "data.rate_limit.window_seconds"}},
		{name: "credit balance", method: "GET", path: "/v1/credits/balance", status: 200,
			has: []string{"data.balance", "data.used", "data.limit", "data.remaining", "data.next_reset"}},
		{name: "credit ledger", method: "GET", path: "/v1/credits/usage?days=30&limit=20&offset=0", status: 200,
			has: []string{"data.0.id", "data.0.credits", "data.0.action", "pagination.has_more", "pagination.total", "pagination.limit", "pagination.offset"}},
		{name: "credits by feature", method: "GET", path: "/v1/credits/breakdown?days=30", status: 200,
			has: []string{"data.0.feature", "data.0.total_credits", "data.0.count"}},
		{name: "monitor quota", method: "GET", path: "/v1/searches/limits", status: 200,
			has: []string{"data.limit", "data.unlimited", "data.used", "data.remaining"}},
		{name: "trigger catalogue", method: "GET", path: "/v1/workflows/triggers", status: 200,
			has: []string{"data.items.0.kind", "data.items.0.name", "data.items.0.inputs", "data.total"}},
		{name: "examples", method: "GET", path: "/v1/workflows/examples", status: 200,
			has: []string{"data.items.0.name", "data.items.0.category", "data.items.0.workflow", "data.total"}},
		{name: "save a draft", method: "PUT", path: "/v1/workflows/{a workflow}/draft",
			body:   `{"name": "Hooked", "workflow": {"trigger": {"kind": "workflows/webhook"}, "actions": [{"id": "keep", "kind": "builtin:set", "inputs": {"values": {"v": "2"}}}], "edges": [{"from": "$source", "to": "keep"}]}}`,
			status: 200, has: []string{"data.workflow_id", "data.last_modified"}},
		{name: "publish", method: "POST", path: "/v1/workflows/{a workflow}/publish", body: `{"change_summary": "from the hosted client"}`,
			status: 200, has: []string{"data.version_id", "data.version_number", "data.published_at"}},
		{name: "test run", method: "POST", path: "/v1/workflows/{a workflow}/test", body: `{}`,
			status: 200, has: []string{"data.test_run_id", "data.workflow_id", "data.trigger_type"}},
		{name: "monitor deliveries", method: "GET", path: "/v1/searches/{twitter keyword monitor}/deliveries", status: 200, has: []string{"data"}},
		{name: "company enrich", method: "POST", path: "/v1/company/enrich", body: `{"companyUrl": "` + company.URL() + `"}`,
			status: 200, has: []string{"data.name", "data.domain", "data.technologies", "data.linkedin_url", "data.linkedin_company_id"}},
		{name: "post by url", method: "POST", path: "/v1/post/by-url", body: `{"postUrl": "` + post.PostURL + `"}`,
			status: 200, has: []string{"data.urn", "data.postUrl", "data.postedAt", "data.counts", "data.author"}},
		{name: "post comments", method: "POST", path: "/v1/post/comments", body: `{"postUrn": "` + post.URN + `", "page": 1, "limit": 20}`,
			status: 200, has: []string{"data.comments", "data.total", "data.totalPage", "data.currentPage"}},
		{name: "post reactions", method: "POST", path: "/v1/post/engagements", body: `{"postUrl": "` + post.PostURL + `", "page": 1, "limit": 20}`,
			status: 200, has: []string{"data.currentPage", "data.items", "data.total", "data.totalPages"}},
	}
	runHostedCalls(t, c, ids, calls)
	r := hostedDo(t, c, "GET", "/v1/workflows/"+ids["a workflow"]+"/executions/"+ids["test run"]+"/variables", "")
	checkHostedAnswer(t, hostedCall{name: "step variables", status: 200, has: []string{"data.run_id", "data.status", "data.steps"}}, r)
}

// hostedPostWithEngagement is a pronet post of the company page with
// comments and reactions, for the post lookups.
func hostedPostWithEngagement(t *testing.T, c *client.Client, companyURL string) (p struct {
	URN       string `json:"urn"`
	PostURL   string `json:"postUrl"`
	Comments  int    `json:"commentsCount"`
	Reactions int    `json:"totalReactionCount"`
}) {
	t.Helper()
	r := hostedDo(t, c, "POST", "/v1/company/posts", `{"companyUrl": "`+companyURL+`"}`)
	var posts struct {
		Data []json.RawMessage `json:"data"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &posts) != nil {
		t.Fatalf("company posts = %d %.300s", r.Status, r.Body)
	}
	for _, raw := range posts.Data {
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		if p.Comments > 0 && p.Reactions > 0 {
			return p
		}
	}
	t.Fatalf("no post of %s with comments and reactions among %d", companyURL, len(posts.Data))
	return p
}

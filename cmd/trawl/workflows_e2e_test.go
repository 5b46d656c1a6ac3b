package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// End-to-end tests of workflow definitions, drafts, publishing, the action
// catalogue and secrets.

type workflowView struct {
	ID                  string          `json:"id"`
	Name                string          `json:"name"`
	Description         string          `json:"description"`
	Workflow            json.RawMessage `json:"workflow"`
	Enabled             bool            `json:"enabled"`
	Status              string          `json:"status"`
	SocialSavedSearchID *string         `json:"social_saved_search_id"`
	Version             int64           `json:"version"`
	HasDraft            bool            `json:"has_draft"`
	WebhookURL          *string         `json:"webhook_url"`
	WebhookSecret       *string         `json:"webhook_secret"`
	RequiredPermissions []string        `json:"required_permissions"`
}

type draftView struct {
	ID           string          `json:"id"`
	WorkflowID   string          `json:"workflow_id"`
	Name         string          `json:"name"`
	Workflow     json.RawMessage `json:"workflow"`
	IsSynced     bool            `json:"is_synced"`
	Created      string          `json:"created"`
	LastModified string          `json:"last_modified"`
}

func getDraft(t *testing.T, c *client.Client, workflowID string) draftView {
	t.Helper()
	var d draftView
	if err := mustDo(t, c, http.MethodGet, "/v1/workflows/"+workflowID+"/draft", nil, 200).Data(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

func createWorkflow(t *testing.T, c *client.Client, body map[string]any) workflowView {
	t.Helper()
	var w workflowView
	if err := mustDo(t, c, http.MethodPost, "/v1/workflows", body, 201).Data(&w); err != nil {
		t.Fatal(err)
	}
	return w
}

func getWorkflow(t *testing.T, c *client.Client, id string) workflowView {
	t.Helper()
	var w workflowView
	if err := mustDo(t, c, http.MethodGet, "/v1/workflows/"+id, nil, 200).Data(&w); err != nil {
		t.Fatal(err)
	}
	return w
}

// slackFlow is a valid definition: on a new post, tell Slack.
func slackFlow(text string) map[string]any {
	return map[string]any{
		"actions": []any{map[string]any{"id": "notify", "kind": "slack_send_channel_message",
			"inputs": map[string]any{"webhook_url": "SLACK_HOOK", "text": text}}},
		"edges": []any{map[string]any{"from": "$source", "to": "notify"}},
	}
}

const slackValue = "https://hooks.slack.com/services/T000/B000/never-show-this-value"

func TestWorkflowsEndToEnd(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_RATE_LIMIT_CUSTOM": "100000", "TRAWL_RATE_LIMIT_ENTERPRISE": "100000"}))
		c := ts.Client
		mustDo(t, c, http.MethodPost, "/v1/secrets", map[string]any{"name": "SLACK_HOOK", "value": slackValue}, 201)

		t.Run("create, get and the webhook secret shown once", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "Tell Slack", "description": "d", "workflow": slackFlow("New post: {{ trigger.text }}")})
			if w.Status != "DRAFT" || w.Enabled || w.Version != 1 || w.SocialSavedSearchID != nil || w.WebhookURL != nil {
				t.Fatalf("created %+v", w)
			}
			hook := slackFlow("x")
			hook["trigger"] = map[string]any{"kind": "workflows/webhook"}
			h := createWorkflow(t, c, map[string]any{"name": "Hooked", "workflow": hook, "status": "published", "enabled": true})
			if h.Status != "PUBLISHED" || !h.Enabled || h.WebhookURL == nil || !strings.Contains(*h.WebhookURL, "/v1/hooks/") ||
				h.WebhookSecret == nil || !strings.HasPrefix(*h.WebhookSecret, "whsec_") {
				t.Fatalf("webhook workflow %+v", h)
			}
			again := getWorkflow(t, c, h.ID)
			if again.WebhookURL == nil || again.WebhookSecret != nil {
				t.Fatalf("get shows url %v secret %v; want the url and no secret", again.WebhookURL, again.WebhookSecret)
			}
		})

		t.Run("every problem with its pointer", func(t *testing.T) {
			r := do(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "", "workflow": map[string]any{
				"trigger": map[string]any{"kind": "workflows/scheduled-trigger", "inputs": map[string]any{"cron": "61 * * * *", "timezone": "Nowhere/City"}},
				"actions": []any{
					map[string]any{"id": "a", "kind": "http_request", "inputs": map[string]any{"url": "{{ steps.b.output.url }}"}},
					map[string]any{"id": "b", "kind": "builtin:set", "inputs": map[string]any{"values": map[string]any{}}},
					map[string]any{"id": "c", "kind": "no_such_kind"},
					map[string]any{"id": "d", "kind": "builtin:if", "inputs": map[string]any{"condition": true}},
				},
				"edges": []any{
					map[string]any{"from": "$source", "to": "a"},
					map[string]any{"from": "a", "to": "b"},
					map[string]any{"from": "a", "to": "d"},
					map[string]any{"from": "d", "to": "ghost"},
				},
				"column_config": []any{map[string]any{"id": "col", "stepId": "zz", "fieldPath": "x", "label": "X"}},
			}})
			wantError(t, r, 400, "VALIDATION_ERROR", "body.name")
			e := r.Err()
			for _, ptr := range []string{"/name", "/workflow/trigger/inputs/cron", "/workflow/trigger/inputs/timezone",
				"/workflow/actions/0/inputs/url", "/workflow/actions/2/kind", "/workflow/actions/2", "/workflow/actions/3",
				"/workflow/edges/3/to", "/workflow/column_config/0/stepId"} {
				if !e.HasPointer(ptr) {
					t.Errorf("no problem at %s in %s", ptr, r.Body)
				}
			}
			if !e.HasField("body.workflow.actions[0].inputs.url") {
				t.Errorf("details do not name body.workflow.actions[0].inputs.url: %s", r.Body)
			}
		})

		t.Run("schema problems: unknown fields and wrong types", func(t *testing.T) {
			def := slackFlow("x")
			def["actions"].([]any)[0].(map[string]any)["colour"] = "red"
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "x", "workflow": def}), 400, "VALIDATION_ERROR")
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "x", "workflow": map[string]any{"actions": "all", "edges": []any{}}}), 400, "VALIDATION_ERROR")
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "x"}), 400, "VALIDATION_ERROR", "body.workflow")
			many := map[string]any{"actions": []any{}, "edges": []any{}}
			for i := range 101 {
				id := fmt.Sprintf("s%d", i)
				many["actions"] = append(many["actions"].([]any), map[string]any{"id": id, "kind": "builtin:exit"})
				many["edges"] = append(many["edges"].([]any), map[string]any{"from": "$source", "to": id})
			}
			r := do(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "x", "workflow": many})
			wantError(t, r, 400, "VALIDATION_ERROR")
			if !r.Err().HasPointer("/workflow/actions") {
				t.Fatalf("101 actions: %s", r.Body)
			}
			if n := listWorkflows(t, c, "").Total; n != 2 {
				t.Fatalf("refused creations left workflows behind: total %d", n)
			}
		})

		t.Run("drafts, is_synced and publishing", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "Drafted", "workflow": slackFlow("v1")})
			wantError(t, do(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/draft", nil), 404, "NOT_FOUND")

			var d draftView
			if err := mustDo(t, c, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": slackFlow("v1")}, 200).Data(&d); err != nil {
				t.Fatal(err)
			}
			if !d.IsSynced || d.Name != "Drafted" || d.WorkflowID != w.ID {
				t.Fatalf("draft equal to the live workflow: %+v", d)
			}
			if err := mustDo(t, c, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"name": "Drafted 2", "workflow": slackFlow("v2")}, 200).Data(&d); err != nil {
				t.Fatal(err)
			}
			if d.IsSynced {
				t.Fatal("changed draft says is_synced")
			}
			r := do(t, c, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": slackFlow("{{ steps.nope.output }}")})
			wantError(t, r, 400, "VALIDATION_ERROR")
			if !r.Err().HasPointer("/workflow/actions/0/inputs/text") {
				t.Fatalf("invalid draft: %s", r.Body)
			}
			if got := getWorkflow(t, c, w.ID); !got.HasDraft || got.Version != 1 || !strings.Contains(string(got.Workflow), `"v1"`) {
				t.Fatalf("saving a draft changed the live workflow: %+v", got)
			}

			var pub workflowView
			if err := mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"status": "PUBLISHED"}, 200).Data(&pub); err != nil {
				t.Fatal(err)
			}
			if pub.Status != "PUBLISHED" || pub.Name != "Drafted 2" || !strings.Contains(string(pub.Workflow), `"v2"`) || pub.Version != 2 || !pub.HasDraft || pub.Enabled {
				t.Fatalf("published %+v", pub)
			}
			// The draft stays, synced with what went live, until it is edited.
			kept := getDraft(t, c, w.ID)
			if !kept.IsSynced || kept.ID != d.ID || kept.Name != "Drafted 2" || kept.LastModified != d.LastModified || kept.Created != d.Created {
				t.Fatalf("the draft after publishing: %+v (before %+v)", kept, d)
			}
			mustDo(t, c, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": slackFlow("v2 edited")}, 200)
			if got := getDraft(t, c, w.ID); got.IsSynced || got.ID != d.ID {
				t.Fatalf("an edited draft: %+v", got)
			}
			mustDo(t, c, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": slackFlow("v2")}, 200)
			if got := getDraft(t, c, w.ID); !got.IsSynced {
				t.Fatalf("a draft edited back to the live workflow: %+v", got)
			}
			// Editing the live workflow directly unsyncs the draft too.
			mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"description": "edited live"}, 200)
			if got := getDraft(t, c, w.ID); got.IsSynced {
				t.Fatalf("the live workflow changed, the draft says synced: %+v", got)
			}
			// A publish whose PATCH also renames leaves the draft equal to
			// what went live.
			if err := mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"status": "PUBLISHED", "name": "Drafted 3"}, 200).Data(&pub); err != nil {
				t.Fatal(err)
			}
			if got := getDraft(t, c, w.ID); !got.IsSynced || got.Name != "Drafted 3" || pub.Name != "Drafted 3" || pub.Description != "" {
				t.Fatalf("after a renaming publish: %+v, live %+v", got, pub)
			}

			// A draft that has become invalid (its secret is gone) is not
			// published, and nothing changes.
			mustDo(t, c, http.MethodPost, "/v1/secrets", map[string]any{"name": "TEMP", "value": "t"}, 201)
			tmp := slackFlow("v3")
			tmp["actions"].([]any)[0].(map[string]any)["inputs"].(map[string]any)["webhook_url"] = "TEMP"
			mustDo(t, c, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": tmp}, 200)
			mustDo(t, c, http.MethodDelete, "/v1/secrets/TEMP", nil, 200)
			r = do(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"status": "PUBLISHED", "name": "Renamed"})
			wantError(t, r, 400, "VALIDATION_ERROR")
			if !r.Err().HasPointer("/draft/workflow/actions/0/inputs/webhook_url") {
				t.Fatalf("stale draft: %s", r.Body)
			}
			// Each publish made the next version (the renaming one the third).
			if got := getWorkflow(t, c, w.ID); got.Name != "Drafted 3" || got.Version != 3 || !got.HasDraft {
				t.Fatalf("a refused publish changed the workflow: %+v", got)
			}
			mustDo(t, c, http.MethodDelete, "/v1/workflows/"+w.ID+"/draft", nil, 200)
			wantError(t, do(t, c, http.MethodDelete, "/v1/workflows/"+w.ID+"/draft", nil), 404, "NOT_FOUND")
			wantError(t, do(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/draft", nil), 404, "NOT_FOUND")
			if got := getWorkflow(t, c, w.ID); got.HasDraft {
				t.Fatalf("a discarded draft: %+v", got)
			}

			// Discarding the draft right after a publish works.
			mustDo(t, c, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": slackFlow("v4")}, 200)
			mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"status": "PUBLISHED"}, 200)
			var gone struct {
				WorkflowID string `json:"workflow_id"`
				Deleted    bool   `json:"deleted"`
			}
			if err := mustDo(t, c, http.MethodDelete, "/v1/workflows/"+w.ID+"/draft", nil, 200).Data(&gone); err != nil || !gone.Deleted || gone.WorkflowID != w.ID {
				t.Fatalf("discard after publish: %+v %v", gone, err)
			}
			if got := getWorkflow(t, c, w.ID); got.HasDraft || !strings.Contains(string(got.Workflow), `"v4"`) {
				t.Fatalf("after discarding the published draft: %+v", got)
			}
		})

		t.Run("created published, it has a synced draft", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "Live at once", "workflow": slackFlow("x"), "status": "PUBLISHED"})
			if !w.HasDraft {
				t.Fatalf("created published: %+v", w)
			}
			if d := getDraft(t, c, w.ID); !d.IsSynced || d.Name != "Live at once" || d.WorkflowID != w.ID {
				t.Fatalf("its draft %+v", d)
			}
		})

		t.Run("enabled is independent of status", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "Toggle", "workflow": slackFlow("x")})
			var got workflowView
			if err := mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"enabled": true}, 200).Data(&got); err != nil {
				t.Fatal(err)
			}
			if got.Status != "DRAFT" || !got.Enabled {
				t.Fatalf("enable on a draft: %+v", got)
			}
			if err := mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"status": "PUBLISHED"}, 200).Data(&got); err != nil {
				t.Fatal(err)
			}
			// Version 1 is the definition it was created with; the publish made 2.
			if got.Status != "PUBLISHED" || !got.Enabled || got.Version != 2 || !got.HasDraft {
				t.Fatalf("publish without a draft: %+v", got)
			}
			if d := getDraft(t, c, w.ID); !d.IsSynced || d.Name != "Toggle" {
				t.Fatalf("the draft a publish without one leaves: %+v", d)
			}
			if err := mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"enabled": false}, 200).Data(&got); err != nil {
				t.Fatal(err)
			}
			if got.Status != "PUBLISHED" || got.Enabled {
				t.Fatalf("disable: %+v", got)
			}
		})

		t.Run("the saved-search link", func(t *testing.T) {
			s := createSearch(t, c, map[string]any{"name": "s", "keywords": []string{"revops"}})
			w := createWorkflow(t, c, map[string]any{"name": "Linked", "workflow": slackFlow("x"), "search_id": s.ID})
			if w.SocialSavedSearchID == nil || *w.SocialSavedSearchID != s.ID {
				t.Fatalf("link: %+v", w)
			}
			for _, field := range []string{"search_id", "social_saved_search_id"} {
				r := do(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{field: s.ID})
				wantError(t, r, 400, "VALIDATION_ERROR", "body."+field)
				if !strings.Contains(r.Err().Details[0].Message, "delete the workflow and create it again") {
					t.Fatalf("message: %s", r.Body)
				}
			}
			other := newKey(t, ts, newAccount(t, ts, "other-search", "ENTERPRISE", ""), "*")
			os := createSearch(t, other, map[string]any{"name": "theirs", "keywords": []string{"revops"}})
			wantError(t, do(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "x", "workflow": slackFlow("x"), "search_id": os.ID}),
				400, "VALIDATION_ERROR", "body.search_id")
		})

		t.Run("engagement trigger needs the account's topic", func(t *testing.T) {
			tp := createTopic(t, c, map[string]any{"name": "t", "keywords": []string{"revops"}})
			def := slackFlow("{{ trigger.prospect.full_name }}")
			def["trigger"] = map[string]any{"kind": "workflows/engagement", "inputs": map[string]any{"topic_id": tp.ID}}
			createWorkflow(t, c, map[string]any{"name": "Engaged", "workflow": def})

			other := newKey(t, ts, newAccount(t, ts, "other-topic", "ENTERPRISE", ""), "*")
			mustDo(t, other, http.MethodPost, "/v1/secrets", map[string]any{"name": "SLACK_HOOK", "value": "x"}, 201)
			r := do(t, other, http.MethodPost, "/v1/workflows", map[string]any{"name": "x", "workflow": def})
			wantError(t, r, 400, "VALIDATION_ERROR", "body.workflow.trigger.inputs.topic_id")
		})

		t.Run("list paging and status filter", func(t *testing.T) {
			acct := newKey(t, ts, newAccount(t, ts, "lister", "STARTER", ""), "*")
			mustDo(t, acct, http.MethodPost, "/v1/secrets", map[string]any{"name": "SLACK_HOOK", "value": "x"}, 201)
			var made []string
			for i := range 5 {
				status := "DRAFT"
				if i%2 == 0 {
					status = "PUBLISHED"
				}
				made = append(made, createWorkflow(t, acct, map[string]any{"name": fmt.Sprintf("w%d", i), "workflow": slackFlow("x"), "status": status}).ID)
			}
			first := listWorkflows(t, acct, "?limit=2")
			if first.Total != 5 || !first.HasMore || len(first.Items) != 2 || first.Items[0].ID != made[4] || first.Items[1].ID != made[3] {
				t.Fatalf("first page %+v", first)
			}
			last := listWorkflows(t, acct, "?limit=2&offset=4")
			if last.Total != 5 || last.HasMore || len(last.Items) != 1 || last.Items[0].ID != made[0] {
				t.Fatalf("last page %+v", last)
			}
			pub := listWorkflows(t, acct, "?status=PUBLISHED&limit=100")
			if pub.Total != 3 || len(pub.Items) != 3 || slices.ContainsFunc(pub.Items, func(w workflowView) bool { return w.Status != "PUBLISHED" }) {
				t.Fatalf("published filter %+v", pub)
			}
			wantError(t, do(t, acct, http.MethodGet, "/v1/workflows?limit=101", nil), 400, "VALIDATION_ERROR", "query.limit")
			wantError(t, do(t, acct, http.MethodGet, "/v1/workflows?status=LIVE", nil), 400, "VALIDATION_ERROR", "query.status")

			mustDo(t, acct, http.MethodDelete, "/v1/workflows/"+made[4], nil, 200)
			wantError(t, do(t, acct, http.MethodGet, "/v1/workflows/"+made[4], nil), 404, "NOT_FOUND")
			if n := listWorkflows(t, acct, "").Total; n != 4 {
				t.Fatalf("after delete: total %d", n)
			}

			// Another account sees none of them.
			for _, probe := range []struct{ method, path string }{
				{http.MethodGet, "/v1/workflows/" + made[0]}, {http.MethodPatch, "/v1/workflows/" + made[0]},
				{http.MethodDelete, "/v1/workflows/" + made[0]}, {http.MethodGet, "/v1/workflows/" + made[0] + "/draft"},
				{http.MethodPut, "/v1/workflows/" + made[0] + "/draft"}, {http.MethodDelete, "/v1/workflows/" + made[0] + "/draft"},
			} {
				var body any
				switch probe.method {
				case http.MethodPatch:
					body = map[string]any{"name": "mine"}
				case http.MethodPut:
					body = map[string]any{"workflow": map[string]any{"actions": []any{}, "edges": []any{}}}
				}
				wantError(t, do(t, c, probe.method, probe.path, body), 404, "NOT_FOUND")
			}
			if got := getWorkflow(t, acct, made[0]); got.Name != "w0" {
				t.Fatalf("another account changed it: %+v", got)
			}
		})

		t.Run("catalogue", func(t *testing.T) {
			all := catalogue(t, c, "")
			kinds := map[string]catalogueItem{}
			for _, it := range all.Items {
				kinds[it.Kind] = it
				if it.Name == "" || it.Description == "" || it.Category == "" || it.Inputs == nil || it.Outputs == nil {
					t.Errorf("incomplete item %+v", it)
				}
			}
			for _, k := range []string{"builtin:if", "builtin:filter", "builtin:loop", "builtin:delay", "builtin:exit", "builtin:set",
				"http_request", "slack_send_channel_message", "send_email", "person_enrichment", "pronet_get_post_comments",
				"microblog_get_user", "generic_agent"} {
				if _, ok := kinds[k]; !ok {
					t.Errorf("catalogue lacks %s", k)
				}
			}
			if all.Total != len(all.Items) || kinds["person_enrichment"].CreditCost != 1 || kinds["generic_agent"].CreditCost != 1 || kinds["builtin:if"].CreditCost != 0 {
				t.Fatalf("totals or costs: %+v", all.Total)
			}
			for alias, canonical := range map[string]string{"control-flow": "control_flow", "utilities": "utility", "integrations": "integration", "CONTROL_FLOW": "control_flow"} {
				a, b := catalogue(t, c, alias), catalogue(t, c, canonical)
				if a.Total != b.Total || a.Total == 0 && canonical == "control_flow" {
					t.Errorf("%s lists %d, %s lists %d", alias, a.Total, canonical, b.Total)
				}
				for _, it := range b.Items {
					if it.Category != canonical {
						t.Errorf("%s lists %s of %s", canonical, it.Kind, it.Category)
					}
				}
			}
			if n := catalogue(t, c, "control_flow").Total; n != 5 {
				t.Errorf("control_flow lists %d, want 5", n)
			}
			r := do(t, c, http.MethodGet, "/v1/workflows/actions?category=robots", nil)
			wantError(t, r, 400, "VALIDATION_ERROR", "query.category")
			if !strings.Contains(string(r.Body), "control_flow") || !strings.Contains(string(r.Body), "control-flow") {
				t.Fatalf("error does not list the categories: %s", r.Body)
			}
		})

		t.Run("secrets are write-only", func(t *testing.T) {
			r := mustDo(t, c, http.MethodPost, "/v1/secrets", map[string]any{"name": "SLACK_HOOK", "value": slackValue + "-2"}, 200)
			var list struct {
				Items []struct{ Name string } `json:"items"`
				Total int                     `json:"total"`
			}
			lr := mustDo(t, c, http.MethodGet, "/v1/secrets", nil, 200)
			if err := lr.Data(&list); err != nil || list.Total != 1 || list.Items[0].Name != "SLACK_HOOK" {
				t.Fatalf("list %s", lr.Body)
			}
			wantError(t, do(t, c, http.MethodPost, "/v1/secrets", map[string]any{"name": "9bad name", "value": "x"}), 400, "VALIDATION_ERROR", "body.name")
			wantError(t, do(t, c, http.MethodPost, "/v1/secrets", map[string]any{"name": "EMPTY", "value": ""}), 400, "VALIDATION_ERROR", "body.value")
			wantError(t, do(t, c, http.MethodDelete, "/v1/secrets/NOPE", nil), 404, "NOT_FOUND")
			for _, body := range [][]byte{r.Body, lr.Body, []byte(ts.Stderr.String()), []byte(ts.Stdout.String())} {
				if strings.Contains(string(body), "never-show-this-value") {
					t.Fatalf("a secret value appeared: %s", body)
				}
			}
		})
	})
}

type workflowPage struct {
	Items   []workflowView `json:"items"`
	HasMore bool           `json:"has_more"`
	Total   int64          `json:"total"`
}

func listWorkflows(t *testing.T, c *client.Client, query string) workflowPage {
	t.Helper()
	var p workflowPage
	if err := mustDo(t, c, http.MethodGet, "/v1/workflows"+query, nil, 200).Data(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

type catalogueItem struct {
	Kind        string           `json:"kind"`
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Category    string           `json:"category"`
	CreditCost  int64            `json:"creditCost"`
	Inputs      []map[string]any `json:"inputs"`
	Outputs     map[string]any   `json:"outputs"`
}

func catalogue(t *testing.T, c *client.Client, category string) struct {
	Items []catalogueItem `json:"items"`
	Total int             `json:"total"`
} {
	t.Helper()
	var out struct {
		Items []catalogueItem `json:"items"`
		Total int             `json:"total"`
	}
	path := "/v1/workflows/actions"
	if category != "" {
		path += "?category=" + category
	}
	if err := mustDo(t, c, http.MethodGet, path, nil, 200).Data(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

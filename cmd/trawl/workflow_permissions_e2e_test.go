package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
)

// End-to-end tests of what a workflow may do: no more than the key that
// saves, publishes, enables or tests it (docs/decisions.md, "What a
// workflow may do"), at the price of the endpoints its steps stand for.

// leadFlow enriches a profile and reads a post's comments, the two
// steps of issue 33.
const leadFlow = `{"actions":[
 {"id":"who","kind":"person_enrichment","inputs":{"profile_url":"https://www.linkedin.com/in/jane-doe"}},
 {"id":"talk","kind":"pronet_get_post_comments","inputs":{"post_urn":"7263450183458918400"}}],
 "edges":[{"from":"$source","to":"who"},{"from":"who","to":"talk"}]}`

// workflowCount is how many workflows the key's account has.
func workflowCount(t *testing.T, c *client.Client) int64 {
	t.Helper()
	var list struct {
		Total int64 `json:"total"`
	}
	if err := mustDo(t, c, http.MethodGet, "/v1/workflows", nil, 200).Data(&list); err != nil {
		t.Fatal(err)
	}
	return list.Total
}

// wantForbiddenSteps checks a 403 FORBIDDEN whose details name each
// pointer with the permission it lacks.
func wantForbiddenSteps(t *testing.T, r *client.Response, want map[string]string) {
	t.Helper()
	wantError(t, r, 403, "FORBIDDEN")
	var body struct {
		Error struct {
			Details struct {
				Fields []struct {
					Pointer string `json:"pointer"`
					Message string `json:"message"`
				} `json:"fields"`
			} `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Error.Details.Fields) != len(want) {
		t.Fatalf("details %s, want %v", r.Body, want)
	}
	for _, d := range body.Error.Details.Fields {
		if perm, ok := want[d.Pointer]; !ok || !strings.Contains(d.Message, perm) {
			t.Fatalf("detail %+v, want one of %v", d, want)
		}
	}
}

func TestWorkflowCannotDoWhatItsKeyMayNot(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
		ts := topicServer(t, engine, clk)
		acct := newAccount(t, ts, "issue-33", "STARTER", "")
		narrow := newKey(t, ts, acct, "searches:read")
		able := newKey(t, ts, acct, "enrich:profile:read,track:company:comments")
		wantSteps := map[string]string{"/workflow/actions/0": "enrich:profile:read", "/workflow/actions/1": "track:company:comments"}

		t.Run("a searches:read key is refused what its endpoints refuse it", func(t *testing.T) {
			wantError(t, post(t, narrow, "/v1/profile/enrich", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe"}), 403, "FORBIDDEN")
			wantError(t, post(t, narrow, "/v1/company/comments", map[string]any{"postUrn": "7263450183458918400"}), 403, "FORBIDDEN")
			wantForbiddenSteps(t, do(t, narrow, http.MethodPost, "/v1/workflows", map[string]any{"name": "leads", "workflow": json.RawMessage(leadFlow)}), wantSteps)
			if n := workflowCount(t, able); n != 0 {
				t.Fatalf("a refused create stored %d workflows", n)
			}

			w := createWorkflow(t, able, map[string]any{"name": "leads", "workflow": json.RawMessage(`{"actions":[],"edges":[]}`)})
			wantForbiddenSteps(t, do(t, narrow, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": json.RawMessage(leadFlow)}), wantSteps)
			wantError(t, do(t, narrow, http.MethodGet, "/v1/workflows/"+w.ID+"/draft", nil), 404, "NOT_FOUND")
			wantForbiddenSteps(t, do(t, narrow, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"workflow": json.RawMessage(leadFlow)}), wantSteps)

			// What an able key saved, a narrow one may not publish, enable or test.
			mustDo(t, able, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": json.RawMessage(leadFlow)}, 200)
			draftSteps := map[string]string{"/draft/workflow/actions/0": "enrich:profile:read", "/draft/workflow/actions/1": "track:company:comments"}
			wantForbiddenSteps(t, do(t, narrow, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"status": "PUBLISHED", "enabled": true}), draftSteps)
			wantForbiddenSteps(t, do(t, narrow, http.MethodPost, "/v1/workflows/"+w.ID+"/test", map[string]any{}), wantSteps)
			if got := getWorkflow(t, narrow, w.ID); got.Status != "DRAFT" || got.Enabled || !got.HasDraft {
				t.Fatalf("after refusals the workflow is %+v", got)
			}
			var page struct {
				Pagination struct {
					TotalCount int64 `json:"total_count"`
				} `json:"pagination"`
			}
			if err := json.Unmarshal(mustDo(t, narrow, http.MethodGet, "/v1/workflows/"+w.ID+"/executions", nil, 200).Body, &page); err != nil || page.Pagination.TotalCount != 0 {
				t.Fatalf("a refused test run left %d executions", page.Pagination.TotalCount)
			}
			// A mocked step does not run: only what runs is checked.
			mocks := map[string]any{"test_config": map[string]any{"action_mocks": map[string]any{
				"who":  map[string]any{"enabled": true, "output": map[string]any{"prospect": map[string]any{}, "experience": []any{}}},
				"talk": map[string]any{"enabled": true, "output": map[string]any{"comments": []any{}, "count": 0}}}}}
			if x := waitExecution(t, ts, narrow, w.ID, startTest(t, narrow, w.ID, mocks), ended); x.Status != "completed" || ledgerOf(t, narrow, clk.Now()) != 0 {
				t.Fatalf("a fully mocked run %s, spent %d", x.Status, ledgerOf(t, narrow, clk.Now()))
			}
		})

		t.Run("a key with the endpoints' permissions pays what the endpoints charge", func(t *testing.T) {
			w := createWorkflow(t, able, map[string]any{"name": "leads 2", "workflow": json.RawMessage(leadFlow)})
			if got := getWorkflow(t, able, w.ID); !slices.Equal(got.RequiredPermissions, []string{"enrich:profile:read", "track:company:comments"}) {
				t.Fatalf("required_permissions %v", got.RequiredPermissions)
			}
			before := usageOf(t, able)
			x := waitExecution(t, ts, able, w.ID, startTest(t, able, w.ID, map[string]any{}), ended)
			comments, _ := x.Steps[1].Output.(map[string]any)["comments"].([]any)
			if x.Status != "completed" || len(comments) < 2 {
				t.Fatalf("run %s with %d comments: %+v", x.Status, len(comments), x.Steps)
			}
			byWorkflow := usageOf(t, able).Credits.ByFeature[string(credits.WorkflowExecution)] - before.Credits.ByFeature[string(credits.WorkflowExecution)]

			enriched := post(t, able, "/v1/profile/enrich", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe"})
			listed := post(t, able, "/v1/company/comments", map[string]any{"postUrn": "7263450183458918400"})
			if enriched.Status != 200 || listed.Status != 200 {
				t.Fatalf("endpoints answered %d and %d", enriched.Status, listed.Status)
			}
			byEndpoints := spentHeader(enriched) + spentHeader(listed)
			after := usageOf(t, able)
			ledger := after.Credits.ByFeature[string(credits.ProfileEnrich)] + after.Credits.ByFeature[string(credits.CompanyComments)]
			if byWorkflow != int64(1+len(comments)) || byWorkflow != byEndpoints || ledger != byEndpoints {
				t.Fatalf("the run was charged %d for 1 profile and %d comments; the endpoints %d (x-spent-credits), %d (ledger)",
					byWorkflow, len(comments), byEndpoints, ledger)
			}
		})

		t.Run("a balance that cannot pay every comment fails the step and keeps nothing, as the endpoint", func(t *testing.T) {
			poorAcct := newAccount(t, ts, "poor", "STARTER", "5")
			poor := newKey(t, ts, poorAcct, "enrich:profile:read,track:company:comments")
			w := createWorkflow(t, poor, map[string]any{"name": "leads", "workflow": json.RawMessage(leadFlow)})
			x := waitExecution(t, ts, poor, w.ID, startTest(t, poor, w.ID, map[string]any{}), ended)
			talk := x.Steps[1]
			if x.Status != "failed" || x.Steps[0].Status != "completed" || talk.Error == nil || talk.Error.Code != "INSUFFICIENT_CREDITS" || talk.Output != nil {
				t.Fatalf("run %s: %+v", x.Status, x.Steps)
			}
			if spent := ledgerOf(t, poor, clk.Now()); spent != 1 {
				t.Fatalf("spent %d, want the enrichment's 1", spent)
			}
			r := post(t, poor, "/v1/company/comments", map[string]any{"postUrn": "7263450183458918400"})
			if e := r.Err(); e == nil || e.Code != "INSUFFICIENT_CREDITS" {
				t.Fatalf("the endpoint answered %d %s", r.Status, r.Body)
			}
			// A rerun runs the failed step again: the caller's key is checked.
			wantForbiddenSteps(t, do(t, newKey(t, ts, poorAcct, "searches:read"), http.MethodPost, "/v1/workflows/"+w.ID+"/executions/"+x.ID+"/rerun", nil), map[string]string{
				"/workflow/actions/0": "enrich:profile:read", "/workflow/actions/1": "track:company:comments"})
		})

		t.Run("the link to a saved search needs searches:read", func(t *testing.T) {
			var search struct{ ID string }
			if err := mustDo(t, newKey(t, ts, acct, "searches:write"), http.MethodPost, "/v1/searches/microblog/posts",
				map[string]any{"name": "revops", "keywords": []string{"revops"}}, 201).Data(&search); err != nil || search.ID == "" {
				t.Fatalf("search %v %+v", err, search)
			}
			empty := json.RawMessage(`{"actions":[],"edges":[]}`)
			wantForbiddenSteps(t, do(t, able, http.MethodPost, "/v1/workflows", map[string]any{"name": "linked", "search_id": search.ID, "workflow": empty}),
				map[string]string{"/search_id": "searches:read"})
			w := createWorkflow(t, narrow, map[string]any{"name": "linked", "search_id": search.ID, "workflow": empty})
			if !slices.Equal(w.RequiredPermissions, []string{"searches:read"}) {
				t.Fatalf("required_permissions %v", w.RequiredPermissions)
			}
			// A test run's sample is the search's latest result.
			wantForbiddenSteps(t, do(t, able, http.MethodPost, "/v1/workflows/"+w.ID+"/test", map[string]any{}), map[string]string{"/search_id": "searches:read"})
		})

		t.Run("a published workflow keeps running for its account", func(t *testing.T) {
			admin, adminID := newKeyWithID(t, ts, acct, "*")
			def := strings.Replace(leadFlow, `{"actions"`, `{"trigger":{"kind":"workflows/webhook","inputs":{"verify_signature":false}},"actions"`, 1)
			w := createWorkflow(t, admin, map[string]any{"name": "live", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
			// No key stands behind a published workflow: revoking the one
			// that published it stops nothing.
			if out, err := ts.cli(t, "keys", "revoke", adminID); err != nil {
				t.Fatalf("keys revoke: %v\n%s", err, out)
			}
			st, out := postHook(t, ts.HTTP, *w.WebhookURL+"?wait=true", http.Header{}, []byte(`{}`))
			data, _ := out["data"].(map[string]any)
			if st != 200 || data["status"] != "completed" {
				t.Fatalf("webhook run: %d %v", st, out)
			}
			// A narrow key sees what it needs, may rename and disable it, not enable it again.
			if got := getWorkflow(t, narrow, w.ID); !slices.Equal(got.RequiredPermissions, []string{"enrich:profile:read", "track:company:comments"}) {
				t.Fatalf("required_permissions %v", got.RequiredPermissions)
			}
			mustDo(t, narrow, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"name": "live (renamed)", "enabled": false}, 200)
			wantForbiddenSteps(t, do(t, narrow, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"enabled": true}), wantSteps)
		})
	})
}

// newKeyWithID is newKey that also returns the key's id.
func newKeyWithID(t *testing.T, ts *testServer, accountID, perms string) (*client.Client, string) {
	t.Helper()
	out, err := ts.cli(t, "keys", "create", "--account", accountID, "--permissions", perms, "--json")
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, out)
	}
	var key struct{ ID, Key string }
	if err := json.Unmarshal([]byte(out), &key); err != nil || key.Key == "" || key.ID == "" {
		t.Fatalf("keys create printed %q", out)
	}
	return ts.Client.WithKey(key.Key), key.ID
}

func TestSecretsNeedTheirPermissions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		acct := newAccount(t, ts, "secrets", "STARTER", "")
		none := newKey(t, ts, acct, "searches:read,searches:write")
		reader := newKey(t, ts, acct, "secrets:read")
		writer := newKey(t, ts, acct, "secrets:write")
		admin := newKey(t, ts, acct, "*")
		secret := map[string]any{"name": "CRM_TOKEN", "value": "Bearer crm-secret-value"}

		t.Run("routes", func(t *testing.T) {
			for _, c := range []*client.Client{none, reader} {
				wantError(t, do(t, c, http.MethodPost, "/v1/secrets", secret), 403, "FORBIDDEN", "header.x-api-key")
			}
			mustDo(t, writer, http.MethodPost, "/v1/secrets", secret, 201)
			for _, c := range []*client.Client{none, writer} {
				wantError(t, do(t, c, http.MethodGet, "/v1/secrets", nil), 403, "FORBIDDEN", "header.x-api-key")
			}
			for _, c := range []*client.Client{reader, admin} {
				if r := mustDo(t, c, http.MethodGet, "/v1/secrets", nil, 200); !strings.Contains(string(r.Body), "CRM_TOKEN") {
					t.Fatalf("list %s", r.Body)
				}
			}
			for _, c := range []*client.Client{none, reader} {
				wantError(t, do(t, c, http.MethodDelete, "/v1/secrets/CRM_TOKEN", nil), 403, "FORBIDDEN")
			}
			mustDo(t, admin, http.MethodPost, "/v1/secrets", map[string]any{"name": "TEMP", "value": "t"}, 201)
			mustDo(t, writer, http.MethodDelete, "/v1/secrets/TEMP", nil, 200)
		})

		t.Run("a step that sends a secret needs secrets:read; a name the account lacks is a 400", func(t *testing.T) {
			flow := func(name string) json.RawMessage {
				return json.RawMessage(`{"actions":[{"id":"call","kind":"http_request","inputs":{"url":"https://collector.example.com/","secret_headers":{"Authorization":"` + name + `"}}}],
					"edges":[{"from":"$source","to":"call"}]}`)
			}
			wantForbiddenSteps(t, do(t, none, http.MethodPost, "/v1/workflows", map[string]any{"name": "exfiltrate", "workflow": flow("CRM_TOKEN")}),
				map[string]string{"/workflow/actions/0/inputs/secret_headers": "secrets:read"})
			if n := workflowCount(t, none); n != 0 {
				t.Fatalf("a refused create stored %d workflows", n)
			}
			wantError(t, do(t, reader, http.MethodPost, "/v1/workflows", map[string]any{"name": "typo", "workflow": flow("CRM_TOKNE")}),
				400, "VALIDATION_ERROR", "body.workflow.actions[0].inputs.secret_headers.Authorization")
			w := createWorkflow(t, reader, map[string]any{"name": "crm", "workflow": flow("CRM_TOKEN")})
			if got := getWorkflow(t, none, w.ID); !slices.Equal(got.RequiredPermissions, []string{"secrets:read"}) {
				t.Fatalf("required_permissions %v", got.RequiredPermissions)
			}
			wantForbiddenSteps(t, do(t, none, http.MethodPost, "/v1/workflows/"+w.ID+"/test", map[string]any{}),
				map[string]string{"/workflow/actions/0/inputs/secret_headers": "secrets:read"})
			// Without the input, the same step needs nothing.
			mustDo(t, none, http.MethodPut, "/v1/workflows/"+w.ID+"/draft", map[string]any{"workflow": json.RawMessage(
				`{"actions":[{"id":"call","kind":"http_request","inputs":{"url":"https://collector.example.com/"}}],"edges":[{"from":"$source","to":"call"}]}`)}, 200)
		})

		t.Run("the catalogue says what each step needs and how it is charged", func(t *testing.T) {
			var cat struct {
				Items []struct {
					Kind        string   `json:"kind"`
					CreditCost  int64    `json:"creditCost"`
					CreditPer   string   `json:"creditPer"`
					CreditItems string   `json:"creditItems"`
					Endpoint    string   `json:"endpoint"`
					Permissions []string `json:"permissions"`
					Plans       []string `json:"plans"`
					Inputs      []struct {
						Name       string `json:"name"`
						Permission string `json:"permission"`
					} `json:"inputs"`
				} `json:"items"`
			}
			if err := mustDo(t, none, http.MethodGet, "/v1/workflows/actions", nil, 200).Data(&cat); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, it := range cat.Items {
				got[it.Kind] = strings.Join([]string{it.Endpoint, strings.Join(it.Permissions, "+"), it.CreditPer, it.CreditItems, strings.Join(it.Plans, "+")}, " ")
				for _, in := range it.Inputs {
					if in.Permission != "" {
						got[it.Kind+"."+in.Name] = in.Permission
					}
				}
			}
			for kind, want := range map[string]string{
				"person_enrichment":                      "POST /v1/profile/enrich enrich:profile:read result  STARTER+ENTERPRISE+CUSTOM",
				"pronet_get_post_comments":               "POST /v1/company/comments track:company:comments item comments STARTER+ENTERPRISE+CUSTOM",
				"microblog_get_user":                     "POST /v1/searches/microblog/profile/preview searches:read execution  STARTER+ENTERPRISE+CUSTOM",
				"generic_agent":                          "  execution  STARTER+ENTERPRISE+CUSTOM",
				"http_request.secret_headers":            "secrets:read",
				"slack_send_channel_message.webhook_url": "secrets:read",
				"send_email.smtp":                        "secrets:read",
			} {
				if got[kind] != want {
					t.Errorf("catalogue %s: %q, want %q", kind, got[kind], want)
				}
			}
		})
	})
}

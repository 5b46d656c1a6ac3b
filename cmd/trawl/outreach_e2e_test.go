package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// outreachCase is one outreach tool as the end-to-end test drives it.
type outreachCase struct {
	typ, kind string
	// target is the input naming where leads go (campaign_id, list_id),
	// picked from the campaigns lookup by pick.
	target string
	pick   func(campaigns []outreachCampaignView) string
	// lead is the input that identifies a lead (email, profile_url) and
	// leadValue makes one from a name.
	lead      string
	leadValue func(name string) string
	// already is the output that says the lead was there.
	already string
	// adds tells the request log's calls that add a lead.
	adds func(sandboxCall) bool
	// badTarget is a literal target the action's Check refuses when the
	// workflow is saved ("": none).
	badTarget string
	// count reads the number of leads target holds through the service's
	// own API in the sandbox (nil: the service has no such call).
	count func(t *testing.T, sandbox, key, target string) int
}

type outreachCampaignView struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Kind   string `json:"kind"`
}

func firstCampaign(cs []outreachCampaignView) string { return cs[0].ID }

func emailOf(name string) string { return name + "@example.com" }

var outreachCases = []outreachCase{
	{
		typ: "smartlead", kind: "smartlead_add_lead_to_campaign", target: "campaign_id", pick: firstCampaign,
		lead: "email", leadValue: emailOf, already: "already_in_campaign",
		adds:      func(c sandboxCall) bool { return c.Method == "POST" && strings.HasSuffix(c.Path, "/leads") },
		badTarget: "cam_123",
		count: func(t *testing.T, sb, key, target string) int {
			var out struct {
				TotalLeads string `json:"total_leads"`
			}
			sandboxJSON(t, "GET", sb+"/smartlead/campaigns/"+target+"/leads?api_key="+key, nil, nil, &out)
			var n int
			fmt.Sscan(out.TotalLeads, &n)
			return n
		},
	},
	{
		typ: "instantly", kind: "instantly_add_lead_to_campaign", target: "campaign_id", pick: firstCampaign,
		lead: "email", leadValue: emailOf, already: "already_in_campaign",
		adds:      func(c sandboxCall) bool { return c.Method == "POST" && c.Path == "/api/v2/leads" },
		badTarget: "123",
		count: func(t *testing.T, sb, key, target string) int {
			var out struct {
				Items []any `json:"items"`
			}
			sandboxJSON(t, "POST", sb+"/instantly/api/v2/leads/list", map[string]string{"Authorization": "Bearer " + key},
				map[string]any{"campaign": target}, &out)
			return len(out.Items)
		},
	},
	{
		typ: "lemlist", kind: "lemlist_add_lead_to_campaign", target: "campaign_id", pick: firstCampaign,
		lead: "email", leadValue: emailOf, already: "already_in_campaign",
		adds: func(c sandboxCall) bool { return c.Method == "POST" && strings.Contains(c.Path, "/leads/") },
	},
	{
		typ: "heyreach", kind: "heyreach_add_lead", target: "list_id",
		pick: func(cs []outreachCampaignView) string {
			for _, c := range cs {
				if c.Kind == "list" {
					return c.ID
				}
			}
			return ""
		},
		lead: "profile_url", leadValue: func(name string) string { return "https://www.linkedin.com/in/" + name + "/" },
		already:   "already_present",
		adds:      func(c sandboxCall) bool { return strings.HasSuffix(c.Path, "/AddLeadsToListV2") },
		badTarget: "list-1",
		count: func(t *testing.T, sb, key, target string) int {
			var out struct {
				TotalCount int `json:"totalCount"`
			}
			var id int
			fmt.Sscan(target, &id)
			sandboxJSON(t, "POST", sb+"/heyreach/list/GetLeadsFromList", map[string]string{"X-API-KEY": key},
				map[string]any{"listId": id, "offset": 0, "limit": 100}, &out)
			return out.TotalCount
		},
	},
}

// TestOutreachActions: for each outreach tool, on each engine, a workflow
// adding a lead fails NOT_CONNECTED before the tool is connected; once
// connected, the campaigns lookup answers the seeded campaigns; the lead
// is added, adding it again (a second step, as a retried or repeated
// step would) adds nothing and says it was there; a lead the service
// rate-limits once (flaky-) is retried and added once; a malformed lead
// and a missing campaign fail as the service answers; and a key the
// service rejects fails CONNECTION_REJECTED. No key reaches the logs.
func TestOutreachActions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_LOG_LEVEL": "debug"}))
		sb := ts.sandboxURL(t)
		var keys []string
		for _, oc := range outreachCases {
			t.Run(oc.typ, func(t *testing.T) {
				// An account of its own per tool: its own connections, and
				// its own key's request budget.
				c := newKey(t, ts, newAccount(t, ts, "Outreach "+oc.typ, "STARTER", ""), "*")
				key := "key-" + oc.typ + "-" + string(engine) + "-0123456789"
				keys = append(keys, key)
				step := func(id, lead, target string) map[string]any {
					return map[string]any{"id": id, "kind": oc.kind, "retry": map[string]any{"max_attempts": 1},
						"inputs": map[string]any{oc.target: target, oc.lead: lead, "first_name": "Ada", "last_name": "Lovelace", "company_name": "Engines Ltd"}}
				}
				one := createWorkflow(t, c, map[string]any{"name": oc.typ + " one", "workflow": map[string]any{
					"actions": []any{step("add", "{{ trigger.text }}", "{{ trigger.source }}")},
					"edges":   []any{map[string]any{"from": "$source", "to": "add"}},
				}})
				if oc.badTarget != "" {
					def := map[string]any{"actions": []any{step("add", "{{ trigger.text }}", oc.badTarget)},
						"edges": []any{map[string]any{"from": "$source", "to": "add"}}}
					wantError(t, do(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "bad id", "workflow": def}), 400, "VALIDATION_ERROR")
				}
				runOne := func(lead, target string) executionView {
					t.Helper()
					return waitExecution(t, ts, c, one.ID, startTest(t, c, one.ID, map[string]any{"overrides": map[string]any{"text": lead, "source": target}}), ended)
				}
				failed := func(x executionView, code, says string) {
					t.Helper()
					s := x.Steps[0]
					if s.Status != "failed" || s.Error == nil || s.Error.Code != code || !strings.Contains(s.Error.Message, says) {
						t.Fatalf("step = %+v (error %+v), want %s saying %q", s, s.Error, code, says)
					}
				}

				// A campaign id of the service's format that no workspace has.
				missing := "999999999"
				if oc.typ == "instantly" {
					missing = "00000000-0000-7000-a000-000000000000"
				} else if oc.typ == "lemlist" {
					missing = "cam_missing0000000000"
				}

				// Not connected.
				failed(runOne(oc.leadValue("ada"), missing), "NOT_CONNECTED", "/v1/integrations/"+oc.typ)
				wantError(t, do(t, c, http.MethodGet, "/v1/integrations/"+oc.typ+"/campaigns", nil), 404, "NOT_FOUND")

				// Connected: the campaigns lookup.
				mustDo(t, c, http.MethodPost, "/v1/integrations/"+oc.typ, map[string]any{"credentials": map[string]string{"api_key": key}}, 201)
				var h integrationHealthView
				if err := mustDo(t, c, http.MethodGet, "/v1/integrations/"+oc.typ+"/health", nil, 200).Data(&h); err != nil || h.Status != "ok" {
					t.Fatalf("health = %+v, %v", h, err)
				}
				var campaigns []outreachCampaignView
				if err := mustDo(t, c, http.MethodGet, "/v1/integrations/"+oc.typ+"/campaigns", nil, 200).Data(&campaigns); err != nil || len(campaigns) < 3 {
					t.Fatalf("campaigns = %+v, %v", campaigns, err)
				}
				for _, cv := range campaigns {
					if cv.ID == "" || cv.Name == "" || cv.Status == "" {
						t.Fatalf("campaign %+v lacks an id, name or status", cv)
					}
				}
				target := oc.pick(campaigns)

				// Added, then there already, then a flaky lead retried and added once.
				three := createWorkflow(t, c, map[string]any{"name": oc.typ + " three", "workflow": map[string]any{
					"actions": []any{step("add", oc.leadValue("ada"), target), step("again", oc.leadValue("ada"), target),
						step("flaky", oc.leadValue("flaky-bob"), target)},
					"edges": []any{map[string]any{"from": "$source", "to": "add"}, map[string]any{"from": "add", "to": "again"},
						map[string]any{"from": "again", "to": "flaky"}},
				}})
				x := waitExecution(t, ts, c, three.ID, startTest(t, c, three.ID, map[string]any{}), ended)
				if len(x.Steps) != 3 {
					t.Fatalf("steps = %s", x.keys())
				}
				for i, want := range []bool{true, false, true} {
					s := x.Steps[i]
					out, _ := s.Output.(map[string]any)
					if s.Status != "completed" || out["added"] != want || out[oc.already] != !want {
						t.Fatalf("step %s = %s %v (error %+v)", s.Key, s.Status, s.Output, s.Error)
					}
				}
				if oc.count != nil {
					if n := oc.count(t, sb, key, target); n != 2 {
						t.Fatalf("%s holds %d leads, want 2", oc.typ, n)
					}
				}
				flakyCalls := 0
				for _, call := range ts.integrationCalls(oc.typ) {
					if oc.adds(call) && strings.Contains(call.Path+call.Body, "flaky-bob") {
						flakyCalls++
					}
				}
				if flakyCalls != 2 {
					t.Fatalf("the flaky lead was sent %d times, want 2 (429, then added): %+v", flakyCalls, ts.integrationCalls(oc.typ))
				}

				// A malformed lead, and a campaign the service does not have.
				bad := "not-an-email"
				if oc.lead == "profile_url" {
					bad = "https://example.com/ada"
				}
				x = runOne(bad, target)
				if s := x.Steps[0]; s.Status != "failed" || s.Error == nil || (s.Error.Code != "INVALID_INPUT" && s.Error.Code != "UPSTREAM_ERROR") {
					t.Fatalf("malformed lead: step = %+v (error %+v)", s, s.Error)
				}
				failed(runOne(oc.leadValue("cyd"), missing), "NOT_FOUND", "404")

				// A key the service rejects.
				mustDo(t, c, http.MethodPost, "/v1/integrations/"+oc.typ, map[string]any{"credentials": map[string]string{"api_key": "invalid-" + key}}, 200)
				failed(runOne(oc.leadValue("dee"), target), "CONNECTION_REJECTED", "401")
				if r := do(t, c, http.MethodGet, "/v1/integrations/"+oc.typ+"/campaigns", nil); r.Status < 400 {
					t.Fatalf("campaigns with a rejected key answered %d", r.Status)
				}
			})
		}
		ts.stop()
		logs := ts.Stdout.String() + ts.Stderr.String()
		for _, k := range keys {
			if strings.Contains(logs, k) {
				t.Fatalf("the server logged the key %s", k)
			}
		}
	})
}

// sandboxJSON calls the sandbox's service as a user would and decodes its
// 200 answer.
func sandboxJSON(t *testing.T, method, url string, header map[string]string, body, out any) {
	t.Helper()
	if code := sandboxDo(t, method, url, header, body, out); code != http.StatusOK {
		t.Fatalf("%s %s: %d", method, url, code)
	}
}

package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// TestLinearCreateIssue: an account connects Linear with a personal key
// (sent as the Authorization header, no Bearer), looks teams, users and
// states up, and creates an issue through a workflow step with a client
// id derived from the step; a rate limit is waited out; a bad priority,
// an unknown team, a rejected key and no connection fail with their codes.
func TestLinearCreateIssue(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, integrationTestEnv))
		c := ts.Client
		const key = "lin_api_e2e_workspace_1"

		x := integrationStepRun(t, ts, c, "linear_create_issue", map[string]any{"team_id": "t", "title": "x"})
		if code, _ := stepError(t, x); code != "NOT_CONNECTED" {
			t.Fatalf("not connected: %s", code)
		}
		mustDo(t, c, http.MethodPost, "/v1/integrations/linear", map[string]any{"credentials": map[string]string{"api_key": key}}, 201)

		// Lookups.
		var teams struct {
			Teams []struct{ ID, Key, Name string } `json:"teams"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/linear/teams", nil, 200).Data(&teams); err != nil || len(teams.Teams) != 2 || teams.Teams[0].Key != "ENG" {
			t.Fatalf("teams = %+v, %v", teams, err)
		}
		eng := teams.Teams[0].ID
		var users struct {
			Users []struct{ ID, Name, Email string } `json:"users"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/linear/users?team_id="+eng+"&search=ada", nil, 200).Data(&users); err != nil || len(users.Users) != 1 || users.Users[0].Email != "ada@example.com" {
			t.Fatalf("users = %+v, %v", users, err)
		}
		var states struct {
			States []struct{ ID, Name, Type string } `json:"states"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/linear/states?team_id="+eng, nil, 200).Data(&states); err != nil || len(states.States) != 5 || states.States[2].Type != "started" {
			t.Fatalf("states = %+v, %v", states, err)
		}
		wantError(t, do(t, c, http.MethodGet, "/v1/integrations/linear/states", nil), 400, "VALIDATION_ERROR")

		// An issue with every input.
		in := map[string]any{"team_id": eng, "title": "Follow up {{ trigger.text }}", "description": "**Hot** lead", "assignee_id": users.Users[0].ID,
			"state_id": states.States[2].ID, "priority": 2}
		out := stepOutput(t, integrationStepRun(t, ts, c, "linear_create_issue", in))
		if out["created"] != true || out["identifier"] != "ENG-1" || !strings.HasPrefix(out["url"].(string), "https://linear.app/") ||
			!regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(out["id"].(string)) {
			t.Fatalf("issue = %v", out)
		}
		calls := ts.integrationCalls("linear")
		last := calls[len(calls)-1]
		if last.Path != "/graphql" || !strings.Contains(last.Body, `"operationName":"IssueCreate"`) || !strings.Contains(last.Body, `"id":"`+out["id"].(string)+`"`) ||
			!strings.Contains(last.Body, "Follow up from the trigger") {
			t.Fatalf("issueCreate request = %+v", last)
		}
		// The sandbox holds it, as Linear would answer it.
		var got struct {
			Data struct {
				Issue struct {
					Identifier string
					State      struct{ Name string }
					Priority   float64
				}
			}
		}
		sandboxAPI(t, ts, http.MethodPost, "/linear/graphql", map[string]string{"Authorization": key},
			map[string]any{"operationName": "Issue", "query": "query Issue($id: String!) { issue(id: $id) { identifier } }", "variables": map[string]any{"id": out["id"]}}, &got)
		if got.Data.Issue.Identifier != "ENG-1" || got.Data.Issue.State.Name != "In Progress" || got.Data.Issue.Priority != 2 {
			t.Fatalf("stored issue = %+v", got)
		}

		// Rate limited once (RATELIMITED): waited out, one issue.
		out = stepOutput(t, integrationStepRun(t, ts, c, "linear_create_issue", map[string]any{"team_id": eng, "title": "flaky-issue"}))
		if out["identifier"] != "ENG-2" {
			t.Fatalf("flaky = %v", out)
		}

		// Refusals.
		code, msg := stepError(t, integrationStepRun(t, ts, c, "linear_create_issue", map[string]any{"team_id": "missing-team", "title": "x"}))
		if code != "NOT_FOUND" || !strings.Contains(msg, "Entity not found") {
			t.Fatalf("unknown team: %s %s", code, msg)
		}
		code, _ = stepError(t, integrationStepRun(t, ts, c, "linear_create_issue", map[string]any{"team_id": eng, "title": "x", "priority": "{{ 7 }}"}))
		if code != "INVALID_INPUT" {
			t.Fatalf("priority 7: %s", code)
		}
		mustDo(t, c, http.MethodPost, "/v1/integrations/linear", map[string]any{"credentials": map[string]string{"api_key": "invalid-key"}}, 200)
		code, msg = stepError(t, integrationStepRun(t, ts, c, "linear_create_issue", map[string]any{"team_id": eng, "title": "x"}))
		if code != "CONNECTION_REJECTED" || !strings.Contains(msg, "AUTHENTICATION_ERROR") {
			t.Fatalf("rejected: %s %s", code, msg)
		}
		ts.stop()
		if strings.Contains(ts.Stdout.String()+ts.Stderr.String(), key) {
			t.Fatal("the server logged the key")
		}
	})
}

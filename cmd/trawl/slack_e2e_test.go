package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

type slackChannelView struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	IsPrivate  bool   `json:"is_private"`
	IsMember   bool   `json:"is_member"`
	NumMembers *int   `json:"num_members"`
}

type slackUserView struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	RealName string `json:"real_name"`
	Email    string `json:"email"`
	IsBot    bool   `json:"is_bot"`
}

// TestSlackConnectionE2E: an account connects Slack with a bot token
// (against the sandbox's Slack Web API), probes it, looks up channels and
// users to build a workflow, and posts through the connection with the
// message action: to #name (resolved to the channel's id), to a channel
// that rate-limits once, and to one the bot is not in (Slack's
// not_in_channel as the step's error). Without a connection the step is
// NOT_CONNECTED; with a token Slack refuses, CONNECTION_REJECTED.
func TestSlackConnectionE2E(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_LOG_LEVEL": "debug"}))
		c := ts.Client
		const token = "xoxb-1111-2222-e2e"

		def := map[string]any{
			"actions": []any{
				map[string]any{"id": "sales", "kind": "slack_send_channel_message",
					"inputs": map[string]any{"channel": "#sales", "text": "{{ trigger.text }}"}},
				map[string]any{"id": "flaky", "kind": "slack_send_channel_message",
					"inputs": map[string]any{"channel": "#flaky-alerts", "text": "again: {{ trigger.text }}"}},
				map[string]any{"id": "random", "kind": "slack_send_channel_message",
					"inputs": map[string]any{"channel": "#random", "text": "{{ trigger.text }}"}},
			},
			"edges": []any{map[string]any{"from": "$source", "to": "sales"}, map[string]any{"from": "sales", "to": "flaky"},
				map[string]any{"from": "flaky", "to": "random"}},
		}
		// Without a webhook, the channel is required (the token or the
		// connection posts).
		r := mustDo(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "no channel", "workflow": map[string]any{
			"actions": []any{map[string]any{"id": "s", "kind": "slack_send_channel_message", "inputs": map[string]any{"text": "hi"}}},
			"edges":   []any{map[string]any{"from": "$source", "to": "s"}}}}, 400)
		if !r.Err().HasPointer("/workflow/actions/0/inputs/channel") {
			t.Fatalf("no channel: %s", r.Body)
		}
		w := createWorkflow(t, c, map[string]any{"name": "slack", "workflow": def})
		run := func(text string) executionView {
			t.Helper()
			return waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"text": text}}), ended)
		}

		// Not connected: the step says how to connect; lookups are 404.
		x := run("nobody hears this")
		if s := x.Steps[0]; s.Status != "failed" || s.Error == nil || s.Error.Code != "NOT_CONNECTED" || !strings.Contains(s.Error.Message, "/v1/integrations/slack") {
			t.Fatalf("not connected: %+v", x.Steps)
		}
		mustDo(t, c, http.MethodGet, "/v1/integrations/slack/channels", nil, 404)

		// A user token is refused with a message saying what a bot token is.
		r = mustDo(t, c, http.MethodPost, "/v1/integrations/slack", map[string]any{"credentials": map[string]string{"bot_token": "xoxp-user-secret"}}, 400)
		if !strings.Contains(string(r.Body), "xoxb-") || strings.Contains(string(r.Body), "user-secret") {
			t.Fatalf("user token: %s", r.Body)
		}
		r = mustDo(t, c, http.MethodPost, "/v1/integrations/slack", map[string]any{"credentials": map[string]string{"bot_token": token}}, 201)
		if strings.Contains(string(r.Body), token) {
			t.Fatalf("the answer echoes the token: %s", r.Body)
		}
		var h integrationHealthView
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/slack/health", nil, 200).Data(&h); err != nil || h.Status != "ok" {
			t.Fatalf("health %+v, %v", h, err)
		}

		// Lookups.
		channels := func(q string) []slackChannelView {
			t.Helper()
			var out []slackChannelView
			if err := mustDo(t, c, http.MethodGet, "/v1/integrations/slack/channels"+q, nil, 200).Data(&out); err != nil {
				t.Fatal(err)
			}
			return out
		}
		all := channels("")
		byName := map[string]slackChannelView{}
		for _, ch := range all {
			byName[ch.Name] = ch
		}
		// Listed across conversations.list's pages: 27 of 32 (archived ones
		// and private ones without the bot are not).
		if len(all) != 27 || byName["sales"].ID == "" || !byName["revops"].IsPrivate || byName["random"].IsMember || byName["exec"].ID != "" {
			t.Fatalf("channels %+v", all)
		}
		member := channels("?member_only=true")
		for _, ch := range member {
			if !ch.IsMember {
				t.Errorf("member_only listed %+v", ch)
			}
		}
		if len(member) == 0 || len(member) >= len(all) {
			t.Errorf("member_only: %d of %d", len(member), len(all))
		}
		if got := channels("?search=SALES&member_only=true"); len(got) != 2 || got[0].Name != "sales" || got[1].Name != "sales-leadership" {
			t.Errorf("search: %+v", got)
		}
		mustDo(t, c, http.MethodGet, "/v1/integrations/slack/channels?member_only=maybe", nil, 400)
		var users []slackUserView
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/slack/users", nil, 200).Data(&users); err != nil || len(users) != 39 {
			t.Fatalf("users %d, %v", len(users), err)
		}
		var found []slackUserView
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/slack/users?search="+url.QueryEscape(users[3].Email), nil, 200).Data(&found); err != nil ||
			len(found) != 1 || found[0].ID != users[3].ID || found[0].RealName == "" || found[0].IsBot {
			t.Errorf("users search: %+v, %v", found, err)
		}
		pages := 0
		for _, call := range ts.integrationCalls("slack") {
			if call.Path == "/conversations.list" && strings.Contains(call.Query, "cursor=") {
				pages++
			}
		}
		if pages == 0 {
			t.Error("the channels lookup never followed a cursor")
		}

		// Posting through the connection.
		x = run("VP of Sales engaged")
		sales, flaky, random := x.Steps[0], x.Steps[1], x.Steps[2]
		out, _ := sales.Output.(map[string]any)
		if sales.Status != "completed" || out["channel"] != byName["sales"].ID || !strings.Contains(out["ts"].(string), ".") {
			t.Fatalf("sales step %+v", sales)
		}
		if flaky.Status != "completed" {
			t.Fatalf("flaky step (rate limited once, retried) %+v", flaky)
		}
		if random.Status != "failed" || random.Error == nil || random.Error.Code != "UPSTREAM_ERROR" || !strings.Contains(random.Error.Message, "not_in_channel") {
			t.Fatalf("random step %+v", random)
		}
		var posts []sandboxCall
		for _, call := range ts.integrationCalls("slack") {
			if call.Path == "/chat.postMessage" {
				posts = append(posts, call)
			}
		}
		// sales, flaky twice (429 then posted), random.
		if len(posts) != 4 || !strings.Contains(posts[0].Body, "VP of Sales engaged") || !strings.Contains(posts[0].Body, byName["sales"].ID) {
			t.Fatalf("posts %+v", posts)
		}
		// The message is in the channel, read through Slack's own API.
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet,
			ts.sandboxURL(t)+"/slack/conversations.history?channel="+byName["sales"].ID, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var history struct {
			OK       bool `json:"ok"`
			Messages []struct {
				Text string `json:"text"`
				TS   string `json:"ts"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(raw, &history); err != nil || !history.OK || len(history.Messages) != 1 ||
			history.Messages[0].Text != "VP of Sales engaged" || history.Messages[0].TS != out["ts"] {
			t.Fatalf("history %s", raw)
		}

		// A token Slack refuses: health says why, the step is rejected,
		// lookups are the service's failure.
		mustDo(t, c, http.MethodPost, "/v1/integrations/slack", map[string]any{"credentials": map[string]string{"bot_token": "xoxb-invalid-revoked"}}, 200)
		if err := mustDo(t, c, http.MethodGet, "/v1/integrations/slack/health", nil, 200).Data(&h); err != nil || h.Status != "error" || !strings.Contains(h.Error, "invalid_auth") {
			t.Fatalf("health %+v, %v", h, err)
		}
		x = run("rejected")
		if s := x.Steps[0]; s.Status != "failed" || s.Error == nil || s.Error.Code != "CONNECTION_REJECTED" || !strings.Contains(s.Error.Message, "invalid_auth") {
			t.Fatalf("rejected: %+v", x.Steps)
		}
		mustDo(t, c, http.MethodGet, "/v1/integrations/slack/users", nil, 502)
		if strings.Contains(ts.Stderr.String(), "invalid-revoked") || strings.Contains(ts.Stderr.String(), token) {
			t.Error("a token is in the server's log")
		}
	})
}

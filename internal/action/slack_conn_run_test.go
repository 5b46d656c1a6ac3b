package action_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// slackConnCall runs the message action through a Slack connection of
// token to the sandbox (token "" is no connection).
func slackConnCall(t *testing.T, token string, in map[string]any) (map[string]any, error) {
	t.Helper()
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	t.Cleanup(srv.Close)
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"slack": srv.URL + "/slack"},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	call := action.Call{Inputs: in, Secret: func(context.Context, string) (string, error) { return "", errors.New("no secrets") }, Connection: func(_ context.Context, typ string) (*integration.Conn, error) {
		if token == "" || typ != "slack" {
			return nil, integration.ErrNotConnected
		}
		return k.Conn(integration.Slack, integration.Credentials{"bot_token": token}, "acct"), nil
	}}
	return action.Executors(action.Deps{})[action.KindSlackMessage](t.Context(), call)
}

func TestSlackConnection(t *testing.T) {
	out, err := slackConnCall(t, "xoxb-unit", map[string]any{"channel": "#sales", "text": "hi", "blocks": []any{map[string]any{"type": "divider"}}})
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := out["channel"].(string)
	ts, _ := out["ts"].(string)
	if out["ok"] != true || !strings.HasPrefix(ch, "C0") || len(ts) != len("1716300000.000100") {
		t.Errorf("output %v", out)
	}
	// The id the output gave posts to the same channel.
	if again, err := slackConnCall(t, "xoxb-unit", map[string]any{"channel": ch, "text": "again"}); err != nil || again["channel"] != ch {
		t.Errorf("by id: %v, %v", again, err)
	}
	// A flaky channel's 429 is retried inside the call.
	if _, err := slackConnCall(t, "xoxb-unit", map[string]any{"channel": "#flaky-alerts", "text": "hi"}); err != nil {
		t.Errorf("flaky channel: %v", err)
	}

	for _, tc := range []struct {
		name, token, channel, code, says string
		retryable                        bool
	}{
		{"not connected", "", "#sales", action.CodeNotConnected, "POST /v1/integrations/slack", false},
		{"invalid token", "xoxb-invalid-x", "#sales", action.CodeRejected, "invalid_auth", false},
		{"not in channel", "xoxb-unit", "#random", action.CodeUpstream, "not_in_channel", false},
		{"unknown name", "xoxb-unit", "#nope", action.CodeNotFound, "channel_not_found", false},
		{"private without the bot", "xoxb-unit", "#exec", action.CodeNotFound, "channel_not_found", false},
		{"unknown id", "xoxb-unit", "C0NOPE", action.CodeNotFound, "channel_not_found", false},
		{"rate limited", "xoxb-ratelimited", "C0NOPE", action.CodeUpstream, "ratelimited", true},
		{"no channel", "xoxb-unit", "", action.CodeInvalidInput, "channel is required", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := slackConnCall(t, tc.token, map[string]any{"channel": tc.channel, "text": "hi"})
			var e *action.Error
			if !errors.As(err, &e) || e.Code != tc.code || e.Retryable != tc.retryable {
				t.Fatalf("got %v, want %s retryable=%v", err, tc.code, tc.retryable)
			}
			if !strings.Contains(e.Message, tc.says) || strings.Contains(e.Message, "xoxb") {
				t.Errorf("message %q", e.Message)
			}
		})
	}
}

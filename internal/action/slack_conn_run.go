package action

import (
	"context"
	"errors"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// slackConnRun posts msg with chat.postMessage through the account's
// Slack connection. A channel given as #name is resolved to its id first
// (conversations.list), so that a private channel the bot is in is found
// by name too and the output names the channel by id. Slack has no
// idempotency key for chat.postMessage: only answers that posted nothing
// (429, 5xx) are retried.
func slackConnRun(ctx context.Context, call Call, msg map[string]any) (map[string]any, error) {
	channel := strings.TrimSpace(inputString(call.Inputs, "channel"))
	if channel == "" {
		return nil, failf(CodeInvalidInput, false, "channel is required to post through the Slack connection")
	}
	c, err := connection(ctx, call, integration.Slack.Name)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(channel, "#") {
		if channel, err = integration.SlackChannelID(ctx, c, channel); err != nil {
			return nil, slackFailure(err)
		}
	}
	msg["channel"] = channel
	var answer struct {
		Channel string `json:"channel"`
		TS      string `json:"ts"`
	}
	if err := integration.SlackCall(ctx, c, "chat.postMessage", nil, msg, &answer); err != nil {
		return nil, slackFailure(err)
	}
	return map[string]any{"ok": true, "channel": answer.Channel, "ts": answer.TS}, nil
}

// slackHint says what to do about a Slack error code a user can fix.
func slackHint(code string) string {
	switch code {
	case "not_in_channel":
		return "invite the Slack app to the channel (/invite @app in it)"
	case "channel_not_found":
		return "the channel does not exist, or is private without the app in it"
	case "is_archived":
		return "the channel is archived"
	case "missing_scope":
		return "the app lacks a scope (chat:write to post; channels:read and groups:read to resolve #names)"
	}
	return ""
}

// slackFailure is serviceFailure with a hint for the codes a user fixes
// in Slack.
func slackFailure(err error) error {
	out := serviceFailure(err)
	var se *integration.Error
	var ae *Error
	if errors.As(err, &se) && errors.As(out, &ae) {
		if hint := slackHint(se.Message); hint != "" {
			ae.Message += ": " + hint
		}
	}
	return out
}

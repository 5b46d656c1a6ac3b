package action

// KindSlackMessage posts a message to a Slack channel.
const KindSlackMessage = "slack_send_channel_message"

func slackSpec() Spec {
	return Spec{
		Kind: KindSlackMessage, Name: "Send Slack message", Category: CategoryMessaging,
		Description: "Posts a message to a Slack channel through the account's Slack connection (chat.postMessage; connect it with POST /v1/integrations/slack) when neither webhook_url nor token is given, or through an incoming-webhook URL or a bot token held in account secrets named here. With the connection, channel is required and may be an id (C…) or #name (resolved through conversations.list).",
		Inputs: []Input{
			{Name: "webhook_url", Title: "Incoming-webhook secret", Type: TypeString, Secret: true, Description: "Name of the secret holding the incoming-webhook URL; leave out, with token, to post through the Slack connection."},
			{Name: "token", Title: "Bot token secret", Type: TypeString, Secret: true, Description: "Name of the secret holding a bot token (xoxb-…); needs channel."},
			{Name: "channel", Title: "Channel", Type: TypeString, Description: "Channel id (C…) or #name; required with token or the Slack connection (GET /v1/integrations/slack/channels lists them)."},
			{Name: "text", Title: "Text", Type: TypeString},
			{Name: "blocks", Title: "Blocks", Type: TypeAny, Description: "Block Kit blocks (an array)."},
		},
		Check: func(in map[string]any) []Problem {
			_, hook := in["webhook_url"]
			_, token := in["token"]
			_, channel := in["channel"]
			_, text := in["text"]
			_, blocks := in["blocks"]
			var out []Problem
			switch {
			case hook && token:
				out = append(out, problemf("", "give webhook_url or token, not both"))
			case !hook && !channel:
				// No webhook: the token or the account's Slack connection posts.
				out = append(out, problemf("channel", "is required with token or the Slack connection (give webhook_url to post without one)"))
			}
			if !text && !blocks {
				out = append(out, problemf("text", "is required unless blocks are given"))
			}
			return out
		},
		Outputs: object(map[string]any{
			"ok":      typed("boolean", ""),
			"channel": typed("string", "The channel's id (token or connection delivery only)."),
			"ts":      typed("string", "The message's timestamp (token or connection delivery only)."),
		}, "ok"),
	}
}

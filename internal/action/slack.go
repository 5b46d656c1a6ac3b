package action

// KindSlackMessage posts a message to a Slack channel.
const KindSlackMessage = "slack_send_channel_message"

func slackSpec() Spec {
	return Spec{
		Kind: KindSlackMessage, Name: "Send Slack message", Category: CategoryMessaging,
		Description: "Posts a message to a Slack channel through an incoming-webhook URL or a bot token (chat.postMessage). Both are account secrets named here.",
		Inputs: []Input{
			{Name: "webhook_url", Title: "Incoming-webhook secret", Type: TypeString, Secret: true, Description: "Name of the secret holding the incoming-webhook URL."},
			{Name: "token", Title: "Bot token secret", Type: TypeString, Secret: true, Description: "Name of the secret holding a bot token (xoxb-…); needs channel."},
			{Name: "channel", Title: "Channel", Type: TypeString, Description: "Channel id or name, with token."},
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
			case !hook && !token:
				out = append(out, problemf("webhook_url", "is required unless token is given"))
			case token && !channel:
				out = append(out, problemf("channel", "is required with token"))
			}
			if !text && !blocks {
				out = append(out, problemf("text", "is required unless blocks are given"))
			}
			return out
		},
		Outputs: object(map[string]any{
			"ok":      typed("boolean", ""),
			"channel": typed("string", "The channel (token delivery only)."),
			"ts":      typed("string", "The message's timestamp (token delivery only)."),
		}, "ok"),
	}
}

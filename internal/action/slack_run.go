package action

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/trawlhq/trawl/internal/netguard"
)

// slackRun posts through an incoming webhook or chat.postMessage with a
// bot token secret or, when neither is named, the account's Slack
// connection. The webhook URL and the token are secrets: no error
// carries them.
func slackRun(d Deps) Executor {
	return func(ctx context.Context, call Call) (map[string]any, error) {
		in := call.Inputs
		msg := map[string]any{}
		if t := inputString(in, "text"); t != "" {
			msg["text"] = t
		}
		if b, ok := in["blocks"]; ok && b != nil {
			msg["blocks"] = b
		}
		if name := inputString(in, "webhook_url"); name != "" {
			hook, err := secretValue(ctx, call, name)
			if err != nil {
				return nil, err
			}
			if !webhookURLOK(hook) {
				return nil, failf(CodeInvalidInput, false, "secret %q is not an https URL", name)
			}
			status, body, err := postJSON(ctx, d, hook, "", msg)
			if err != nil {
				return nil, err
			}
			text := strings.TrimSpace(string(body))
			var answer struct{ OK bool }
			if status/100 != 2 || (text != "ok" && (json.Unmarshal(body, &answer) != nil || !answer.OK)) {
				return nil, failf(CodeUpstream, false, "Slack webhook answered HTTP %d: %.200s", status, text)
			}
			return map[string]any{"ok": true}, nil
		}

		name := inputString(in, "token")
		if name == "" {
			return slackConnRun(ctx, call, msg)
		}
		token, err := secretValue(ctx, call, name)
		if err != nil {
			return nil, err
		}
		msg["channel"] = inputString(in, "channel")
		status, body, err := postJSON(ctx, d, strings.TrimSuffix(d.SlackAPIURL, "/")+"/chat.postMessage", token, msg)
		if err != nil {
			return nil, err
		}
		var answer struct {
			OK      bool   `json:"ok"`
			Error   string `json:"error"`
			Channel string `json:"channel"`
			TS      string `json:"ts"`
		}
		if err := json.Unmarshal(body, &answer); err != nil {
			return nil, failf(CodeUpstream, status/100 != 2, "Slack answered HTTP %d without JSON", status)
		}
		if !answer.OK {
			return nil, failf(CodeUpstream, answer.Error == "ratelimited", "Slack: %s", answer.Error)
		}
		return map[string]any{"ok": true, "channel": answer.Channel, "ts": answer.TS}, nil
	}
}

// webhookURLOK accepts https, and plain http only to a literal address
// that the guard refuses by default: the dial then succeeds only when the
// operator allowed that network (local tests, an internal relay).
func webhookURLOK(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	if u.Scheme == "https" {
		return true
	}
	ip, err := netip.ParseAddr(u.Hostname())
	return u.Scheme == "http" && err == nil && netguard.Blocked(ip)
}

// postJSON posts payload and reads up to 64 KiB of the answer. 5xx and
// 429 are retryable errors; other statuses are the caller's to judge.
func postJSON(ctx context.Context, d Deps, target, bearer string, payload any) (int, []byte, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return 0, nil, failf(CodeInvalidInput, false, "%v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(raw))
	if err != nil {
		return 0, nil, failf(CodeInvalidInput, false, "not a valid URL")
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := d.HTTP.Do(req)
	if err != nil {
		return 0, nil, dialError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		return 0, nil, failf(CodeUpstream, true, "Slack answered HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return 0, nil, dialError(err)
	}
	return resp.StatusCode, body, nil
}

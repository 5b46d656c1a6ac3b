package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode"
)

// Slack connects with the bot token of a Slack app installed in the
// workspace (docs/integrations/slack.md). Its Web API answers HTTP 200
// with {"ok": false, "error": "<code>"} for most refusals: every call goes
// through SlackCall, which turns that envelope into an *Error.
var Slack = &Type{
	Name:        "slack",
	DisplayName: "Slack",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name:     "bot_token",
		Doc:      "the Bot User OAuth Token (xoxb-…) of a Slack app installed in the workspace (api.slack.com/apps → your app → OAuth & Permissions)",
		Required: true,
		MaxLen:   512,
	}},
	DefaultURL:   "https://slack.com/api",
	Probe:        probeSlack,
	Authorize:    BearerAuth("bot_token"),
	ErrorMessage: slackErrorMessage,
	Check:        checkSlackCreds,
	Lookups: map[string]LookupFunc{
		"channels": slackChannelsLookup,
		"users":    slackUsersLookup,
	},
}

func init() { Register(Slack) }

// checkSlackCreds wants a bot token: a user token (xoxp-) or an app-level
// token (xapp-) would connect but act as someone else or not at all.
func checkSlackCreds(creds Credentials) []FieldError {
	if !strings.HasPrefix(strings.TrimSpace(creds["bot_token"]), "xoxb-") {
		return []FieldError{{"bot_token", "must be a Slack bot token, starting with xoxb- (OAuth & Permissions → Bot User OAuth Token); user (xoxp-) and app-level (xapp-) tokens are not accepted"}}
	}
	return nil
}

// slackEnvelope is what every Web API answer carries.
type slackEnvelope struct {
	OK *bool `json:"ok"`
	// Error is any JSON so that an odd value (a number) reads as no code
	// rather than as an answer that is not Slack's.
	Error any `json:"error"`
}

// maxSlackCode bounds the error code kept from an answer.
const maxSlackCode = 100

// ParseSlackEnvelope reads a Web API answer's ok/error envelope: "" when
// ok is true, else Slack's error code (unknown_error when it gave none),
// cleaned of anything but the code's own characters. An answer that is
// not an object with a boolean ok is an error.
func ParseSlackEnvelope(body []byte) (string, error) {
	var env slackEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return "", fmt.Errorf("answered something that is not its JSON: %w", err)
	}
	if env.OK == nil {
		return "", errors.New(`answered without "ok" (is its URL Slack's Web API?)`)
	}
	if *env.OK {
		return "", nil
	}
	raw, _ := env.Error.(string)
	code := strings.Map(func(r rune) rune {
		if r == '_' || r == '.' || r == '-' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return -1
	}, raw)
	if len(code) > maxSlackCode {
		code = code[:maxSlackCode]
	}
	if code == "" {
		code = "unknown_error"
	}
	return code, nil
}

// slackErrorMessage reads the error code of a non-2xx answer (a 429's
// {"ok":false,"error":"ratelimited"}).
func slackErrorMessage(body []byte) string {
	code, err := ParseSlackEnvelope(body)
	if err != nil {
		return ""
	}
	return code
}

// SlackStatus is the HTTP status Trawl gives a Slack error code, so that
// callers treat it as any service's refusal: a dead credential is a 401
// (wrapping ErrRejected), an unknown channel or user a 404, Slack's
// own trouble a 5xx, anything else the request's fault (400).
func SlackStatus(code string) int {
	switch code {
	case "invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive", "no_permission_for_token":
		return http.StatusUnauthorized
	case "missing_scope", "not_allowed_token_type", "ekm_access_denied", "access_denied":
		return http.StatusForbidden
	case "channel_not_found", "user_not_found", "users_not_found":
		return http.StatusNotFound
	case "ratelimited", "rate_limited":
		return http.StatusTooManyRequests
	case "internal_error", "fatal_error", "service_unavailable", "request_timeout":
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// SlackCall calls the Web API method (chat.postMessage) through c.Do:
// GET with args as the query when body is nil, else POST of body as JSON.
// An answer with ok false is an *Error whose Message is Slack's code;
// otherwise the answer is decoded into out (when not nil).
func SlackCall(ctx context.Context, c *Conn, method string, args url.Values, body, out any) error {
	r := Request{Method: http.MethodGet, Path: "/" + method, Query: args}
	if body != nil {
		r.Method, r.Body = http.MethodPost, body
		// Slack reads a JSON body only when told its charset.
		r.Header = http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	}
	var raw json.RawMessage
	if err := c.Do(ctx, r, &raw); err != nil {
		return err
	}
	code, err := ParseSlackEnvelope(raw)
	if err != nil {
		return &Error{Service: c.Type.DisplayName, Status: http.StatusBadGateway, Message: method + " " + err.Error()}
	}
	if code != "" {
		return &Error{Service: c.Type.DisplayName, Status: SlackStatus(code), Message: code}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &Error{Service: c.Type.DisplayName, Status: http.StatusBadGateway, Message: method + " answered an unexpected shape: " + err.Error()}
	}
	return nil
}

// SlackAuth is the answer of auth.test.
type SlackAuth struct {
	URL    string `json:"url"`
	Team   string `json:"team"`
	User   string `json:"user"`
	TeamID string `json:"team_id"`
	UserID string `json:"user_id"`
	BotID  string `json:"bot_id"`
}

// probeSlack asks auth.test, which any valid token may call.
func probeSlack(ctx context.Context, c *Conn) error {
	var a SlackAuth
	err := SlackCall(ctx, c, "auth.test", nil, map[string]any{}, &a)
	switch {
	case err != nil:
		return err
	case a.TeamID == "":
		return errors.New("Slack answered auth.test without a team_id (is its URL Slack's Web API?)")
	}
	return nil
}

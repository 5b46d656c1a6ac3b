package sandbox

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// slackCaller calls the sandbox's Slack Web API with token.
func slackCaller(t *testing.T, token string) func(method, query, body string) (int, http.Header, map[string]any) {
	h := New(Config{Seed: 1, Now: func() time.Time { return time.Unix(1_716_300_000, 0) }}).Handler()
	return func(method, query, body string) (int, http.Header, map[string]any) {
		t.Helper()
		verb := http.MethodGet
		if body != "" {
			verb = http.MethodPost
		}
		req := httptest.NewRequest(verb, "/slack/"+method+"?"+query, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json; charset=utf-8")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s: %v: %s", method, err, rec.Body)
		}
		return rec.Code, rec.Header(), out
	}
}

func TestSlackAuth(t *testing.T) {
	code, _, out := slackCaller(t, "xoxb-1")("auth.test", "", "{}")
	if code != 200 || out["ok"] != true || !strings.HasPrefix(out["team_id"].(string), "T0") || !strings.HasPrefix(out["bot_id"].(string), "B0") {
		t.Errorf("auth.test: %d %v", code, out)
	}
	_, _, again := slackCaller(t, "xoxb-1")("auth.test", "", "")
	if again["team_id"] != out["team_id"] {
		t.Errorf("a token names another team: %v %v", again, out)
	}
	for token, want := range map[string]string{"": "not_authed", "xoxb-invalid-1": "invalid_auth", "invalid": "invalid_auth"} {
		if code, _, out := slackCaller(t, token)("auth.test", "", ""); code != 200 || out["ok"] != false || out["error"] != want {
			t.Errorf("token %q: %d %v", token, code, out)
		}
	}
	code, h, out := slackCaller(t, "xoxb-ratelimited")("users.list", "", "")
	if code != 429 || h.Get("Retry-After") != "1" || out["error"] != "ratelimited" {
		t.Errorf("ratelimited: %d %v %v", code, h, out)
	}
	if _, _, out := slackCaller(t, "xoxb-1")("files.upload", "", ""); out["error"] != "unknown_method" {
		t.Errorf("unknown method: %v", out)
	}
}

func TestSlackListsPage(t *testing.T) {
	call := slackCaller(t, "xoxb-pages")
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		q := url.Values{"types": {"public_channel,private_channel"}, "exclude_archived": {"true"}, "limit": {"200"}, "cursor": {cursor}}
		_, _, out := call("conversations.list", q.Encode(), "")
		if out["ok"] != true {
			t.Fatal(out)
		}
		pages++
		for _, c := range out["channels"].([]any) {
			seen[c.(map[string]any)["name"].(string)] = true
		}
		cursor = out["response_metadata"].(map[string]any)["next_cursor"].(string)
		if cursor == "" {
			break
		}
	}
	if pages != 2 || len(seen) != 27 || seen["exec"] || seen["old-launch"] || !seen["revops"] {
		t.Errorf("%d pages, %d channels: %v", pages, len(seen), seen)
	}
	_, _, out := call("conversations.list", "", "")
	for _, c := range out["channels"].([]any) {
		if c.(map[string]any)["is_private"] == true {
			t.Errorf("default types listed a private channel: %v", c)
		}
	}
	if _, _, out := call("conversations.list", "cursor=bm9wZQ==", ""); out["error"] != "invalid_cursor" {
		t.Errorf("bad cursor: %v", out)
	}
	if _, _, out := call("users.list", "limit=5000", ""); out["error"] != "invalid_limit" {
		t.Errorf("bad limit: %v", out)
	}
	users, cursor := 0, ""
	for {
		_, _, out := call("users.list", url.Values{"cursor": {cursor}}.Encode(), "")
		users += len(out["members"].([]any))
		if cursor = out["response_metadata"].(map[string]any)["next_cursor"].(string); cursor == "" {
			break
		}
	}
	if users != 42 {
		t.Errorf("%d users", users)
	}
}

func TestSlackPostMessage(t *testing.T) {
	call := slackCaller(t, "xoxb-post")
	_, _, out := call("chat.postMessage", "", `{"channel":"#sales","text":"hello"}`)
	if out["ok"] != true || out["ts"] != "1716300000.000001" || !strings.HasPrefix(out["channel"].(string), "C0") {
		t.Fatalf("post: %v", out)
	}
	ch := out["channel"].(string)
	_, _, out = call("conversations.history", "channel="+ch, "")
	msgs := out["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["text"] != "hello" {
		t.Errorf("history: %v", out)
	}
	for body, want := range map[string]string{
		`{"channel":"#random","text":"x"}`:                                       "not_in_channel",
		`{"channel":"#exec","text":"x"}`:                                         "channel_not_found",
		`{"channel":"C0NOPE","text":"x"}`:                                        "channel_not_found",
		`{"channel":"#old-launch","text":"x"}`:                                   "is_archived",
		`{"channel":"#sales"}`:                                                   "no_text",
		`{"channel":"#sales","blocks":"nope"}`:                                   "invalid_blocks_format",
		`{"channel":"#sales","text":` + `"` + strings.Repeat("x", 40_001) + `"}`: "msg_too_long",
	} {
		if _, _, out := call("chat.postMessage", "", body); out["ok"] != false || out["error"] != want {
			t.Errorf("%.60s: %v, want %s", body, out, want)
		}
	}
	code, h, out := call("chat.postMessage", "", `{"channel":"#flaky-alerts","text":"x"}`)
	if code != 429 || h.Get("Retry-After") == "" || out["error"] != "ratelimited" {
		t.Errorf("flaky first: %d %v", code, out)
	}
	if code, _, out := call("chat.postMessage", "", `{"channel":"#flaky-alerts","text":"x"}`); code != 200 || out["ok"] != true {
		t.Errorf("flaky second: %d %v", code, out)
	}
}

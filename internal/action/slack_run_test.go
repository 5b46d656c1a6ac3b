package action

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func runSlack(t *testing.T, d Deps, secrets map[string]string, in map[string]any) (map[string]any, error) {
	t.Helper()
	return Executors(d)[KindSlackMessage](context.Background(), Call{Inputs: in, Secret: secretsOf(secrets)})
}

// slackServer answers every request with code and body, recording the last
// request's JSON.
func slackServer(t *testing.T, code int, answer string) (*httptest.Server, *map[string]any, *http.Header) {
	var got map[string]any
	var headers http.Header
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &got)
		headers = r.Header.Clone()
		headers.Set("X-Path", r.URL.Path)
		w.WriteHeader(code)
		w.Write([]byte(answer))
	}))
	t.Cleanup(s.Close)
	return s, &got, &headers
}

func TestSlackWebhook(t *testing.T) {
	s, got, _ := slackServer(t, 200, "ok")
	blocks := []any{map[string]any{"type": "section"}}
	out, err := runSlack(t, loopbackDeps(), map[string]string{"HOOK": s.URL + "/services/T/B/x"},
		map[string]any{"webhook_url": "HOOK", "text": "hello", "blocks": blocks})
	if err != nil || out["ok"] != true {
		t.Fatalf("got %v, %v", out, err)
	}
	if (*got)["text"] != "hello" || len((*got)["blocks"].([]any)) != 1 {
		t.Errorf("sent %v", *got)
	}
}

func TestSlackWebhookFailures(t *testing.T) {
	hook := func(s *httptest.Server) map[string]string {
		return map[string]string{"HOOK": s.URL + "/services/secret-path"}
	}
	in := map[string]any{"webhook_url": "HOOK", "text": "hi"}

	s, _, _ := slackServer(t, 400, "invalid_payload")
	_, err := runSlack(t, loopbackDeps(), hook(s), in)
	if e := wantError(t, err, CodeUpstream, false); !strings.Contains(e.Message, "invalid_payload") {
		t.Errorf("message %q", e.Message)
	}
	s, _, _ = slackServer(t, 200, "not ok")
	_, err = runSlack(t, loopbackDeps(), hook(s), in)
	wantError(t, err, CodeUpstream, false)
	s, _, _ = slackServer(t, 500, "")
	_, err = runSlack(t, loopbackDeps(), hook(s), in)
	wantError(t, err, CodeUpstream, true)

	// The default guard refuses loopback; the error names no secret.
	_, err = runSlack(t, Deps{}, hook(s), in)
	if e := wantError(t, err, CodeBlocked, false); strings.Contains(e.Message, "secret-path") {
		t.Errorf("the webhook URL leaked: %q", e.Message)
	}
	// Plain http only to a literal address the guard would refuse.
	_, err = runSlack(t, loopbackDeps(), map[string]string{"HOOK": "http://hooks.example.com/secret-path"}, in)
	if e := wantError(t, err, CodeInvalidInput, false); strings.Contains(e.Message, "secret-path") {
		t.Errorf("the webhook URL leaked: %q", e.Message)
	}
	_, err = runSlack(t, loopbackDeps(), map[string]string{}, in)
	wantError(t, err, CodeSecret, false)
}

func TestSlackToken(t *testing.T) {
	s, got, headers := slackServer(t, 200, `{"ok":true,"channel":"C123","ts":"1700000000.000100"}`)
	d := loopbackDeps()
	d.SlackAPIURL = s.URL + "/api"
	secrets := map[string]string{"BOT": "xoxb-secret"}
	out, err := runSlack(t, d, secrets, map[string]any{"token": "BOT", "channel": "#general", "text": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if out["ok"] != true || out["channel"] != "C123" || out["ts"] != "1700000000.000100" {
		t.Errorf("output %v", out)
	}
	if h := *headers; h.Get("Authorization") != "Bearer xoxb-secret" || h.Get("X-Path") != "/api/chat.postMessage" ||
		!strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		t.Errorf("headers %v", h)
	}
	if (*got)["channel"] != "#general" || (*got)["text"] != "hi" {
		t.Errorf("sent %v", *got)
	}

	for answer, retryable := range map[string]bool{"channel_not_found": false, "ratelimited": true} {
		s, _, _ := slackServer(t, 200, `{"ok":false,"error":"`+answer+`"}`)
		d.SlackAPIURL = s.URL
		_, err := runSlack(t, d, secrets, map[string]any{"token": "BOT", "channel": "C1", "text": "hi"})
		if e := wantError(t, err, CodeUpstream, retryable); !strings.Contains(e.Message, answer) {
			t.Errorf("message %q", e.Message)
		}
	}
}

func TestSlackCheck(t *testing.T) {
	spec := slackSpec()
	for _, tc := range []struct {
		in   map[string]any
		want string // the input with a problem, "-" for none
	}{
		{map[string]any{"channel": "#sales", "text": "hi"}, "-"},
		{map[string]any{"text": "hi"}, "channel"},
		{map[string]any{"webhook_url": "H", "text": "hi"}, "-"},
		{map[string]any{"token": "T", "text": "hi"}, "channel"},
		{map[string]any{"token": "T", "webhook_url": "H", "text": "hi"}, ""},
		{map[string]any{"channel": "C1"}, "text"},
	} {
		ps := spec.Check(tc.in)
		switch {
		case tc.want == "-" && len(ps) > 0:
			t.Errorf("%v: %v", tc.in, ps)
		case tc.want != "-" && (len(ps) != 1 || ps[0].Input != tc.want):
			t.Errorf("%v: %v, want one on %q", tc.in, ps, tc.want)
		}
	}
}

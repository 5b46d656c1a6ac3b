package integration_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// slackConn is a connection of token to the sandbox's Slack; sleeps are
// recorded, not slept.
func slackConn(t *testing.T, token string) (*integration.Conn, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	t.Cleanup(srv.Close)
	var slept []time.Duration
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"slack": srv.URL + "/slack"},
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
	return k.Conn(integration.Slack, integration.Credentials{"bot_token": token}, ""), &slept
}

func TestSlackValidation(t *testing.T) {
	s, ok := integration.Lookup("slack")
	if !ok || s != integration.Slack || s.Source != integration.SourceAPIKey || s.DefaultURL != "https://slack.com/api" {
		t.Fatalf("Lookup(slack) = %+v, %v", s, ok)
	}
	for _, tc := range []struct {
		name  string
		creds integration.Credentials
		want  string // the field with a problem, "" for none
	}{
		{"bot token", integration.Credentials{"bot_token": "xoxb-1-2-abc"}, ""},
		{"missing", integration.Credentials{}, "bot_token"},
		{"user token", integration.Credentials{"bot_token": "xoxp-1-2-abc"}, "bot_token"},
		{"app token", integration.Credentials{"bot_token": "xapp-1-abc"}, "bot_token"},
		{"unknown field", integration.Credentials{"bot_token": "xoxb-1", "token": "x"}, "token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fes := s.Validate(tc.creds)
			if tc.want == "" {
				if len(fes) > 0 {
					t.Fatalf("problems %v", fes)
				}
				return
			}
			if len(fes) != 1 || fes[0].Field != tc.want || strings.Contains(fes[0].Message, "abc") {
				t.Fatalf("problems %v, want one on %s", fes, tc.want)
			}
		})
	}
	if fes := s.Validate(integration.Credentials{"bot_token": "xoxp-1"}); !strings.Contains(fes[0].Message, "xoxb-") {
		t.Errorf("message %q does not say what a bot token looks like", fes[0].Message)
	}
}

func TestSlackProbeAgainstSandbox(t *testing.T) {
	c, _ := slackConn(t, "xoxb-good")
	if err := integration.Slack.Probe(t.Context(), c); err != nil {
		t.Fatalf("good token: %v", err)
	}
	c, _ = slackConn(t, "xoxb-invalid-1")
	err := integration.Slack.Probe(t.Context(), c)
	if !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "invalid_auth") {
		t.Fatalf("invalid token: %v", err)
	}
	c, _ = slackConn(t, "")
	if err := integration.Slack.Probe(t.Context(), c); !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "not_authed") {
		t.Fatalf("no token: %v", err)
	}
	// Rate limited: retried with Slack's Retry-After, then a 429 error.
	c, slept := slackConn(t, "xoxb-ratelimited-1")
	err = integration.Slack.Probe(t.Context(), c)
	var se *integration.Error
	if !errors.As(err, &se) || se.Status != http.StatusTooManyRequests || se.Message != "ratelimited" || se.RetryAfter != time.Second {
		t.Fatalf("rate limited: %#v", err)
	}
	if len(*slept) != integration.Attempts-1 || (*slept)[0] != time.Second {
		t.Errorf("slept %v", *slept)
	}
	// Not Slack at that URL.
	c, _ = slackConn(t, "xoxb-good")
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/slack") + "/hubspot"
	if err := integration.Slack.Probe(t.Context(), c); err == nil || errors.Is(err, integration.ErrRejected) {
		t.Fatalf("wrong URL: %v", err)
	}
}

func TestSlackStatus(t *testing.T) {
	for code, want := range map[string]int{
		"invalid_auth": 401, "not_authed": 401, "token_revoked": 401, "account_inactive": 401,
		"channel_not_found": 404, "ratelimited": 429, "not_in_channel": 400, "no_text": 400,
		"missing_scope": 403, "internal_error": 503,
	} {
		if got := integration.SlackStatus(code); got != want {
			t.Errorf("SlackStatus(%s) = %d, want %d", code, got, want)
		}
	}
}

func TestParseSlackEnvelope(t *testing.T) {
	for body, want := range map[string]string{
		`{"ok":true,"channel":"C1"}`:                "",
		`{"ok":false,"error":"invalid_auth"}`:       "invalid_auth",
		`{"ok":false}`:                              "unknown_error",
		`{"ok":false,"error":"bad\ncode <b>"}`:      "badcodeb",
		`{"ok":false,"error":"channel_not_found"} `: "channel_not_found",
	} {
		got, err := integration.ParseSlackEnvelope([]byte(body))
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", body, got, err, want)
		}
	}
	for _, body := range []string{``, `ok`, `[]`, `{"error":"x"}`, `{"ok":"yes"}`} {
		if _, err := integration.ParseSlackEnvelope([]byte(body)); err == nil {
			t.Errorf("%q: no error", body)
		}
	}
}

func FuzzParseSlackEnvelope(f *testing.F) {
	for _, s := range []string{`{"ok":true}`, `{"ok":false,"error":"invalid_auth"}`, `{"ok":false,"error":"é\u0000x"}`, `null`, `{"ok":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		code, err := integration.ParseSlackEnvelope(body)
		if err != nil {
			if code != "" {
				t.Fatalf("error %v with code %q", err, code)
			}
			return
		}
		if len(code) > 100 || strings.ContainsFunc(code, func(r rune) bool {
			return !(r == '_' || r == '.' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			t.Fatalf("code %q is not a clean Slack code", code)
		}
		_ = integration.SlackStatus(code)
	})
}

func TestSlackLookupsAgainstSandbox(t *testing.T) {
	c, _ := slackConn(t, "xoxb-lookups")
	channels := func(params url.Values) []integration.SlackChannel {
		t.Helper()
		out, err := integration.Slack.Lookups["channels"](t.Context(), c, params)
		if err != nil {
			t.Fatal(err)
		}
		return out.([]integration.SlackChannel)
	}
	all := channels(url.Values{})
	// 32 channels: 2 archived and 3 private without the bot are never listed.
	if len(all) != 27 {
		t.Fatalf("%d channels: %+v", len(all), all)
	}
	var private, nonMember int
	for i, ch := range all {
		if !strings.HasPrefix(ch.ID, "C0") || ch.NumMembers == nil || *ch.NumMembers < 1 {
			t.Errorf("channel %+v", ch)
		}
		if i > 0 && all[i-1].Name > ch.Name {
			t.Errorf("not sorted by name: %s before %s", all[i-1].Name, ch.Name)
		}
		if ch.IsPrivate {
			private++
		}
		if !ch.IsMember {
			nonMember++
		}
		if ch.Name == "old-launch" || ch.Name == "exec" {
			t.Errorf("listed %s", ch.Name)
		}
	}
	if private != 2 || nonMember == 0 {
		t.Errorf("%d private, %d without the bot", private, nonMember)
	}
	members := channels(url.Values{"member_only": {"true"}})
	for _, ch := range members {
		if !ch.IsMember {
			t.Errorf("member_only listed %+v", ch)
		}
	}
	if len(members) == 0 || len(members) >= len(all) {
		t.Errorf("member_only: %d of %d", len(members), len(all))
	}
	if got := channels(url.Values{"search": {"#SALES"}}); len(got) != 2 || got[0].Name != "sales" || got[1].Name != "sales-leadership" {
		t.Errorf("search sales: %+v", got)
	}
	if _, err := integration.Slack.Lookups["channels"](t.Context(), c, url.Values{"member_only": {"maybe"}}); err == nil {
		t.Error("member_only=maybe accepted")
	} else if pe := (*integration.ParamError)(nil); !errors.As(err, &pe) || pe.Param != "member_only" {
		t.Errorf("member_only=maybe: %v", err)
	}

	id, err := integration.SlackChannelID(t.Context(), c, "#revops")
	if err != nil || !strings.HasPrefix(id, "C0") {
		t.Errorf("#revops: %q, %v", id, err)
	}
	_, err = integration.SlackChannelID(t.Context(), c, "#exec")
	var se *integration.Error
	if !errors.As(err, &se) || se.Status != 404 || se.Message != "channel_not_found" {
		t.Errorf("#exec: %v", err)
	}

	out, err := integration.Slack.Lookups["users"](t.Context(), c, url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	users := out.([]integration.SlackUser)
	// 40 people, one deactivated; the bot and Slackbot are left out.
	if len(users) != 39 {
		t.Fatalf("%d users", len(users))
	}
	for _, u := range users {
		if !strings.HasPrefix(u.ID, "U0") || u.Name == "" || u.RealName == "" || !strings.Contains(u.Email, "@") || u.IsBot {
			t.Errorf("user %+v", u)
		}
	}
	first := users[0]
	out, err = integration.Slack.Lookups["users"](t.Context(), c, url.Values{"search": {strings.ToUpper(first.Email)}})
	if got := out.([]integration.SlackUser); err != nil || len(got) != 1 || got[0].ID != first.ID {
		t.Errorf("search %s: %+v, %v", first.Email, got, err)
	}

	bad, _ := slackConn(t, "xoxb-invalid")
	if _, err := integration.Slack.Lookups["users"](t.Context(), bad, url.Values{}); !errors.Is(err, integration.ErrRejected) {
		t.Errorf("invalid token: %v", err)
	}
}

// TestSlackPagingBound stops following cursors at the bound, even when a
// service keeps answering one.
func TestSlackPagingBound(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true,"channels":[{"id":"C1","name":"a"}],"response_metadata":{"next_cursor":"c` + r.URL.Query().Get("limit") + string(rune('a'+calls%26)) + `"}}`))
	}))
	defer srv.Close()
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"slack": srv.URL}}
	c := k.Conn(integration.Slack, integration.Credentials{"bot_token": "xoxb-1"}, "")
	if _, err := integration.Slack.Lookups["channels"](t.Context(), c, url.Values{}); err != nil {
		t.Fatal(err)
	}
	if calls != 100 {
		t.Errorf("%d calls", calls)
	}
}

package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// The console's Settings (issue 39) in a real browser, on each engine: a key
// with only searches:read created in the console, its secret read once on the
// answer page, a session with it (Searches work, key management and search
// creation are refused with their messages), its revocation by the admin key;
// a secret refused at its field, then added and deleted; HubSpot (the
// sandbox's) refused at its field, connected, healthy, disconnected; the
// account's plan; and the Overview's chart of credits per day.

// fieldMessage is the API's message for field in its refusal ("" when none).
func fieldMessage(e *client.APIError, field string) string {
	if e == nil {
		return ""
	}
	for _, d := range e.Details {
		if d.Field == field {
			return d.Message
		}
	}
	return ""
}

func TestConsoleSettingsInBrowser(t *testing.T) {
	// Parallel: each walk has its own browser and server; together they
	// wait on pages and ticks, not on each other.
	t.Parallel()
	tb := newTab(t)
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		b, ts, cancel := consoleWalk(t, tb, engine, nil)
		defer cancel()
		c := ts.Client

		// Credits spent today, through the API: the chart has one day's bar.
		createSearch(t, c, map[string]any{"name": "Chart watch", "keywords": []string{"CRM"}, "frequency": "daily"})
		var ledger []struct {
			Feature string `json:"feature"`
			Created string `json:"created"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/credits/usage?limit=100", nil, 200).Data(&ledger); err != nil {
			t.Fatal(err)
		}
		days := map[string]bool{}
		for _, e := range ledger {
			days[e.Created[:10]] = true
		}
		b.open("/", "#credits-chart")
		b.wantCount("#credits-chart title#credits-chart-title", 1)
		b.wantCount("#credits-chart desc#credits-chart-desc", 1)
		b.wantCount("#credits-chart g.day", len(days))
		b.wantCount(`#credits-chart g.legend g.key[data-feature="search_create"]`, 1)
		if n := b.count("#credits-by-day tbody th[scope=row]"); n != len(days) {
			t.Errorf("the chart's table has %d days, the ledger %d", n, len(days))
		}
		b.checkSignedIn("Overview with the chart")

		// A key with only searches:read, created in the console.
		b.open("/settings/keys", "#create-key")
		b.wantCount("#keys tbody tr", 1)
		b.fill("#name", "Reader")
		b.eval(`document.getElementById('perm-searches-read').checked = true, ''`)
		b.checkSignedIn("Settings: API keys")
		b.submit("create a key", "#create-key-submit", "#new-key-secret")
		secret := b.text("#new-key-secret")
		if !strings.HasPrefix(secret, "trawl_") || !strings.Contains(b.text("#new-key-permissions"), "searches:read") {
			t.Fatalf("the answer page shows secret %q, permissions %q", secret, b.text("#new-key-permissions"))
		}
		b.checkSignedIn("Settings: key created")
		b.open("/settings/keys", "#keys")
		if strings.Contains(b.eval(`document.documentElement.outerHTML`), secret) {
			t.Error("the keys page shows the secret again")
		}
		prefix := secret[:14]
		b.wantCount(`#keys tr[data-prefix="`+prefix+`"]`, 1)
		b.screenshot("settings")

		// Signed in with it: Searches work; keys and search creation do not.
		b.navigateBy("sign out", chromedp.Click(chromedp.ID("signout")), "#key")
		b.signIn(secret)
		b.open("/searches", "#searches")
		b.checkSignedIn("Searches with searches:read")
		b.open("/settings/keys", "#keys-denied")
		if msg := b.text("#keys-denied"); !strings.Contains(msg, "lacks the permission *") {
			t.Errorf("#keys-denied says %q", msg)
		}
		b.wantCount("#keys", 0)
		b.wantCount("#create-key", 0)
		b.checkSignedIn("Settings: API keys without *")
		// Secrets and connections: the API's refusal in place of the list,
		// the permission it lacks in place of each form.
		b.open("/settings/secrets", "#secrets-denied")
		if msg := b.text("#secrets-denied"); !strings.Contains(msg, "secrets:read") {
			t.Errorf("#secrets-denied says %q", msg)
		}
		if msg := b.text("#secrets-write-denied"); !strings.Contains(msg, "secrets:write") {
			t.Errorf("#secrets-write-denied says %q", msg)
		}
		b.wantCount("#add-secret", 0)
		b.checkSignedIn("Settings: secrets without secrets:read")
		b.open("/settings/connections", "#connections-denied")
		if msg := b.text("#connections-denied"); !strings.Contains(msg, "secrets:read") {
			t.Errorf("#connections-denied says %q", msg)
		}
		b.open("/", "#engagements-today")
		if msg := b.text("#engagements-today"); !strings.Contains(msg, "topics:read") {
			t.Errorf("the Overview's engagements with searches:read: %q", msg)
		}
		reader := client.New(ts.URL, secret)
		refused := mustDo(t, reader, http.MethodPost, "/v1/searches/microblog/posts", map[string]any{"name": "No", "keywords": []string{"x"}}, 403).Err()
		if !strings.Contains(refused.Message, "searches:write") {
			t.Errorf("creating a search with searches:read: %q", refused.Message)
		}

		// Back as the admin: revoke the reader, after a confirmation.
		b.navigateBy("sign out", chromedp.Click(chromedp.ID("signout")), "#key")
		b.signIn(ts.Key)
		b.open("/settings/keys", "#keys")
		b.submit("revoke link", `#keys tr[data-prefix="`+prefix+`"] a.revoke`, "#confirm")
		b.wantCount("#confirm-warning", 0)
		b.checkSignedIn("Settings: revoke confirmation")
		b.submit("revoke", "#confirm", "#flash")
		b.wantPath("/settings/keys")
		if st := b.text(`#keys tr[data-prefix="` + prefix + `"] td.status`); !strings.HasPrefix(st, "revoked") {
			t.Errorf("the revoked key's status reads %q", st)
		}
		mustDo(t, reader, http.MethodGet, "/v1/searches", nil, 401)

		// Secrets: a bad name gets the API's message at the field.
		badName := mustDo(t, c, http.MethodPost, "/v1/secrets", map[string]string{"name": "1bad", "value": "x"}, 400).Err()
		wantMsg := fieldMessage(badName, "body.name")
		b.open("/settings/secrets", "#add-secret")
		b.fill("#name", "1bad")
		b.fill("#value", "hooks.example/very-secret")
		b.submit("add a bad secret", "#add-secret-submit", "#name-error")
		if got := b.text("#name-error"); wantMsg == "" || !strings.Contains(got, wantMsg) {
			t.Errorf("#name-error says %q, want the API's %q", got, wantMsg)
		}
		if inv := b.eval(`document.getElementById('name').getAttribute('aria-invalid') + '|' + document.getElementById('name').getAttribute('aria-describedby')`); !strings.HasPrefix(inv, "true|") || !strings.Contains(inv, "name-error") {
			t.Errorf("#name's aria-invalid|aria-describedby = %q", inv)
		}
		if strings.Contains(b.eval(`document.documentElement.outerHTML`), "very-secret") {
			t.Error("the refused form shows the secret's value")
		}
		b.checkSignedIn("Settings: secret refused")
		b.fill("#name", "SLACK_WEBHOOK")
		b.fill("#value", "hooks.example/very-secret")
		b.submit("add a secret", "#add-secret-submit", "#flash")
		b.wantCount("#secret-SLACK_WEBHOOK", 1)
		if strings.Contains(b.eval(`document.documentElement.outerHTML`), "very-secret") {
			t.Error("the secrets page shows a value")
		}
		b.checkSignedIn("Settings: secrets")
		b.submit("delete link", "#secret-SLACK_WEBHOOK a.delete", "#confirm")
		b.submit("delete", "#confirm", "#flash")
		b.wantCount("#secret-SLACK_WEBHOOK", 0)

		// HubSpot: a blank token refused at its field, then connected.
		blank := mustDo(t, c, http.MethodPost, "/v1/integrations/hubspot", map[string]any{"credentials": map[string]string{"access_token": " "}}, 400).Err()
		wantMsg = fieldMessage(blank, "body.credentials.access_token")
		b.open("/settings/connections", "#connections")
		b.wantCount("#connection-hubspot.not-connected", 1)
		b.checkSignedIn("Settings: connections")
		b.submit("connect link", "#connect-hubspot", "#connect-form")
		b.fill("#credentials-access_token", " ")
		b.submit("connect with a blank token", "#connect-submit", "#credentials-access_token-error")
		if got := b.text("#credentials-access_token-error"); wantMsg == "" || !strings.Contains(got, wantMsg) {
			t.Errorf("#credentials-access_token-error says %q, want the API's %q", got, wantMsg)
		}
		b.checkSignedIn("Settings: connect refused")
		// A token HubSpot rejects: connected, and the probe's reason said at once.
		b.fill("#credentials-access_token", "invalid-revoked")
		b.submit("connect with a rejected token", "#connect-submit", "#flash")
		if msg := b.text("#flash"); !strings.Contains(msg, "refuses the credentials") || !strings.Contains(msg, "token rejected") {
			t.Errorf("the flash after a rejected token says %q", msg)
		}
		b.submit("replace link", "#connect-hubspot", "#connect-form")
		b.fill("#credentials-access_token", "pat-na1-11111111-2222-3333-4444-555555555555")
		b.submit("connect", "#connect-submit", "#flash")
		if msg := b.text("#flash"); !strings.Contains(msg, "accepts the credentials") {
			t.Errorf("the flash after a good token says %q", msg)
		}
		b.wantCount("#connection-hubspot.connected", 1)
		b.swap("check health", "#check-hubspot", "#health-hubspot .health-ok")
		b.checkSignedIn("Settings: connection healthy")
		// Without htmx the same link is a whole page with the health in its row.
		b.open("/settings/connections/hubspot/health", "#health-hubspot .health-ok")
		b.submit("disconnect link", "#disconnect-hubspot", "#confirm")
		b.submit("disconnect", "#confirm", "#flash")
		b.wantCount("#connection-hubspot.not-connected", 1)

		// The account and its plan, as the API says.
		var acct struct {
			Subscription struct{ Plan string } `json:"subscription"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/account", nil, 200).Data(&acct); err != nil {
			t.Fatal(err)
		}
		b.open("/settings", "#account-plan")
		if got := b.text("#account-plan"); acct.Subscription.Plan == "" || got != acct.Subscription.Plan {
			t.Errorf("#account-plan = %q, the API says %q", got, acct.Subscription.Plan)
		}
		b.checkSignedIn("Settings: account")
	})
}

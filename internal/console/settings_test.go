package console

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
)

var newSecretRE = regexp.MustCompile(`id="new-key-secret"[^>]*>(trawl_[0-9a-f]+)<`)

// TestConsoleKeys: a key holding '*' lists, creates (the secret once, on
// the answer only) and revokes keys, its own with a warning; a key without
// '*' sees why not and is refused; another account's key is not found.
func TestConsoleKeys(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		f := newFixture(t, engine)
		admin := f.browser(t)
		admin.signIn(f.key)

		resp, page := admin.do("GET", "/settings/keys", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="keys"`) || !strings.Contains(page, "(this key)") {
			t.Fatalf("GET /settings/keys = %d\n%s", resp.StatusCode, page)
		}
		token := csrf(t, page)

		// Nothing chosen, a past expiry: each message at its field, the name kept.
		resp, page = admin.do("POST", "/settings/keys", url.Values{"csrf": {token}, "name": {"CI <bot>"}, "expires": {"2026-11-01"}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="permissions-error">Choose at least one permission.`) ||
			!strings.Contains(page, `id="expires-error"`) || !strings.Contains(page, `value="CI &lt;bot&gt;"`) {
			t.Fatalf("create without permissions = %d\n%s", resp.StatusCode, page)
		}
		// Full archive this key lacks.
		resp, page = admin.do("POST", "/settings/keys", url.Values{"csrf": {token}, "permissions": {"searches:read"}, "full_archive": {"1"}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="full_archive-error"`) {
			t.Fatalf("create with full archive = %d\n%s", resp.StatusCode, page)
		}

		resp, page = admin.do("POST", "/settings/keys", url.Values{"csrf": {token}, "name": {"reader"}, "permissions": {"searches:read"}, "expires": {"2027-01-31"}})
		m := newSecretRE.FindStringSubmatch(page)
		if resp.StatusCode != http.StatusCreated || m == nil {
			t.Fatalf("create = %d\n%s", resp.StatusCode, page)
		}
		secret := m[1]
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("the secret's page is sent with Cache-Control %q", cc)
		}
		for _, ck := range resp.Cookies() {
			if strings.Contains(ck.Value, secret) || strings.Contains(ck.Value, url.QueryEscape(secret)) {
				t.Errorf("cookie %s holds the secret", ck.Name)
			}
		}
		_, page = admin.do("GET", "/settings/keys", nil)
		if strings.Contains(page, secret) || !strings.Contains(page, "reader") || !strings.Contains(page, "<code>searches:read</code>") {
			t.Fatalf("the list after create shows the secret, or not the key:\n%s", page)
		}
		keys, err := f.st.Keys(t.Context(), f.acct.ID)
		if err != nil || len(keys) != 2 || keys[1].Label != "reader" || keys[1].ExpiresAt == nil || keys[1].FullArchive {
			t.Fatalf("keys = %+v, %v", keys, err)
		}
		limitedID := keys[1].ID

		// The new key signs in; it may not manage keys.
		reader := f.browser(t)
		if resp, _ := reader.signIn(secret); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Fatalf("sign-in with the new key = %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, page = reader.do("GET", "/settings/keys", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "The API key lacks the permission *.") || strings.Contains(page, `id="keys"`) || strings.Contains(page, f.keyID) {
			t.Fatalf("keys page with searches:read = %d\n%s", resp.StatusCode, page)
		}
		rtoken := csrf(t, page)
		if resp, _ := reader.do("POST", "/settings/keys", url.Values{"csrf": {rtoken}, "permissions": {"searches:read"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("create with searches:read = %d, want 403", resp.StatusCode)
		}
		if resp, _ := reader.do("POST", "/settings/keys/"+f.keyID+"/revoke", url.Values{"csrf": {rtoken}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("revoke with searches:read = %d, want 403", resp.StatusCode)
		}

		// Another account's key: not found, and not revoked.
		other := auth.Account{Name: "other", Plan: auth.PlanStarter}
		if err := f.st.CreateAccount(t.Context(), &other); err != nil {
			t.Fatal(err)
		}
		_, otherID := f.newKey(t, other.ID, auth.PermAll)
		if resp, _ := admin.do("POST", "/settings/keys/"+otherID+"/revoke", url.Values{"csrf": {token}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("revoke another account's key = %d, want 404", resp.StatusCode)
		}
		if ok, _ := f.st.Keys(t.Context(), other.ID); ok[0].RevokedAt != nil {
			t.Error("another account's key was revoked")
		}

		// Revoke the reader: confirm first (no warning), then its session ends.
		_, page = admin.do("GET", "/settings/keys/"+limitedID+"/revoke", nil)
		if !strings.Contains(page, `id="confirm"`) || strings.Contains(page, `id="confirm-warning"`) {
			t.Fatalf("the confirm page:\n%s", page)
		}
		resp, _ = admin.do("POST", "/settings/keys/"+limitedID+"/revoke", url.Values{"csrf": {token}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/settings/keys" {
			t.Fatalf("revoke = %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		if resp, _ := reader.do("GET", "/settings/keys", nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
			t.Errorf("the revoked key's session: GET = %d %s, want 303 /signin", resp.StatusCode, resp.Header.Get("Location"))
		}
		_, page = admin.do("GET", "/settings/keys", nil)
		if !strings.Contains(page, "revoked") {
			t.Errorf("the list does not show the revoked key:\n%s", page)
		}

		// Revoking one's own key warns, then signs out.
		_, page = admin.do("GET", "/settings/keys/"+f.keyID+"/revoke", nil)
		if !strings.Contains(page, `id="confirm-warning"`) || !strings.Contains(page, "signed in with") {
			t.Fatalf("own key's confirm page has no warning:\n%s", page)
		}
		resp, _ = admin.do("POST", "/settings/keys/"+f.keyID+"/revoke", url.Values{"csrf": {token}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
			t.Fatalf("revoke own key = %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		if resp, _ := admin.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("after revoking its own key the session still opens / (%d)", resp.StatusCode)
		}
	})
}

// TestConsoleOverviewChart: the period's spends drawn one bar group per day
// with spends, the same figures in the table; topics' figures say why a key
// or plan may not read them.
func TestConsoleOverviewChart(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		f := newFixture(t, engine)
		now := f.clk.Now()
		spend := func(at time.Time, feature credits.Feature, n int64) {
			t.Helper()
			f.clk.Set(at)
			if _, err := f.st.Spend(t.Context(), f.acct.ID, feature, n, 1000, "x"); err != nil {
				t.Fatal(err)
			}
		}
		spend(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), credits.SearchCreate, 2)
		spend(time.Date(2026, 11, 1, 13, 0, 0, 0, time.UTC), credits.WorkflowExecution, 3)
		spend(time.Date(2026, 10, 31, 13, 0, 0, 0, time.UTC), credits.WorkflowExecution, 9) // last period
		spend(now, credits.SearchCreate, 1)
		b := f.browser(t)
		b.signIn(f.key)
		resp, page := b.do("GET", "/", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<svg id="credits-chart"`) {
			t.Fatalf("overview = %d\n%s", resp.StatusCode, page)
		}
		if n := strings.Count(page, `<g class="day"`); n != 2 {
			t.Errorf("%d day groups, want 2 (Nov 1 and Nov 3)", n)
		}
		for _, want := range []string{`data-day="2026-11-01" data-total="5"`, `data-day="2026-11-03" data-total="1"`,
			`<time datetime="2026-11-01">2026-11-01</time></th><td class="num">2</td><td class="num">3</td><td class="num">5</td>`,
			"2026-11-01 to 2026-11-03: 6 in all",
			// The account is on STARTER: topics are the plan's to refuse.
			`<span id="active-topics" class="denied">The STARTER plan does not include topics.</span>`} {
			if !strings.Contains(page, want) {
				t.Errorf("the overview lacks %s", want)
			}
		}
		if strings.Contains(page, `data-total="9"`) {
			t.Error("the last period's spend is drawn")
		}
		key, _ := f.newKey(t, f.acct.ID, auth.PermSearchesRead)
		reader := f.browser(t)
		reader.signIn(key)
		_, page = reader.do("GET", "/", nil)
		if !strings.Contains(page, `<span id="engagements-today" class="denied">The API key lacks the permission topics:read.</span>`) {
			t.Errorf("the overview with searches:read does not say engagements need topics:read:\n%s", page)
		}
	})
}

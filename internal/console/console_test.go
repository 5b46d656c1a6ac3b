package console

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/workflow"
)

// fixture is a console over a real store with an injected clock.
type fixture struct {
	st    *store.Store
	clk   *clock.Fake
	srv   *httptest.Server
	acct  auth.Account
	key   string // every permission
	keyID string
}

func newFixture(t *testing.T, engine store.Dialect) *fixture {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
	st := storetest.Open(t, engine, clk.Now)
	cfg, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, clk: clk}
	f.acct = auth.Account{Name: "acme", Plan: auth.PlanStarter}
	if err := st.CreateAccount(t.Context(), &f.acct); err != nil {
		t.Fatal(err)
	}
	f.key, f.keyID = f.newKey(t, f.acct.ID, auth.PermAll)
	f.srv = httptest.NewServer(New(Deps{Config: cfg, Store: st, Now: clk.Now}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) newKey(t *testing.T, accountID string, perms ...auth.Permission) (string, string) {
	t.Helper()
	k := auth.Key{AccountID: accountID, Permissions: perms}
	secret, err := f.st.CreateKey(t.Context(), &k)
	if err != nil {
		t.Fatal(err)
	}
	return secret, k.ID
}

// browser is an HTTP client with a cookie jar that does not follow redirects.
type browser struct {
	t   *testing.T
	c   *http.Client
	url string
}

func (f *fixture) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, url: f.srv.URL, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(method, path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.t.Context(), method, b.url+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp, string(out)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the csrf field of the page's (first) form.
func csrf(t *testing.T, page string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf field in\n%s", page)
	}
	return html.UnescapeString(m[1])
}

// signIn signs in with key and returns the overview page.
func (b *browser) signIn(key string) (*http.Response, string) {
	b.t.Helper()
	_, page := b.do("GET", "/signin", nil)
	return b.do("POST", "/signin", url.Values{"csrf": {csrf(b.t, page)}, "key": {key}})
}

func forEachEngine(t *testing.T, body func(t *testing.T, engine store.Dialect)) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) { body(t, engine) })
	}
}

func TestConsoleSignIn(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		f := newFixture(t, engine)
		b := f.browser(t)
		resp, _ := b.do("GET", "/", nil)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
			t.Fatalf("GET / signed out = %d %q, want 303 to /signin", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, page := b.do("GET", "/signin", nil)
		for _, want := range []string{`<form method="post" action="/signin"`, `<input type="password" name="key" id="key" autocomplete="off"`,
			`<label for="key">`, `<button type="submit" id="signin">Sign in</button>`, `<html lang="en">`, `<main id="main">`} {
			if !strings.Contains(page, want) {
				t.Errorf("sign-in page lacks %s", want)
			}
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /signin = %d", resp.StatusCode)
		}

		// A wrong key: 401, the form again, the API's message.
		resp, page = b.do("POST", "/signin", url.Values{"csrf": {csrf(t, page)}, "key": {"trawl_nope"}})
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, `<p class="error" id="key-error">The API key is unknown or revoked.</p>`) {
			t.Fatalf("wrong key = %d\n%s", resp.StatusCode, page)
		}
		// A good key: 303 to / with the session cookie as the contract says.
		resp, _ = b.signIn(f.key)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Fatalf("good key = %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		var sc *http.Cookie
		for _, c := range resp.Cookies() {
			if c.Name == sessionCookie {
				sc = c
			}
		}
		if sc == nil || !sc.HttpOnly || sc.SameSite != http.SameSiteStrictMode || sc.Path != "/" || sc.Secure {
			t.Fatalf("session cookie = %+v", sc)
		}
		resp, page = b.do("GET", "/", nil)
		for _, want := range []string{`<h1>Overview</h1>`, `<nav aria-label="Main">`, `<a href="/"`, `<a href="/searches"`,
			`<form method="post" action="/signout">`, `<button type="submit" id="signout">Sign out</button>`,
			`<span id="credits-left">1000</span>`, `<span id="credits-used">0</span>`, `<span id="active-searches">0</span>`,
			`<table id="failed-executions">`, `<p id="no-failures">`} {
			if !strings.Contains(page, want) {
				t.Errorf("overview lacks %s", want)
			}
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET / = %d", resp.StatusCode)
		}

		// Revoking the key ends the session at the next request.
		if err := f.st.RevokeKey(t.Context(), f.keyID); err != nil {
			t.Fatal(err)
		}
		if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("GET / after revocation = %d, want 303", resp.StatusCode)
		}
		// And the revoked key signs in no more.
		resp, page = f.browser(t).signIn(f.key)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, "unknown or revoked") {
			t.Fatalf("revoked key = %d", resp.StatusCode)
		}
	})
}

func TestConsoleSecureCookieBehindTLS(t *testing.T) {
	f := newFixture(t, store.SQLite)
	b := f.browser(t)
	_, page := b.do("GET", "/signin", nil)
	req, _ := http.NewRequestWithContext(t.Context(), "POST", f.srv.URL+"/signin",
		strings.NewReader(url.Values{"csrf": {csrf(t, page)}, "key": {f.key}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Proto", "https")
	u, _ := url.Parse(f.srv.URL)
	for _, c := range b.c.Jar.Cookies(u) {
		req.AddCookie(c)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie && !c.Secure {
			t.Fatalf("session cookie behind TLS is not Secure: %+v", c)
		}
	}
}

func TestConsoleCSRF(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		f := newFixture(t, engine)
		b := f.browser(t)
		// Sign-in without the form's token, or with another one: 403.
		b.do("GET", "/signin", nil)
		for _, tok := range []string{"", newToken(), "x"} {
			if resp, _ := b.do("POST", "/signin", url.Values{"csrf": {tok}, "key": {f.key}}); resp.StatusCode != http.StatusForbidden {
				t.Fatalf("sign-in with csrf %q = %d, want 403", tok, resp.StatusCode)
			}
		}
		// Without the pre-session cookie, the page's token alone: 403.
		_, page := f.browser(t).do("GET", "/signin", nil)
		if resp, _ := f.browser(t).do("POST", "/signin", url.Values{"csrf": {csrf(t, page)}, "key": {f.key}}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("sign-in without the csrf cookie = %d, want 403", resp.StatusCode)
		}
		if resp, _ := b.signIn(f.key); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in = %d", resp.StatusCode)
		}
		// Sign-out without the session's token: 403, and the session stays.
		if resp, _ := b.do("POST", "/signout", url.Values{"csrf": {"forged"}}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("sign-out with a forged token = %d, want 403", resp.StatusCode)
		}
		if resp, _ := b.do("POST", "/signout", url.Values{}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("sign-out without a token = %d, want 403", resp.StatusCode)
		}
		if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET / after refused sign-outs = %d, want 200", resp.StatusCode)
		}
	})
}

func TestConsoleSignOutAndExpiry(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		f := newFixture(t, engine)
		b := f.browser(t)
		b.signIn(f.key)
		_, page := b.do("GET", "/", nil)
		resp, _ := b.do("POST", "/signout", url.Values{"csrf": {csrf(t, page)}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
			t.Fatalf("sign-out = %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("GET / after sign-out = %d, want 303", resp.StatusCode)
		}

		// Expiry: 12 h by default, by the injected clock.
		b = f.browser(t)
		b.signIn(f.key)
		f.clk.Advance(12*time.Hour - time.Second)
		if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET / before expiry = %d, want 200", resp.StatusCode)
		}
		f.clk.Advance(time.Second)
		if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("GET / at expiry = %d, want 303", resp.StatusCode)
		}
		if n, err := f.st.PruneConsoleSessions(t.Context(), f.clk.Now()); err != nil || n < 1 {
			t.Fatalf("PruneConsoleSessions = %d, %v", n, err)
		}

		// A key that expires ends its session with it.
		exp := f.clk.Now().Add(time.Hour)
		k := auth.Key{AccountID: f.acct.ID, Permissions: []auth.Permission{auth.PermAll}, ExpiresAt: &exp}
		secret, err := f.st.CreateKey(t.Context(), &k)
		if err != nil {
			t.Fatal(err)
		}
		b = f.browser(t)
		b.signIn(secret)
		if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET / with the expiring key = %d", resp.StatusCode)
		}
		f.clk.Advance(time.Hour)
		if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("GET / after the key expired = %d, want 303", resp.StatusCode)
		}
		if resp, page := f.browser(t).signIn(secret); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, "expired at") {
			t.Fatalf("sign-in with an expired key = %d", resp.StatusCode)
		}
	})
}

func seedSearch(t *testing.T, st *store.Store, accountID, name string, n int) search.Search {
	t.Helper()
	sr := search.Search{AccountID: accountID, Name: name, Kind: search.KindPosts, Definition: search.Definition{Keywords: []string{"sales"}}}
	if err := seed.Search(t.Context(), st, &sr); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	var items []source.Item
	for i := range n {
		items = append(items, source.Item{ID: strconv.Itoa(1_000_000 + i), Source: "microblog", PublishedAt: base.Add(time.Duration(i) * time.Minute),
			Author:     source.Author{Name: "Author " + strconv.Itoa(i), Username: "a" + strconv.Itoa(i)},
			Content:    source.Content{Text: "post <b>" + strconv.Itoa(i) + "</b>"},
			Engagement: source.Engagement{Likes: i}})
	}
	sr.Status = search.StatusActive
	if err := st.UpdateSearch(t.Context(), &sr, false, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		if _, err := seed.Results(t.Context(), st, sr.ID, base, items); err != nil {
			t.Fatal(err)
		}
	}
	return sr
}

func TestConsoleSearchesAndTenancy(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		f := newFixture(t, engine)
		mine := seedSearch(t, f.st, f.acct.ID, "Mine", 120)
		other := auth.Account{Name: "other", Plan: auth.PlanStarter}
		if err := f.st.CreateAccount(t.Context(), &other); err != nil {
			t.Fatal(err)
		}
		theirs := seedSearch(t, f.st, other.ID, "Theirs", 1)
		b := f.browser(t)
		b.signIn(f.key)

		resp, page := b.do("GET", "/searches", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<table id="searches">`) ||
			!strings.Contains(page, `<td class="name"><a href="/searches/`+mine.ID+`">Mine</a></td>`) ||
			!strings.Contains(page, `<td class="source">microblog-posts</td>`) || !strings.Contains(page, `<td class="status">active</td>`) ||
			strings.Contains(page, "Theirs") {
			t.Fatalf("searches = %d\n%s", resp.StatusCode, page)
		}
		if _, page := b.do("GET", "/", nil); !strings.Contains(page, `<span id="active-searches">1</span>`) {
			t.Errorf("overview does not count the active search")
		}

		// Results: 50 a page, newest first, escaped, a next link, the CSV link.
		resp, page = b.do("GET", "/searches/"+mine.ID, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "<h1>Mine</h1>") || !strings.Contains(page, `<table id="results">`) ||
			strings.Count(page, `<td class="author">`) != 50 || !strings.Contains(page, "Author 119") ||
			!strings.Contains(page, "post &lt;b&gt;119&lt;/b&gt;") || !strings.Contains(page, `id="csv" href="/searches/`+mine.ID+`/results.csv"`) {
			t.Fatalf("results = %d\n%s", resp.StatusCode, page)
		}
		next := regexp.MustCompile(`<a rel="next" href="([^"]+)"`)
		seen := 50
		for m := next.FindStringSubmatch(page); m != nil; m = next.FindStringSubmatch(page) {
			resp, page = b.do("GET", html.UnescapeString(m[1]), nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("next page = %d", resp.StatusCode)
			}
			seen += strings.Count(page, `<td class="author">`)
		}
		if seen != 120 || !strings.Contains(page, "Author 0 <span") {
			t.Fatalf("paged through %d results, want 120", seen)
		}
		if resp, _ := b.do("GET", "/searches/"+mine.ID+"?cursor=garbage", nil); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("bad cursor = %d, want 400", resp.StatusCode)
		}

		// Another account's search, or none: 404 page.
		for _, id := range []string{theirs.ID, "not-an-id"} {
			resp, page := b.do("GET", "/searches/"+id, nil)
			if resp.StatusCode != http.StatusNotFound || strings.Contains(page, "Theirs") || !strings.Contains(page, "not found") {
				t.Fatalf("GET /searches/%s = %d\n%s", id, resp.StatusCode, page)
			}
			if resp, _ := b.do("GET", "/searches/"+id+"/results.csv", nil); resp.StatusCode != http.StatusNotFound {
				t.Fatalf("CSV of %s = %d, want 404", id, resp.StatusCode)
			}
		}
		if resp, page := b.do("GET", "/no/such/page", nil); resp.StatusCode != http.StatusNotFound || !strings.Contains(page, `<nav aria-label="Main">`) {
			t.Fatalf("unknown page = %d", resp.StatusCode)
		}
	})
}

func TestConsolePermissions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		f := newFixture(t, engine)
		sr := seedSearch(t, f.st, f.acct.ID, "Mine", 3)
		key, _ := f.newKey(t, f.acct.ID, auth.PermTopicsRead)
		b := f.browser(t)
		if resp, _ := b.signIn(key); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in = %d", resp.StatusCode)
		}
		resp, page := b.do("GET", "/", nil)
		if !strings.Contains(page, "<li><code>topics:read</code></li>") || strings.Contains(page, "<code>searches:read</code>") {
			t.Errorf("overview does not list the key's one permission:\n%s", page)
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "The API key lacks the permission searches:read.") {
			t.Fatalf("overview with topics:read = %d\n%s", resp.StatusCode, page)
		}
		for _, path := range []string{"/searches", "/searches/" + sr.ID, "/searches/" + sr.ID + "/results.csv"} {
			resp, page := b.do("GET", path, nil)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "The API key lacks the permission searches:read.") || strings.Contains(page, "Mine") {
				t.Fatalf("GET %s with topics:read = %d\n%s", path, resp.StatusCode, page)
			}
		}
	})
}

func TestConsoleAssetsAndHeaders(t *testing.T) {
	f := newFixture(t, store.SQLite)
	resp, css := f.browser(t).do("GET", "/assets/console.css", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(css, ":focus-visible") || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Fatalf("css = %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	resp, page := f.browser(t).do("GET", "/signin", nil)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("CSP = %q", csp)
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Errorf("the sign-in page refers to another origin:\n%s", page)
	}
}

// FuzzTokens: whatever a cookie or form holds, validToken and sameToken
// neither panic nor accept what newToken could not have made.
func FuzzTokens(f *testing.F) {
	f.Add(newToken(), newToken())
	f.Add("", "")
	f.Add("====", "a")
	f.Add(strings.Repeat("A", 43), strings.Repeat("A", 43))
	f.Fuzz(func(t *testing.T, got, want string) {
		if validToken(got) && len(got) != 43 {
			t.Fatalf("validToken(%q) with length %d", got, len(got))
		}
		if sameToken(got, want) && (want == "" || got != want) {
			t.Fatalf("sameToken(%q, %q)", got, want)
		}
		if id := sessionID(got); len(id) != 64 {
			t.Fatalf("sessionID length %d", len(id))
		}
	})
}

func TestConsoleOverviewFailedExecutions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		f := newFixture(t, engine)
		other := auth.Account{Name: "other", Plan: auth.PlanStarter}
		if err := f.st.CreateAccount(t.Context(), &other); err != nil {
			t.Fatal(err)
		}
		fail := func(accountID, msg string, n int) {
			w := workflow.Workflow{AccountID: accountID, Name: "w", Status: workflow.StatusPublished, Enabled: true,
				Definition: workflow.Definition{Trigger: &workflow.Trigger{Kind: workflow.TriggerWebhook}}}
			if err := f.st.CreateWorkflow(t.Context(), &w, nil); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				x := workflow.Execution{WorkflowID: w.ID, AccountID: accountID, Version: 1, Definition: w.Definition,
					EventName: workflow.TriggerWebhook, Trigger: map[string]any{}}
				if _, err := f.st.CreateExecution(t.Context(), &x, nil, time.Minute, true); err != nil {
					t.Fatal(err)
				}
				if err := f.st.FinishExecution(t.Context(), x, nil, workflow.ExecutionFailed, msg+" "+strconv.Itoa(i)); err != nil {
					t.Fatal(err)
				}
				f.clk.Advance(time.Second)
			}
		}
		fail(f.acct.ID, "mine <failed>", 12)
		fail(other.ID, "theirs", 1)
		b := f.browser(t)
		b.signIn(f.key)
		_, page := b.do("GET", "/", nil)
		if n := strings.Count(page, "mine &lt;failed&gt;"); n != 10 || strings.Contains(page, "theirs") ||
			!strings.Contains(page, "mine &lt;failed&gt; 11") || strings.Contains(page, "mine &lt;failed&gt; 1<") || strings.Contains(page, `id="no-failures"`) {
			t.Fatalf("overview lists %d of the account's failures\n%s", n, page)
		}
	})
}

// FuzzSignInForm posts arbitrary bodies and cookies to /signin: the form
// and cookie parsing never panics, never errs on the server's side, and
// never opens a session without the key.
func FuzzSignInForm(f *testing.F) {
	tok := newToken()
	f.Add("csrf="+tok+"&key=trawl_x", tok)
	f.Add("csrf="+tok+"&csrf=other&key=", tok)
	f.Add("%zz=&&&key=%00", "")
	f.Add(strings.Repeat("a", 10000), tok)
	f.Add("csrf=&key=trawl_x", "")
	f.Add("csrf="+tok+"&key=+", tok+"; x=\"")
	h := New(Deps{Store: storetest.Open(f, store.SQLite, nil)})
	f.Fuzz(func(t *testing.T, body, cookie string) {
		req := httptest.NewRequest("POST", "/signin", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Cookie", signinCookie+"="+cookie+"; "+sessionCookie+"="+cookie)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden && rec.Code != http.StatusUnauthorized {
			t.Fatalf("POST /signin %q with cookie %q = %d", body, cookie, rec.Code)
		}
	})
}

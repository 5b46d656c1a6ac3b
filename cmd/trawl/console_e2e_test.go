package main

import (
	"encoding/csv"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

// consoleBrowser drives the web console over HTTP with a cookie jar, as a
// browser without JavaScript would; redirects are read, not followed.
type consoleBrowser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newConsoleBrowser(t *testing.T, base string) *consoleBrowser {
	jar, _ := cookiejar.New(nil)
	return &consoleBrowser{t: t, base: base, c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *consoleBrowser) do(method, path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.t.Context(), method, b.base+path, body)
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

var consoleCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *consoleBrowser) csrf(page string) string {
	b.t.Helper()
	m := consoleCSRF.FindStringSubmatch(page)
	if m == nil {
		b.t.Fatalf("no csrf field in\n%s", page)
	}
	return html.UnescapeString(m[1])
}

func (b *consoleBrowser) signIn(key string) (*http.Response, string) {
	b.t.Helper()
	_, page := b.do("GET", "/signin", nil)
	return b.do("POST", "/signin", url.Values{"csrf": {b.csrf(page)}, "key": {key}})
}

func TestConsoleEndToEnd(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		env := serverEnv(t, engine, nil)
		// The first start prints the console's URL beside the bootstrap key.
		first := startServer(t, env)
		if out := first.Stdout.String(); !strings.Contains(out, "Sign in to the web console at "+first.URL+"/ with that key.") {
			t.Fatalf("first start printed no console URL:\n%s", out)
		}
		first.stop()

		// A search with results, seeded while no server runs.
		st, err := store.Open(t.Context(), env["TRAWL_DATABASE_URL"], time.Now)
		if err != nil {
			t.Fatal(err)
		}
		accounts, err := st.Accounts(t.Context())
		if err != nil || len(accounts) != 1 {
			t.Fatalf("accounts = %v, %v", accounts, err)
		}
		sr := search.Search{AccountID: accounts[0].ID, Name: "Console leads", Kind: search.KindPosts, Definition: search.Definition{Keywords: []string{"sales"}}}
		if err := seed.Search(t.Context(), st, &sr); err != nil {
			t.Fatal(err)
		}
		base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		var items []source.Item
		for i := range 75 {
			items = append(items, source.Item{ID: strconv.Itoa(5_000_000 + i), Source: "microblog", PublishedAt: base.Add(time.Duration(i) * time.Minute),
				Author: source.Author{Name: "Person " + strconv.Itoa(i), Username: "p" + strconv.Itoa(i)}, Content: source.Content{Text: "=cmd post " + strconv.Itoa(i)},
				Engagement: source.Engagement{Likes: i}})
		}
		if _, err := seed.Results(t.Context(), st, sr.ID, base, items); err != nil {
			t.Fatal(err)
		}
		st.Close()

		ts := startServer(t, env)
		if strings.Contains(ts.Stdout.String(), "Sign in to the web console") {
			t.Errorf("a later start printed the console line again (no key is shown then)")
		}
		b := newConsoleBrowser(t, ts.URL)
		if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
			t.Fatalf("GET / signed out = %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if resp, page := b.signIn("trawl_wrong"); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, `id="key-error"`) {
			t.Fatalf("wrong key = %d", resp.StatusCode)
		}
		if resp, _ := b.do("POST", "/signin", url.Values{"key": {ts.Key}}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("sign-in without csrf = %d, want 403", resp.StatusCode)
		}
		if resp, _ := b.signIn(ts.Key); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
			t.Fatalf("sign-in = %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, page := b.do("GET", "/", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "<h1>Overview</h1>") || !strings.Contains(page, `<span id="credits-left">100000</span>`) {
			t.Fatalf("overview = %d\n%s", resp.StatusCode, page)
		}
		resp, page = b.do("GET", "/searches", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<a href="/searches/`+sr.ID+`">Console leads</a>`) {
			t.Fatalf("searches = %d\n%s", resp.StatusCode, page)
		}
		resp, page = b.do("GET", "/searches/"+sr.ID, nil)
		if resp.StatusCode != http.StatusOK || strings.Count(page, `<td class="author">`) != 50 || !strings.Contains(page, `rel="next"`) {
			t.Fatalf("results = %d\n%s", resp.StatusCode, page)
		}

		// The CSV is the API's export, read with the session.
		resp, body := b.do("GET", "/searches/"+sr.ID+"/results.csv", nil)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("CSV = %d %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil || len(rows) != 76 || rows[0][0] != "id" || rows[1][0] != "5000074" || rows[1][5] != "'=cmd post 74" {
			t.Fatalf("CSV: %d rows, %v; first %v", len(rows), err, rows[:min(2, len(rows))])
		}
		// The same through the API with the key: byte for byte.
		req, _ := http.NewRequestWithContext(t.Context(), "GET", ts.URL+"/v1/searches/"+sr.ID+"/results?format=csv", nil)
		req.Header.Set("x-api-key", ts.Key)
		apiResp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		apiBody, _ := io.ReadAll(apiResp.Body)
		apiResp.Body.Close()
		if string(apiBody) != body {
			t.Errorf("the console's CSV differs from the API's")
		}

		// The API keeps its JSON: unknown /v1 paths, and /v1 without a key even with the cookie.
		for _, path := range []string{"/v1/nope", "/v1/searches"} {
			resp, body := b.do("GET", path, nil)
			var e struct {
				Success *bool `json:"success"`
			}
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || json.Unmarshal([]byte(body), &e) != nil {
				t.Errorf("GET %s = %d %q, want JSON", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if resp.StatusCode == http.StatusOK {
				t.Errorf("GET %s with only the console's cookie = 200; the API takes keys only", path)
			}
		}
		if resp, _ := b.do("GET", "/healthz", nil); resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("/healthz = %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if resp, _ := b.do("DELETE", "/healthz", nil); resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("DELETE /healthz = %d %q, want the API's JSON 404", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if resp, page := b.do("GET", "/nowhere", nil); resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "<!doctype html>") {
			t.Errorf("/nowhere = %d", resp.StatusCode)
		}

		// Sign-out needs the session's token, then ends it.
		_, page = b.do("GET", "/", nil)
		if resp, _ := b.do("POST", "/signout", url.Values{"csrf": {"forged"}}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("forged sign-out = %d", resp.StatusCode)
		}
		if resp, _ := b.do("POST", "/signout", url.Values{"csrf": {b.csrf(page)}}); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
			t.Fatalf("sign-out = %d", resp.StatusCode)
		}
		if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("GET / after sign-out = %d", resp.StatusCode)
		}

		// A key revoked with the CLI ends its session.
		out, err := ts.cli(t, "keys", "create", "--account", accounts[0].ID, "--permissions", "searches:read", "--json")
		if err != nil {
			t.Fatalf("keys create: %v\n%s", err, out)
		}
		var key struct{ ID, Key string }
		if err := json.Unmarshal([]byte(out), &key); err != nil {
			t.Fatalf("keys create printed %q", out)
		}
		b2 := newConsoleBrowser(t, ts.URL)
		b2.signIn(key.Key)
		if resp, page := b2.do("GET", "/", nil); resp.StatusCode != http.StatusOK || !strings.Contains(page, `<span id="active-searches">`) {
			t.Fatalf("overview with searches:read = %d", resp.StatusCode)
		}
		if out, err := ts.cli(t, "keys", "revoke", key.ID); err != nil {
			t.Fatalf("revoke: %v\n%s", err, out)
		}
		if resp, _ := b2.do("GET", "/searches", nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("GET /searches after revocation = %d, want 303", resp.StatusCode)
		}
	})
}

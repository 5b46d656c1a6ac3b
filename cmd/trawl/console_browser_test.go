package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// The web console (issue 39) driven in a real browser, on each engine: sign-in
// (a wrong key first, then the right one typed and sent with Enter), the
// Overview's credits against the API's, the Searches list reached with the
// keyboard, a search's results and their CSV download, sign-out. Every page
// is checked by axe-core, must carry a CSRF token in each POST form, and may
// load nothing from another origin. TRAWL_CONSOLE_SCREENSHOTS=1 writes the
// screenshots of docs/console/.

func TestConsoleInBrowser(t *testing.T) {
	// Parallel: each walk has its own browser and server; together they
	// wait on pages and ticks, not on each other.
	t.Parallel()
	tb := newTab(t) // one browser and one tab for every engine
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		tb.serve(t, ts.URL)
		ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Minute)
		defer cancel()
		b := &browserRun{t: t, ctx: ctx, tab: tb, base: ts.URL, shots: engine == store.SQLite}

		// A saved search with results, made through the API, so the pages have
		// something to show; and what the API says, for the pages to match.
		c := ts.Client
		s := createSearch(t, c, map[string]any{"name": "CRM watch", "keywords": []string{"CRM", "RevOps"}, "max_results": 80, "frequency": "daily"})
		var run struct {
			NewResults   int   `json:"new_results"`
			TotalResults int64 `json:"total_results"`
		}
		if err := mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 200).Data(&run); err != nil {
			t.Fatal(err)
		}
		if run.TotalResults < 2 {
			t.Fatalf("the run collected %d results; the test needs a few", run.TotalResults)
		}
		firstPage, _ := pageResults(t, c, s.ID, "")
		balance := getEnvelope[creditBalanceView](t, c, "/v1/credits/balance")
		wrongKey := ts.Key[:len(ts.Key)-4] + "zzzz"
		if strings.HasSuffix(ts.Key, "zzzz") {
			wrongKey = ts.Key[:len(ts.Key)-4] + "yyyy"
		}
		wrongKeyMessage := mustDo(t, client.New(ts.URL, wrongKey), http.MethodGet, "/v1/credits/balance", nil, 401).Err().Message

		// Not signed in: / sends the browser to the sign-in page.
		b.open("/", "#key")
		b.wantPath("/signin")
		b.wantCount(`form[method="post" i][action="/signin"]`, 1)
		b.wantCount(`label[for="key"]`, 1)
		b.wantCount(`input#key[type="password"][name="key"]`, 1)
		b.wantCount(`button#signin[type="submit"]`, 1)
		b.checkPage("sign-in")
		b.screenshot("signin")

		// A wrong key: the API's message, at the field, and the key not echoed.
		b.navigateBy("sign in with a wrong key", chromedp.SendKeys(chromedp.ID("key"), wrongKey+kb.Enter), "#key-error")
		b.wantPath("/signin")
		if msg := b.text("#key-error"); wrongKeyMessage == "" || !strings.Contains(msg, wrongKeyMessage) {
			t.Errorf("#key-error says %q, want the API's message %q", msg, wrongKeyMessage)
		}
		if v := b.eval(`document.getElementById('key').value + '|' + (document.documentElement.outerHTML.includes(` + jsString(wrongKey) + `) ? 'echoed' : '')`); v != "|" {
			t.Errorf("the page after a wrong key holds it (field value|echoed): %q", v)
		}
		b.checkPage("sign-in with a wrong key")

		// The right key, typed, sent with Enter: the Overview.
		b.navigateBy("sign in", chromedp.SendKeys(chromedp.ID("key"), ts.Key+kb.Enter), "#credits-left")
		b.wantPath("/")
		if h := b.text("h1"); h != "Overview" {
			t.Errorf("Overview's h1 = %q", h)
		}
		session := b.sessionCookie()
		if session == nil {
			t.Fatal("no trawl_session cookie after sign-in")
		}
		if !session.HTTPOnly || session.SameSite != network.CookieSameSiteStrict || session.Path != "/" || session.Secure {
			t.Errorf("trawl_session cookie over plain HTTP: HttpOnly=%v SameSite=%q Path=%q Secure=%v; want true, Strict, /, false",
				session.HTTPOnly, session.SameSite, session.Path, session.Secure)
		}
		if left, used := digits(b.text("#credits-left")), digits(b.text("#credits-used")); left != balance.Remaining || used != balance.Used {
			t.Errorf("Overview shows credits left %q used %q; the API says %s and %s", left, used, balance.Remaining, balance.Used)
		}
		if n := digits(b.text("#active-searches")); n != "1" {
			t.Errorf("Overview shows %q active searches, want 1", b.text("#active-searches"))
		}
		if b.count("#failed-executions")+b.count("#no-failures") == 0 {
			t.Error("Overview has neither #failed-executions nor #no-failures")
		}
		// The chart of credits per day by feature: a bar group per day the
		// ledger has spends on (the search's creation), its figures beside it.
		var ledger []struct {
			Created string `json:"created"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/credits/usage?limit=100", nil, 200).Data(&ledger); err != nil {
			t.Fatal(err)
		}
		spendDays := map[string]bool{}
		for _, e := range ledger {
			spendDays[e.Created[:10]] = true
		}
		b.wantCount("svg#credits-chart[role=img]", 1)
		if n := b.count("#credits-chart g.day"); n == 0 || n != len(spendDays) {
			t.Errorf("the chart has %d days of bars; the ledger has spends on %d", n, len(spendDays))
		}
		b.wantCount("#credits-by-day tbody th[scope=row]", len(spendDays))
		b.checkSignedIn("Overview")
		b.screenshot("overview")

		// To Searches with the keyboard: Tab to the nav's link, then Enter.
		b.navigateBy("Searches by keyboard", b.tabTo(`nav[aria-label="Main"] a[href="/searches"]`, kb.Enter), "#searches")
		b.wantPath("/searches")
		if h := b.text("h1"); h != "Searches" {
			t.Errorf("Searches' h1 = %q", h)
		}
		var rows []struct{ Name, Href, Source, Status string }
		b.evalInto(`[...document.querySelectorAll('#searches tr')].filter(tr => tr.querySelector('td.name')).map(tr => ({
			Name: tr.querySelector('td.name').innerText.trim(),
			Href: (tr.querySelector('td.name a') || {getAttribute: () => ''}).getAttribute('href') || '',
			Source: (tr.querySelector('td.source') || {innerText: ''}).innerText.trim(),
			Status: (tr.querySelector('td.status') || {innerText: ''}).innerText.trim(),
		}))`, &rows)
		if len(rows) != 1 || rows[0].Name != "CRM watch" || rows[0].Href != "/searches/"+s.ID || rows[0].Source == "" || !strings.EqualFold(rows[0].Status, "active") {
			t.Errorf("#searches rows = %+v, want one: CRM watch, /searches/%s, a source, active", rows, s.ID)
		}
		b.checkSignedIn("Searches")
		b.screenshot("searches")

		// The search's results: the API's newest first, paging when more.
		b.navigateBy("open the search", chromedp.Click(chromedp.CSS(`#searches td.name a[href="/searches/`+s.ID+`"]`)), "#results")
		b.wantPath("/searches/" + s.ID)
		if h := b.text("h1"); h != "CRM watch" {
			t.Errorf("the search's h1 = %q, want its name", h)
		}
		var resultRows []string
		b.evalInto(`[...document.querySelectorAll('#results tr')].filter(tr => tr.querySelector('td')).map(tr => tr.innerText)`, &resultRows)
		if len(resultRows) == 0 || int64(len(resultRows)) > run.TotalResults {
			t.Fatalf("#results shows %d rows of %d results", len(resultRows), run.TotalResults)
		}
		if first := firstPage[0]; !strings.Contains(squash(resultRows[0]), prefix(squash(first.Content.Text), 30)) || !strings.Contains(resultRows[0], first.Author.Username) {
			t.Errorf("the first row of #results is %q; the API's newest result is @%s: %q", resultRows[0], first.Author.Username, first.Content.Text)
		}
		if more := int64(len(resultRows)) < run.TotalResults; more != (b.count(`a[rel="next"]`) > 0) {
			t.Errorf("%d rows of %d results, a[rel=next] present: %v", len(resultRows), run.TotalResults, !more)
		}
		b.checkSignedIn("search results")

		// The CSV link downloads with the session: fetched inside the page.
		href := b.eval(`document.getElementById('csv').href`)
		if u, err := url.Parse(href); err != nil || u.Scheme+"://"+u.Host != strings.TrimSuffix(ts.URL, "/") {
			t.Errorf("#csv links to %q, not this server", href)
		}
		var got struct {
			Status      int
			ContentType string
			Body        string
		}
		b.evalAwait(`fetch(document.getElementById('csv').href, {credentials: 'same-origin'}).then(async r => ({
			Status: r.status, ContentType: r.headers.get('content-type') || '', Body: await r.text()}))`, &got)
		apiCSV := mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID+"/results?format=csv", nil, 200).Body
		want, err := csv.NewReader(bytes.NewReader(apiCSV)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if records, err := csv.NewReader(strings.NewReader(got.Body)).ReadAll(); got.Status != 200 || !strings.HasPrefix(got.ContentType, "text/csv") || err != nil ||
			int64(len(records)) != run.TotalResults+1 || strings.Join(records[0], ",") != strings.Join(want[0], ",") {
			t.Errorf("the CSV link from the page: %d %q, %d records (%v), header %q; want 200 text/csv, %d records with the API's header %q",
				got.Status, got.ContentType, len(records), err, firstRecord(records), run.TotalResults+1, want[0])
		}

		// The next page (80 results: more than a page).
		if b.count(`a[rel="next"]`) == 0 {
			t.Logf("%d results fit one page: paging not exercised", run.TotalResults)
		} else {
			b.navigateBy("next page", chromedp.Click(chromedp.CSS(`a[rel="next"]`)), "#results")
			var next []string
			b.evalInto(`[...document.querySelectorAll('#results tr')].filter(tr => tr.querySelector('td')).map(tr => tr.innerText)`, &next)
			if len(next) == 0 || next[0] == resultRows[0] {
				t.Errorf("the next page of #results: %d rows, first %q (page 1's first: %q)", len(next), firstOf(next), resultRows[0])
			}
			if seen := int64(len(resultRows) + len(next)); seen < run.TotalResults && b.count(`a[rel="next"]`) == 0 || seen == run.TotalResults && b.count(`a[rel="next"]`) > 0 || seen > run.TotalResults {
				t.Errorf("two pages of #results: %d and %d rows of %d, a[rel=next] on the second: %d", len(resultRows), len(next), run.TotalResults, b.count(`a[rel="next"]`))
			}
			b.checkSignedIn("search results, next page")
		}

		// Sign out: the sign-in page; the session is gone on the server too.
		b.navigateBy("sign out", chromedp.Click(chromedp.ID("signout")), "#key")
		b.wantPath("/signin")
		if c := b.sessionCookie(); c != nil && c.Value == session.Value {
			t.Error("the browser still holds the session cookie after sign-out")
		}
		b.open("/", "#key")
		b.wantPath("/signin")
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/", nil)
		req.AddCookie(&http.Cookie{Name: "trawl_session", Value: session.Value})
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/signin" {
			t.Errorf("GET / with the signed-out session's cookie = %d Location %q, want 303 /signin", resp.StatusCode, resp.Header.Get("Location"))
		}
		b.tab.checkClean(t, "after sign-out")

		// Without JavaScript the console still works: pages are server-rendered
		// forms and links (issue 39: readable without JavaScript).
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
		b.open("/", "#key")
		b.navigateBy("sign in without JavaScript", chromedp.SendKeys(chromedp.ID("key"), ts.Key+kb.Enter), "#credits-left")
		b.wantPath("/")
		b.navigateBy("Searches without JavaScript", chromedp.Click(chromedp.CSS(`nav[aria-label="Main"] a[href="/searches"]`)), "#searches")
		b.navigateBy("the search without JavaScript", chromedp.Click(chromedp.CSS(`#searches td.name a[href="/searches/`+s.ID+`"]`)), "#results")
		b.navigateBy("sign out without JavaScript", chromedp.Click(chromedp.ID("signout")), "#key")
		b.wantPath("/signin")
		b.tab.checkClean(t, "without JavaScript")
	})
}

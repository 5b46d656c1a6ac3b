package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/trawlhq/trawl/internal/store"
)

// A real browser for the console's tests: Debian's Chromium driven through
// the DevTools protocol (chromedp), axe-core injected for accessibility, and
// a watch on every request and error of the tab.

// axeSource is axe-core, vendored (testdata/README.md says which version).
//
//go:embed testdata/axe.min.js
var axeSource string

const chromiumSkip = "console browser tests need Chromium: apt-get install chromium (or set TRAWL_CHROMIUM); .ci/run installs it"

// chromiumPath is the browser to drive: TRAWL_CHROMIUM, else /usr/bin/chromium,
// else chromium or chromium-browser on PATH; "" when there is none.
func chromiumPath() string {
	if p := os.Getenv("TRAWL_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// tab is one browser tab, reused by the steps of a test; it records what the
// page did that a test must not accept: a request to another origin, an
// uncaught exception, an error in the console.
type tab struct {
	ctx context.Context // the chromedp context of the tab, without a deadline

	mu       sync.Mutex
	origin   string // scheme://host:port of the server under test
	foreign  []string
	problems []string
}

// newTab starts a headless Chromium with a fresh profile and opens a tab; the
// browser stops when the test ends. Without a browser the test is skipped.
func newTab(t *testing.T) *tab {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip(chromiumSkip)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("TRAWL_CHROMIUM: %v", err)
	}
	profile := t.TempDir() // removed after the browser stops (cleanups run last first)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 800),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // starts the browser, with no deadline
		t.Fatalf("start %s: %v", path, err)
	}
	tb := &tab{ctx: ctx}
	if err := chromedp.Listen(ctx, tb.observe); err != nil {
		t.Fatal(err)
	}
	return tb
}

// observe runs on the tab's reading goroutine: it only records.
func (tb *tab) observe(ev any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		u := ev.Request.URL
		if strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") || strings.HasPrefix(u, "about:") {
			return
		}
		if tb.origin != "" && u != tb.origin && !strings.HasPrefix(u, tb.origin+"/") {
			tb.foreign = append(tb.foreign, u)
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		tb.problems = append(tb.problems, fmt.Sprintf("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
	case *log.EventEntryAdded:
		// A response with an error status (the 401 of a wrong key) is logged
		// by the network source; that is the page working, not failing.
		if ev.Entry.Level == log.EntryLevelError && ev.Entry.Source != log.EntrySourceNetwork {
			tb.problems = append(tb.problems, fmt.Sprintf("console %s error at %s: %s", ev.Entry.Source, ev.Entry.URL, ev.Entry.Text))
		}
	}
}

// serve points the tab at a server: its origin is the only one pages may
// load from; the cookies of an earlier server (same host, other port) go.
func (tb *tab) serve(t *testing.T, serverURL string) {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	tb.mu.Lock()
	tb.origin, tb.foreign, tb.problems = u.Scheme+"://"+u.Host, nil, nil
	tb.mu.Unlock()
	if _, err := chromedp.Call(tb.ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
}

// checkClean fails the test on each foreign request and page error seen
// since serve or the last check.
func (tb *tab) checkClean(t *testing.T, where string) {
	t.Helper()
	tb.mu.Lock()
	foreign, problems := tb.foreign, tb.problems
	tb.foreign, tb.problems = nil, nil
	tb.mu.Unlock()
	for _, u := range foreign {
		t.Errorf("%s: the page requested another origin: %s", where, u)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", where, p)
	}
}

// axeViolation is what the test reports of an axe-core violation.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeRun injects axe-core into the current page and returns the violations.
const axeRun = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact || '', help: v.help,
	nodes: v.nodes.map(n => n.target.join(' ') + (n.failureSummary ? ' — ' + n.failureSummary.replace(/\s+/g, ' ') : '')),
})))`

// checkAccessibility runs axe-core on the page the tab shows and fails the
// test on each violation of impact serious or critical (the others are
// logged).
func checkAccessibility(ctx context.Context, t *testing.T, page string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](axeSource)); err != nil {
		t.Fatalf("%s: inject axe-core: %v", page, err)
	}
	vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: axe.run: %v", page, err)
	}
	for _, v := range vs {
		nodes := v.Nodes
		if len(nodes) > 10 {
			nodes = append(nodes[:10:10], fmt.Sprintf("… and %d more", len(v.Nodes)-10))
		}
		report := fmt.Sprintf("%s: accessibility (axe-core %s, %s): %s\n\t%s", page, v.ID, v.Impact, v.Help, strings.Join(nodes, "\n\t"))
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(report)
		} else {
			t.Log(report)
		}
	}
}

// screenshot writes a PNG of the whole page to docs/console/name.png, only
// when TRAWL_CONSOLE_SCREENSHOTS=1 (a test run leaves the tree as it was).
func screenshot(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	if os.Getenv("TRAWL_CONSOLE_SCREENSHOTS") != "1" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join("..", "..", "docs", "console")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// consoleWalk starts a server on engine for a browser test, points the shared
// tab at it and signs in with the server's key: the walk starts on the
// Overview. The API client (ts.Client) makes what the pages show.
func consoleWalk(t *testing.T, tb *tab, engine store.Dialect, env map[string]string) (*browserRun, *testServer, context.CancelFunc) {
	t.Helper()
	ts := startServer(t, serverEnv(t, engine, env))
	tb.serve(t, ts.URL)
	ctx, cancel := context.WithTimeout(tb.ctx, 3*time.Minute)
	b := &browserRun{t: t, ctx: ctx, tab: tb, base: ts.URL, shots: engine == store.SQLite && os.Getenv("TRAWL_CONSOLE_SCREENSHOTS") != ""}
	b.signIn(ts.Key)
	return b, ts, cancel
}

// signIn signs in with key from the sign-in page and lands on the Overview.
func (b *browserRun) signIn(key string) {
	b.t.Helper()
	b.open("/signin", "#key")
	b.navigateBy("sign in", chromedp.SendKeys(chromedp.ID("key"), key+kb.Enter), "#credits-left")
}

// fill replaces the value of the input, select or textarea of selector,
// as typing would (input and change events fire).
func (b *browserRun) fill(selector, value string) {
	b.t.Helper()
	b.eval(`(() => { const e = document.querySelector(` + jsString(selector) + `); if (!e) throw new Error('no ' + ` + jsString(selector) + `);
		e.value = ` + jsString(value) + `; e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); return '' })()`)
}

// submit clicks the button of selector, which loads a page, and waits for want there.
func (b *browserRun) submit(what, button, want string) {
	b.t.Helper()
	b.navigateBy(what, chromedp.Click(chromedp.CSS(button)), want)
}

// swap clicks the element of selector, which updates part of the page in
// place (htmx, no page load), and waits until want is visible.
func (b *browserRun) swap(what, selector, want string) {
	b.t.Helper()
	b.do(what, chromedp.Click(chromedp.CSS(selector)), chromedp.WaitVisible(chromedp.CSS(want)))
}

// browserRun is one engine's walk through the console in the shared tab.
type browserRun struct {
	t     *testing.T
	ctx   context.Context
	tab   *tab
	base  string // the server's URL
	shots bool   // write the screenshots (one engine is enough)
}

func (b *browserRun) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// navigateBy runs trigger, which loads a page (a click, Enter in a form),
// waits for that page's load event, then for the selector want.
func (b *browserRun) navigateBy(what string, trigger chromedp.Action[chromedp.Void], want string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.WaitEvent(page.LoadEventFired, nil, trigger)); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	b.landedOn(what, want)
}

// open loads the server's path and checks that the page has want.
func (b *browserRun) open(path, want string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path))
	b.landedOn("open "+path, want)
}

// landedOn checks that the page just loaded (server-rendered: complete at its
// load event) has want, and waits until it is visible; a page without it
// fails at once, with where the browser is and what it shows.
func (b *browserRun) landedOn(what, want string) {
	b.t.Helper()
	if b.count(want) == 0 {
		b.t.Fatalf("%s: the page at %s has no %s; it shows:\n%s", what, b.path(), want,
			prefix(b.eval(`document.body ? document.body.innerText : ''`), 600))
	}
	b.do(what+": wait for "+want, chromedp.WaitVisible(chromedp.CSS(want)))
}

// tabTo presses Tab until the focus is on the element of selector (at most
// 40 times), then presses key on it.
func (b *browserRun) tabTo(selector, key string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		focused := chromedp.Evaluate[bool](`document.activeElement !== null && document.activeElement.matches(` + jsString(selector) + `)`)
		for range 40 {
			if _, err := chromedp.KeyEvent(kb.Tab)(ctx, t); err != nil {
				return err
			}
			if ok, err := focused(ctx, t); err != nil || ok {
				if err == nil {
					_, err = chromedp.KeyEvent(key)(ctx, t)
				}
				return err
			}
		}
		return &tabError{selector}
	})
}

type tabError struct{ selector string }

func (e *tabError) Error() string { return "40 presses of Tab never focused " + e.selector }

func (b *browserRun) eval(expr string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func (b *browserRun) evalInto(expr string, v any) {
	b.t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](expr))
	if err == nil {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
}

func (b *browserRun) evalAwait(expr string, v any) {
	b.t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err == nil {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
}

// text is the visible text of the first element of selector, trimmed ("" when none).
func (b *browserRun) text(selector string) string {
	b.t.Helper()
	return strings.TrimSpace(b.eval(`(e => e ? e.innerText : '')(document.querySelector(` + jsString(selector) + `))`))
}

func (b *browserRun) count(selector string) int {
	b.t.Helper()
	var n int
	b.evalInto(`document.querySelectorAll(`+jsString(selector)+`).length`, &n)
	return n
}

func (b *browserRun) wantCount(selector string, n int) {
	b.t.Helper()
	if got := b.count(selector); got != n {
		b.t.Errorf("%s: %d elements match %s, want %d", b.path(), got, selector, n)
	}
}

func (b *browserRun) path() string {
	b.t.Helper()
	return b.eval(`location.pathname`)
}

func (b *browserRun) wantPath(p string) {
	b.t.Helper()
	if got := b.path(); got != p {
		b.t.Fatalf("the browser is at %s, want %s", got, p)
	}
}

// checkPage checks what every console page must be: accessible (axe-core),
// a CSRF token in each POST form, nothing loaded from another origin, no
// script error.
func (b *browserRun) checkPage(name string) {
	b.t.Helper()
	var missing []string
	b.evalInto(`[...document.forms].filter(f => f.method.toLowerCase() === 'post' && !f.querySelector('input[type="hidden"][name="csrf"]')).map(f => f.getAttribute('action') || '(no action)')`, &missing)
	for _, action := range missing {
		b.t.Errorf("%s: the POST form to %s has no hidden csrf input", name, action)
	}
	checkAccessibility(b.ctx, b.t, name)
	b.tab.checkClean(b.t, name)
}

// checkSignedIn is checkPage plus the header of a signed-in page.
func (b *browserRun) checkSignedIn(name string) {
	b.t.Helper()
	for _, sel := range []string{`nav[aria-label="Main"] a[href="/"]`, `nav[aria-label="Main"] a[href="/searches"]`,
		`form[method="post" i][action="/signout"] button#signout[type="submit"]`} {
		if b.count(sel) == 0 {
			b.t.Errorf("%s: nothing matches %s", name, sel)
		}
	}
	b.checkPage(name)
}

func (b *browserRun) screenshot(name string) {
	b.t.Helper()
	if b.shots {
		screenshot(b.ctx, b.t, name)
	}
}

func (b *browserRun) sessionCookie() *network.Cookie {
	b.t.Helper()
	res, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{b.base + "/"}})
	if err != nil {
		b.t.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == "trawl_session" {
			return c
		}
	}
	return nil
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

var notDigit = regexp.MustCompile(`[^0-9]`)

// digits keeps the digits of a number as a page shows it ("1,000" → "1000").
func digits(s string) string { return notDigit.ReplaceAllString(s, "") }

var spaces = regexp.MustCompile(`\s+`)

func squash(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

func prefix(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func firstRecord(r [][]string) []string {
	if len(r) == 0 {
		return nil
	}
	return r[0]
}

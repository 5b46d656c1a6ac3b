package main

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
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

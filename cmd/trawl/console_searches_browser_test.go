package main

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

// The console's Searches section in a real browser, on each engine: create a
// microblog keyword search (a bad field first: the API's message at it),
// preview it in place (htmx: posts and their cost, no page load), save it,
// read its first run's results, filter them by an author and export that
// filtered CSV, pause and resume it, run it now, delete it; then a pronet
// profile monitor. Every page passes axe-core and the CSRF/origin checks.

// searchFieldMessage is the API's message for field of the answer to body
// posted to path: what the console must show at that field's input.
func searchFieldMessage(t *testing.T, c *client.Client, path string, body any, field string) string {
	t.Helper()
	r, err := c.Do(t.Context(), http.MethodPost, path, body)
	if err != nil {
		t.Fatal(err)
	}
	e := r.Err()
	if e == nil {
		t.Fatalf("POST %s %v worked; the test needs it refused", path, body)
	}
	for _, d := range e.Details {
		if d.Field == field {
			return d.Message
		}
	}
	t.Fatalf("POST %s: no message for %s in %+v", path, field, e)
	return ""
}

// searchAPIResults are every result of a search that passes query, through the API.
func searchAPIResults(t *testing.T, c *client.Client, id string, query url.Values) []source.Item {
	t.Helper()
	q := url.Values{"limit": {"500"}}
	for k, v := range query {
		q[k] = v
	}
	var items []source.Item
	if err := mustDo(t, c, http.MethodGet, "/v1/searches/"+id+"/results?"+q.Encode(), nil, 200).Data(&items); err != nil {
		t.Fatal(err)
	}
	return items
}

// searchTableRows are the rows of the table of selector, as their cells' text.
func (b *browserRun) searchTableRows(selector string) [][]string {
	b.t.Helper()
	var rows [][]string
	b.evalInto(`[...document.querySelectorAll(`+jsString(selector+" tbody tr")+`)].map(tr => [...tr.querySelectorAll('td')].map(td => td.innerText.trim()))`, &rows)
	return rows
}

func TestConsoleSearchesInBrowser(t *testing.T) {
	// Parallel: each walk has its own browser and server; together they
	// wait on pages and ticks, not on each other.
	t.Parallel()
	tb := newTab(t)
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		b, ts, cancel := consoleWalk(t, tb, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s"})
		defer cancel()
		c := ts.Client

		// From the list to the create form: a microblog keyword search by default.
		b.open("/searches", "#new-search")
		b.checkSignedIn("Searches")
		b.submit("New search", "#new-search", "#search-form")
		b.wantPath("/searches/new")
		for _, sel := range []string{"#name", "#keywords", "#keywords_and", "#keywords_not", "#from_users", "#search_type", "#has_media",
			"#exclude_retweets", "#use_full_archive", "#time_frame", "#max_results", "#frequency", "#webhook_url", "#preview-button", "#save"} {
			b.wantCount(sel, 1)
		}
		b.checkSignedIn("New search")

		// A bad field: saved, the form comes back filled, the API's message at it.
		bad := map[string]any{"name": "CRM watch", "keywords": []string{"CRM", "RevOps"}, "max_results": 5}
		want := searchFieldMessage(t, c, "/v1/searches/microblog/posts/preview", bad, "body.max_results")
		b.fill("#name", "CRM watch")
		b.fill("#keywords", "CRM\nRevOps")
		b.fill("#max_results", "5")
		// Previewed in place (htmx): the form comes back with the message.
		b.eval(`window.__samePage = true; ''`)
		b.swap("preview with a bad max_results", "#preview-button", "#max_results-error")
		if got := b.text("#max_results-error"); got != want || b.eval(`String(window.__samePage === true)`) != "true" {
			t.Errorf("the htmx preview's #max_results-error = %q, want the API's %q without a page load", got, want)
		}
		// Saved without JavaScript's help: the whole page, the same message.
		b.submit("save with a bad max_results", "#save", "#max_results-error")
		if got := b.text("#max_results-error"); got != want {
			t.Errorf("#max_results-error = %q, want the API's %q", got, want)
		}
		if got := b.eval(`document.getElementById('max_results').getAttribute('aria-invalid') + '|' + document.getElementById('max_results').getAttribute('aria-describedby')`); !strings.HasPrefix(got, "true|") || !strings.Contains(got, "max_results-error") {
			t.Errorf("#max_results aria-invalid|aria-describedby = %q", got)
		}
		if name, kw := b.eval(`document.getElementById('name').value`), b.eval(`document.getElementById('keywords').value`); name != "CRM watch" || kw != "CRM\nRevOps" {
			t.Errorf("the refused form lost its values: name %q keywords %q", name, kw)
		}
		b.checkSignedIn("New search, refused")

		// Fixed, then previewed in place: the posts and the cost, no page load.
		b.fill("#max_results", "20")
		b.eval(`window.__samePage = true; ''`)
		b.swap("preview", "#preview-button", "#preview-posts")
		if b.eval(`String(window.__samePage === true)`) != "true" {
			t.Error("the preview loaded a new page; htmx should swap the region")
		}
		preview := b.searchTableRows("#preview-posts")
		if n := digits(b.text("#preview-count")); len(preview) == 0 || n != strconv.Itoa(len(preview)) {
			t.Errorf("the preview shows %d posts, says %q", len(preview), b.text("#preview-count"))
		}
		if credits := b.text("#preview-credits"); credits != "0" {
			t.Errorf("the preview cost %q credits, want 0 (previews are free)", credits)
		}
		if b.count("#max_results-error") != 0 {
			t.Error("the previewed form still shows the old error")
		}
		b.checkSignedIn("New search, previewed")

		// Previewed again with fewer results: only the preview region is
		// swapped (the form is the same element, its values kept).
		b.eval(`document.getElementById('search-form').__kept = true; ''`)
		b.fill("#max_results", "10")
		b.eval(`document.getElementById('preview').innerHTML = ''; ''`)
		b.swap("preview again", "#preview-button", "#preview-posts")
		if b.eval(`String(document.getElementById('search-form').__kept === true)`) != "true" {
			t.Error("the second preview replaced the form; only the preview region should change")
		}
		if n := len(b.searchTableRows("#preview-posts")); n == 0 || n > 10 {
			t.Errorf("the preview with max_results 10 shows %d posts", n)
		}
		b.fill("#max_results", "20")
		b.screenshot("search-new")

		// Saved: the search's page, with a notice; the first run fills it.
		b.submit("save", "#save", "#search-settings")
		id := strings.TrimPrefix(b.path(), "/searches/")
		if id == "" || strings.Contains(id, "/") {
			t.Fatalf("after saving the browser is at %s", b.path())
		}
		if f := b.text("#flash"); !strings.Contains(f, "CRM watch") || !strings.Contains(f, "created") {
			t.Errorf("#flash after saving = %q", f)
		}
		if got := getSearch(t, c, id); got.Name != "CRM watch" || got.Filters.MaxResults != 20 || strings.Join(got.Query.Keywords, ",") != "CRM,RevOps" {
			t.Errorf("the API has the saved search as %+v", got)
		}
		waitUntil(t, ts, "the first run", func() bool { return getSearch(t, c, id).LastRunAt != nil })
		b.open("/searches/"+id, "#results")
		all := searchAPIResults(t, c, id, nil)
		if rows := b.searchTableRows("#results"); len(all) == 0 || len(rows) != len(all) {
			t.Fatalf("#results shows %d rows; the API has %d results", len(rows), len(all))
		}
		if s := b.text("#search-status"); s != "active" {
			t.Errorf("#search-status = %q", s)
		}
		b.checkSignedIn("Search")
		b.screenshot("search")

		// Filter by an author: the job_title filter reads a microblog bio; the
		// first bio that only its author matches.
		var author source.Author
		var only []source.Item
		for _, it := range all {
			if it.Author.Description == "" {
				continue
			}
			got := searchAPIResults(t, c, id, url.Values{"job_title": {it.Author.Description}})
			same := len(got) > 0
			for _, g := range got {
				same = same && g.Author.Username == it.Author.Username
			}
			if same && len(got) < len(all) {
				author, only = it.Author, got
				break
			}
		}
		if author.Username == "" {
			t.Fatal("no result's author has a bio only they match; the test needs one")
		}
		b.fill("#job_title", author.Description)
		b.submit("filter by an author", "#filter", "#results")
		rows := b.searchTableRows("#results")
		if len(rows) != len(only) {
			t.Errorf("filtered by @%s's bio: %d rows, the API has %d", author.Username, len(rows), len(only))
		}
		for _, row := range rows {
			if !strings.Contains(row[0], "@"+author.Username) {
				t.Errorf("a filtered row is by %q, not @%s", row[0], author.Username)
			}
		}
		if v := b.eval(`document.getElementById('job_title').value`); v != author.Description {
			t.Errorf("the filter form lost its value: %q", v)
		}
		b.checkSignedIn("Search, filtered")

		// The CSV link exports with the filter: fetched inside the page.
		var got struct {
			Status      int
			ContentType string
			Body        string
		}
		b.evalAwait(`fetch(document.getElementById('csv').href, {credentials: 'same-origin'}).then(async r => ({
			Status: r.status, ContentType: r.headers.get('content-type') || '', Body: await r.text()}))`, &got)
		records, err := csv.NewReader(strings.NewReader(got.Body)).ReadAll()
		if got.Status != 200 || !strings.HasPrefix(got.ContentType, "text/csv") || err != nil || len(records) != len(only)+1 {
			t.Fatalf("the filtered CSV: %d %q, %d records (%v); want 200 text/csv, %d records", got.Status, got.ContentType, len(records), err, len(only)+1)
		}
		col := -1
		for i, h := range records[0] {
			if h == "author_username" {
				col = i
			}
		}
		for _, rec := range records[1:] {
			if col < 0 || rec[col] != author.Username {
				t.Errorf("a CSV row of the filtered export is by %q, want %s", rec[max(col, 0)], author.Username)
			}
		}

		// A bad filter: the API's message at its input.
		refused, err := c.Do(t.Context(), http.MethodGet, "/v1/searches/"+id+"/results?seniority=wizard", nil)
		if err != nil || refused.Err() == nil {
			t.Fatalf("the API took seniority=wizard: %v", err)
		}
		wantSeniority := refused.Err()
		b.fill("#job_title", "")
		b.fill("#seniority", "wizard")
		b.submit("filter by a bad seniority", "#filter", "#seniority-error")
		if msg := b.text("#seniority-error"); len(wantSeniority.Details) == 0 || msg != wantSeniority.Details[0].Message {
			t.Errorf("#seniority-error = %q, want the API's %+v", msg, wantSeniority.Details)
		}
		b.checkSignedIn("Search, bad filter")

		// Pause, then resume: the status follows, a notice says so.
		b.open("/searches/"+id, "#pause")
		b.submit("pause", "#pause", "#resume")
		if s, f := b.text("#search-status"), b.text("#flash"); s != "paused" || !strings.Contains(f, "paused") {
			t.Errorf("after Pause: status %q, notice %q", s, f)
		}
		if s := getSearch(t, c, id); s.Status != "paused" {
			t.Errorf("the API has the search %s after Pause", s.Status)
		}
		b.checkSignedIn("Search, paused")
		b.submit("resume", "#resume", "#pause")
		if s, f := b.text("#search-status"), b.text("#flash"); s != "active" || !strings.Contains(f, "resumed") {
			t.Errorf("after Resume: status %q, notice %q", s, f)
		}

		// Run now: the notice says how many new results.
		b.submit("run now", "#run", "#flash")
		if f := b.text("#flash"); !strings.Contains(f, "new result") {
			t.Errorf("after Run now the notice is %q", f)
		}
		b.checkSignedIn("Search, run")

		// Delete, confirmed: back to the list, without it.
		b.submit("delete", "#delete", "#confirm-delete")
		b.checkSignedIn("Delete search")
		b.submit("confirm delete", "#confirm-delete", "#searches")
		b.wantPath("/searches")
		if f := b.text("#flash"); !strings.Contains(f, "deleted") {
			t.Errorf("after Delete the notice is %q", f)
		}
		if n := b.count(`#searches a[href="/searches/` + id + `"]`); n != 0 {
			t.Error("the deleted search is still listed")
		}
		mustDo(t, c, http.MethodGet, "/v1/searches/"+id, nil, 404)

		// A pronet profile monitor, chosen by platform and kind.
		b.open("/searches/new", "#kind-chooser")
		b.eval(`document.getElementById('platform-pronet').checked = true; document.getElementById('kind-profile').checked = true; ''`)
		b.submit("choose pronet profile", "#choose", "#profile_url")
		if b.count("#keywords") != 0 || b.count("#time_frame") != 1 {
			t.Error("the pronet profile form has keyword inputs or lacks time_frame")
		}
		b.checkSignedIn("New pronet profile monitor")
		b.fill("#name", "Jane")
		b.fill("#profile_url", "https://www.linkedin.com/in/jane-doe")
		b.submit("save the pronet monitor", "#save", "#search-settings")
		if k, p := b.text("#search-kind"), b.text("#search-profile"); k != "pronet-profile" || !strings.Contains(p, "jane-doe") {
			t.Errorf("the pronet monitor's page: kind %q, profile %q", k, p)
		}
		b.checkSignedIn("Pronet profile monitor")
	})
}

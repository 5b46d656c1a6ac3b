package main

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/trawlhq/trawl/internal/store"
)

// The console's Leads (issue 39) in a real browser, on each engine: a topic
// made through the API collects engagers; social mapping then finds them
// from the console's form — a bad value first (the API's message at its
// field), then the query the API answers the same way, a filter that
// narrows it, the CSV of every page fetched in the page — and creator
// discovery the same way. Every page is checked (axe-core, CSRF, no foreign
// request).
func TestConsoleLeadsInBrowser(t *testing.T) {
	// Parallel: each walk has its own browser and server; together they
	// wait on pages and ticks, not on each other.
	t.Parallel()
	tb := newTab(t)
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		b, ts, cancel := consoleWalk(t, tb, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_RATE_LIMIT_CUSTOM": "100000"})
		defer cancel()
		c := ts.Client

		// A topic about sales, and its engagers with their profiles read.
		var tp topicView
		if err := mustDo(t, c, http.MethodPost, "/v1/topics", map[string]any{"name": "sales", "keywords": []string{"sales"},
			"time_frame": "past-24h", "max_results": 20}, 201).Data(&tp); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, ts, "engagers", func() bool { return getTopic(t, c, tp.ID).EngagementsCount > 0 })
		waitUntil(t, ts, "profiles", func() bool {
			es, _ := listAll[topicEngagement](t, c, "/v1/topics/"+tp.ID+"/engagements")
			for _, e := range es {
				if e.Prospect.Company == "" {
					return false
				}
			}
			return len(es) > 0
		})
		// Paused, the topic collects no more: the answers compared below stay put.
		mustDo(t, c, http.MethodPatch, "/v1/topics/"+tp.ID, map[string]any{"status": "PAUSED"}, 200)
		mapping := func(body map[string]any) mappingAnswer {
			t.Helper()
			var a mappingAnswer
			if err := mustDo(t, c, http.MethodPost, "/v1/social/mapping", body, 200).Data(&a); err != nil {
				t.Fatal(err)
			}
			return a
		}

		// The form: every field of the body, named as the API names it.
		b.open("/leads", "#leads-form")
		if h := b.text("h1"); h != "Social mapping" {
			t.Errorf("Leads' h1 = %q", h)
		}
		for _, name := range []string{"engaged_with_keywords", "engaged_with_days", "engaged_with_topic_strength", "job_titles", "job_titles_excludes",
			"company_domain_includes", "company_domain_excludes", "company_sizes", "company_sizes_excludes", "industries", "industries_excludes",
			"location_country", "location_excludes", "followers", "page", "page_size", "includes"} {
			if b.count(`#leads-form [name="`+name+`"]`) == 0 {
				t.Errorf("the mapping form has no input named %s", name)
			}
		}
		b.checkSignedIn("Leads")

		// A bad value: the API's message, at its field.
		bad := map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 31}
		apiErr := mustDo(t, c, http.MethodPost, "/v1/social/mapping", bad, 400).Err()
		var want string
		for _, d := range apiErr.Details {
			if d.Field == "body.engaged_with_days" {
				want = d.Message
			}
		}
		if want == "" {
			t.Fatalf("the API's 400 names no body.engaged_with_days: %+v", apiErr.Details)
		}
		b.fill("#engaged_with_keywords", "sales")
		b.fill("#engaged_with_days", "31")
		b.swap("run with 31 days", "#leads-run", "#engaged_with_days-error")
		if got := b.text("#engaged_with_days-error"); got != want {
			t.Errorf("#engaged_with_days-error says %q; the API says %q", got, want)
		}
		if v := b.eval(`document.getElementById('engaged_with_days').getAttribute('aria-invalid') + ' ' + document.getElementById('engaged_with_days').getAttribute('aria-describedby')`); !strings.HasPrefix(v, "true ") || !strings.Contains(v, "engaged_with_days-error") {
			t.Errorf("#engaged_with_days aria-invalid and aria-describedby = %q", v)
		}
		if b.count("#leads-table") != 0 {
			t.Error("a refused query shows a results table")
		}
		b.checkSignedIn("Leads with a bad value")

		// The query the API answers: the same people, in the same order, a
		// page of the API's default size, and its next page.
		first := mapping(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30})
		if first.Total == 0 {
			t.Fatal("the API's mapping finds no one; the test needs the topic's engagers")
		}
		b.fill("#engaged_with_days", "30")
		b.swap("run the query", "#leads-run", "#leads-table")
		if q, _ := url.ParseQuery(strings.TrimPrefix(b.eval(`location.search`), "?")); b.path() != "/leads" || q.Get("engaged_with_keywords") != "sales" || q.Get("engaged_with_days") != "30" {
			t.Errorf("after the query the address is %s?%s, want /leads with the query", b.path(), q.Encode())
		}
		people := b.tableLinks()
		if want := profileURLs(first); !slices.Equal(people, want) {
			t.Errorf("the table's people (%d) = %v\nthe API's (%d) = %v", len(people), people, len(want), want)
		}
		if got := digits(b.text("#leads-total")); got != strconv.FormatInt(first.Total, 10) {
			t.Errorf("#leads-total = %q, the API's total %d", got, first.Total)
		}
		if aria := b.eval(`document.getElementById('engaged_with_days').getAttribute('aria-invalid') || ''`); aria != "" || b.count(".field-error") != 0 {
			t.Errorf("after a good query the form still shows an error (aria-invalid %q, %d .field-error)", aria, b.count(".field-error"))
		}
		// While a query runs, htmx shows the form's progress indicator.
		if v := b.eval(`(f => { const i = document.querySelector(f.getAttribute('hx-indicator')); return i && i.matches('.htmx-indicator[role="status"]') && i.querySelector('progress') ? 'ok' : 'none' })(document.getElementById('leads-form'))`); v != "ok" {
			t.Errorf("the form's hx-indicator is no progress indicator: %s", v)
		}
		b.checkSignedIn("Leads results")
		b.screenshot("leads")

		// Its CSV holds every page, in the API's order: page 1's people first.
		everyone := b.fetchCSV("#leads-csv")
		seen := map[string]bool{}
		for _, r := range everyone[1:] {
			seen[r[2]] = true
		}
		if int64(len(everyone)-1) != first.Total || int64(len(seen)) != first.Total || len(everyone) <= len(people) {
			t.Errorf("the CSV of every page has %d rows (%d people) for the API's %d", len(everyone)-1, len(seen), first.Total)
		} else {
			var head []string
			for _, r := range everyone[1 : len(people)+1] {
				head = append(head, r[2])
			}
			if !slices.Equal(head, people) {
				t.Errorf("the CSV starts with %v; the table's page 1 is %v", head, people)
			}
		}

		// The result page's address is the query: opened anew, the same table.
		b.open(b.eval(`location.pathname + location.search`), "#leads-table")
		if again := b.tableLinks(); !slices.Equal(again, people) {
			t.Errorf("the result page's address opened anew shows %v, want %v", again, people)
		}
		if more := first.Total > int64(len(first.Results)); more != (b.count(`#leads-results a[rel="next"]`) > 0) {
			t.Errorf("%d of %d people on page 1, a next page link: %v", len(first.Results), first.Total, !more)
		} else if more {
			second := mapping(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30, "page": 2})
			b.eval(`document.getElementById('leads-results').dataset.old = 'yes', ''`)
			b.swap("next page", `#leads-results a[rel="next"]`, "#leads-results:not([data-old])")
			if got := b.tableLinks(); !slices.Equal(got, profileURLs(second)) {
				t.Errorf("page 2 shows %v; the API's page 2 %v", got, profileURLs(second))
			}
			if b.count(`#leads-results a[rel="prev"]`) == 0 || b.text("#leads-page") != "2" {
				t.Errorf("page 2 has no previous page link, or says page %q", b.text("#leads-page"))
			}
			b.checkSignedIn("Leads, page 2")
		}
		all := first

		// A filter narrows them: the country of the first.
		country := *all.Results[0].Location
		narrow := mapping(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30, "page_size": 50, "location_country": []string{country}})
		if narrow.Total == 0 || narrow.Total > all.Total {
			t.Fatalf("the API narrowed to %s: %d of %d", country, narrow.Total, all.Total)
		}
		b.fill("#location_country", country)
		b.fill("#page_size", "50")
		b.fill("#page", "")
		b.eval(`document.getElementById('leads-results').dataset.old = 'yes', ''`)
		b.swap("narrow to "+country, "#leads-run", "#leads-results:not([data-old])")
		var locations []string
		b.evalInto(`[...document.querySelectorAll('#leads-table tbody td.location')].map(td => td.innerText.trim())`, &locations)
		if len(locations) == 0 || slices.ContainsFunc(locations, func(l string) bool { return l != country }) {
			t.Errorf("narrowed to %s, the table's locations are %v", country, locations)
		}
		if got := b.tableLinks(); !slices.Equal(got, profileURLs(narrow)) {
			t.Errorf("narrowed, the table shows %v; the API %v", got, profileURLs(narrow))
		}
		b.checkSignedIn("Leads narrowed")

		// The CSV of the same query, fetched in the page: a row per person.
		records := b.fetchCSV("#leads-csv")
		if len(records) == 0 || strings.Join(records[0], ",") != "first_name,last_name,pronet_url,job_title,company,company_domain,location,followers,engagement_type,post_url,post_date,post_text,post_likes,post_comments" {
			t.Fatalf("the CSV's header = %v", firstRecord(records))
		}
		var csvPeople []string
		for _, r := range records[1:] {
			csvPeople = append(csvPeople, r[2])
		}
		if int64(len(csvPeople)) != narrow.Total || int64(len(locations)) == narrow.Total && !slices.Equal(csvPeople, b.tableLinks()) {
			t.Errorf("the CSV has %d people %v; the table %d rows %v, the API's total %d", len(csvPeople), csvPeople, len(locations), b.tableLinks(), narrow.Total)
		}

		// Creator discovery the same way.
		b.navigateBy("to creator discovery", chromedp.Click(chromedp.CSS(`nav.leads-tools a[href="/leads/creators"]`)), "#leads-form")
		if h := b.text("h1"); h != "Creator discovery" {
			t.Errorf("creators' h1 = %q", h)
		}
		b.checkSignedIn("Creators")
		var creators struct {
			Results []struct {
				Name      string `json:"name"`
				PronetURL string `json:"pronet_url"`
			} `json:"results"`
			Total int64 `json:"total"`
		}
		if err := mustDo(t, c, http.MethodPost, "/v1/discover/creators", map[string]any{"posted_about_keywords": []string{"sales"},
			"posted_about_days": 7, "page_size": 50}, 200).Data(&creators); err != nil {
			t.Fatal(err)
		}
		if creators.Total == 0 {
			t.Fatal("the API discovers no creator of sales posts")
		}
		b.fill("#posted_about_keywords", "sales")
		b.fill("#posted_about_days", "7")
		b.fill("#page_size", "50")
		b.swap("find creators", "#leads-run", "#leads-table")
		var wantCreators []string
		for _, cr := range creators.Results {
			wantCreators = append(wantCreators, cr.PronetURL)
		}
		if got := b.tableLinks(); !slices.Equal(got, wantCreators) {
			t.Errorf("the creators table = %v; the API's = %v", got, wantCreators)
		}
		b.checkSignedIn("Creators results")
		b.screenshot("creators")
		creatorRecords := b.fetchCSV("#leads-csv")
		if int64(len(creatorRecords)) != creators.Total+1 || firstOf(firstRecord(creatorRecords)) != "name" {
			t.Errorf("the creators CSV: %d records, header %v; want %d with a header", len(creatorRecords), firstRecord(creatorRecords), creators.Total+1)
		}

		// Without JavaScript the form is a plain GET and the answer a whole page.
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
		b.open("/leads", "#leads-form")
		b.fill("#engaged_with_keywords", "sales")
		b.fill("#engaged_with_days", "30")
		b.submit("social mapping without JavaScript", "#leads-run", "#leads-table")
		if got := b.tableLinks(); b.path() != "/leads" || !slices.Equal(got, people) {
			t.Errorf("without JavaScript, %s shows %v; want /leads with %v", b.path(), got, people)
		}
		b.tab.checkClean(t, "Leads without JavaScript")
	})
}

// tableLinks are the profile links of the results table's rows, in order.
func (b *browserRun) tableLinks() []string {
	b.t.Helper()
	var links []string
	b.evalInto(`[...document.querySelectorAll('#leads-table tbody td.person')].map(td => (td.querySelector('a') || {getAttribute: () => ''}).getAttribute('href'))`, &links)
	return links
}

// fetchCSV fetches the link of selector inside the page (with the session)
// and parses it; the answer must be a 200 CSV.
func (b *browserRun) fetchCSV(selector string) [][]string {
	b.t.Helper()
	var got struct {
		Status      int
		ContentType string
		Body        string
	}
	b.evalAwait(`fetch(document.querySelector(`+jsString(selector)+`).href, {credentials: 'same-origin'}).then(async r => ({
		Status: r.status, ContentType: r.headers.get('content-type') || '', Body: await r.text()}))`, &got)
	if got.Status != 200 || !strings.HasPrefix(got.ContentType, "text/csv") {
		b.t.Fatalf("%s: %d %q: %s", selector, got.Status, got.ContentType, prefix(got.Body, 300))
	}
	records, err := csv.NewReader(strings.NewReader(got.Body)).ReadAll()
	if err != nil {
		b.t.Fatalf("%s: %v", selector, err)
	}
	return records
}

func profileURLs(a mappingAnswer) []string {
	var out []string
	for _, r := range a.Results {
		if r.PronetURL != nil {
			out = append(out, *r.PronetURL)
		}
	}
	return out
}

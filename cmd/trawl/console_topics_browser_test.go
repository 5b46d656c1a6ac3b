package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// The console's Topics section (issue 39) driven in a real browser, on each
// engine: a topic created in the form (a bad field first, its message at the
// field), its page with posts, credits and actions, one post's engagers, the
// topic's engagers filtered (a bad filter first), their CSV download and
// next page with the filters kept, pause, resume, stop and delete. Every
// figure the pages show is checked against the API's answer.

func TestConsoleTopicsInBrowser(t *testing.T) {
	// Parallel: each walk has its own browser and server; together they
	// wait on pages and ticks, not on each other.
	t.Parallel()
	tb := newTab(t)
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		// A tick of a second: discovery and hydration run as they would.
		b, ts, cancel := consoleWalk(t, tb, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_RATE_LIMIT_CUSTOM": "100000"})
		defer cancel()
		c := ts.Client

		// What the API says of the bad inputs the pages are given below.
		badMax := apiFieldMessage(t, bodyOf(do(t, c, http.MethodPost, "/v1/topics", map[string]any{"name": "x", "keywords": []string{"sales"}, "max_results": 5})), "body.max_results")

		// The list, empty, and the way to the form.
		b.open("/topics", "#topics")
		b.wantCount("#no-topics", 1)
		b.checkSignedIn("Topics")
		b.navigateBy("new topic", chromedp.Click(chromedp.ID("new-topic")), "#topic-form")
		b.wantPath("/topics/new")
		for _, name := range []string{"name", "keywords", "keywords_and", "keywords_not", "job_titles", "time_frame", "max_results", "content_type", "sort_by"} {
			b.wantCount(`label[for="`+name+`"]`, 1)
			b.wantCount(`[name="`+name+`"]#`+name, 1)
		}
		b.checkSignedIn("new topic")

		// A bad field: the API's message at it, the form as typed.
		b.fill("#name", "Sales talk")
		b.fill("#keywords", "sales, revops")
		b.fill("#time_frame", "past-24h")
		b.fill("#max_results", "5")
		b.submit("create with a bad field", "#create-topic", "#max_results-error")
		if got := b.text("#max_results-error"); got != badMax {
			t.Errorf("#max_results-error = %q, want the API's %q", got, badMax)
		}
		b.wantCount(`#max_results[aria-invalid="true"][aria-describedby~="max_results-error"]`, 1)
		b.wantCount(`#name-error`, 0)
		if v := b.eval(`document.getElementById('name').value + '|' + document.getElementById('keywords').value + '|' + document.getElementById('time_frame').value`); v != "Sales talk|sales, revops|past-24h" {
			t.Errorf("the form after the refusal holds %q", v)
		}
		b.checkSignedIn("new topic, refused")

		// Fixed: created, and on its page with a notice.
		b.fill("#max_results", "20")
		b.submit("create the topic", "#create-topic", "#topic-status")
		id := strings.TrimPrefix(b.path(), "/topics/")
		tp := getTopic(t, c, id)
		if tp.Name != "Sales talk" || strings.Join(tp.Keywords, ",") != "sales,revops" || tp.TimeFrame != "past-24h" || tp.MaxResults != 20 {
			t.Fatalf("the API's topic after the form: %+v", tp)
		}
		if h := b.text("h1"); h != "Sales talk" {
			t.Errorf("the topic's h1 = %q", h)
		}
		if f := b.text("#flash"); !strings.Contains(f, "created") {
			t.Errorf("#flash = %q, want the creation's notice", f)
		}
		b.wantCount("#pause", 1)
		b.wantCount("#stop", 1)

		// Collection runs on its own: wait as the API tests do, then the page
		// shows what the API does.
		waitSettled(t, ts, topicRef{c: c, id: id})
		tp = getTopic(t, c, id)
		if tp.PostsCount == 0 || tp.EngagementsCount == 0 {
			t.Fatalf("the topic collected %d posts and %d engagers; the test needs some", tp.PostsCount, tp.EngagementsCount)
		}
		b.open("/topics/"+id, "#topic-posts")
		if got := b.text("#topic-status"); got != "ACTIVE" {
			t.Errorf("#topic-status = %q, want ACTIVE", got)
		}
		if got := digits(b.text("#topic-posts-count")); got != strconv.FormatInt(tp.PostsCount, 10) {
			t.Errorf("#topic-posts-count = %q, the API says %d", got, tp.PostsCount)
		}
		if got := digits(b.text("#topic-engagers-count")); got != strconv.FormatInt(tp.EngagementsCount, 10) {
			t.Errorf("#topic-engagers-count = %q, the API says %d", got, tp.EngagementsCount)
		}
		if want := min(tp.PostsCount, 20); int64(b.count("#topic-posts tbody tr")) != want {
			t.Errorf("#topic-posts shows %d rows, want %d", b.count("#topic-posts tbody tr"), want)
		}
		var sum creditsSummary
		if err := mustDo(t, c, http.MethodGet, "/v1/topics/"+id+"/credits-summary", nil, 200).Data(&sum); err != nil {
			t.Fatal(err)
		}
		if got, err := strconv.ParseFloat(b.text("#credits-total"), 64); err != nil || got != sum.TotalCredits || sum.TotalCredits == 0 {
			t.Errorf("#credits-total = %q, the API says %v", b.text("#credits-total"), sum.TotalCredits)
		}
		b.wantCount("#credits-by-interval tbody tr", len(sum.EngagementCreditsByInterval))
		b.checkSignedIn("topic")
		b.screenshot("topic")

		// From the topic to Leads: social mapping over the topic's keywords,
		// the query the button states, run as the API runs it.
		b.submit("map the topic's engagers in Leads", "#map-in-leads", "#leads-results")
		if p := b.path(); p != "/leads" {
			t.Errorf("the Leads button went to %s", p)
		}
		if v := b.eval(`document.getElementById('engaged_with_keywords').value + '|' + document.getElementById('engaged_with_days').value`); v != "sales, revops|30" {
			t.Errorf("Leads' form from the topic holds %q, want the topic's keywords and 30 days", v)
		}
		if b.count("#leads-table")+b.count("#leads-none") == 0 {
			t.Error("Leads from the topic shows neither #leads-table nor #leads-none")
		}
		b.checkSignedIn("Leads from a topic")
		b.open("/topics/"+id, "#topic-posts")

		// One post's engagers, as the API lists them.
		href := b.eval(`(document.querySelector('#topic-posts a.post-engagers') || {getAttribute: () => ''}).getAttribute('href')`)
		postID := strings.TrimPrefix(href, "/topics/"+id+"/posts/")
		if postID == href || postID == "" {
			t.Fatalf("the first post links to %q", href)
		}
		var postPage struct {
			Pagination topicPage `json:"pagination"`
		}
		if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/topics/"+id+"/posts/"+postID+"/engagements?page_size=50", nil, 200).Body, &postPage); err != nil {
			t.Fatal(err)
		}
		b.navigateBy("a post's engagers", chromedp.Click(chromedp.CSS(`#topic-posts a.post-engagers`)), "#post-engagements")
		if got := digits(b.text("#post-engagements-total")); got != strconv.FormatInt(postPage.Pagination.TotalCount, 10) {
			t.Errorf("#post-engagements-total = %q, the API says %d", got, postPage.Pagination.TotalCount)
		}
		b.wantCount("#post-engagements tbody tr", int(min(postPage.Pagination.TotalCount, 50)))
		b.checkSignedIn("a post's engagers")

		// The topic's engagers, every one.
		b.open("/topics/"+id, "#engagers-link")
		b.navigateBy("the engagers", chromedp.Click(chromedp.ID("engagers-link")), "#engagers")
		all, allPage := listAll[topicEngagement](t, c, "/v1/topics/"+id+"/engagements")
		if got := digits(b.text("#engagers-total")); got != strconv.FormatInt(allPage.TotalCount, 10) {
			t.Errorf("#engagers-total = %q, the API says %d", got, allPage.TotalCount)
		}
		for _, name := range []string{"job_title", "company", "industry", "country", "seniority"} {
			b.wantCount(`label[for="`+name+`"]`, 1)
		}
		b.checkSignedIn("engagers")

		// A bad filter: the API's message at its input.
		badCountry := apiFieldMessage(t, bodyOf(do(t, c, http.MethodGet, "/v1/topics/"+id+"/engagements?country=Atlantis", nil)), "query.country")
		b.fill("#country", "Atlantis")
		b.swap("filter by a bad country", "#filter-engagers", "#country-error")
		if got := b.text("#country-error"); got != badCountry {
			t.Errorf("#country-error = %q, want the API's %q", got, badCountry)
		}
		b.wantCount(`#country[aria-invalid="true"][aria-describedby="country-error"]`, 1)
		b.wantCount("#engagers", 0)
		b.checkSignedIn("engagers, bad filter")

		// A good filter: a job title some engagers have.
		title := ""
		for _, e := range all {
			if e.Prospect.JobTitle != "" {
				title = e.Prospect.JobTitle
				break
			}
		}
		if title == "" {
			t.Fatal("no engager has a job title to filter by")
		}
		word := strings.Fields(title)[0]
		filteredPage := topicEngagersPaging(t, c, id, "job_title="+url.QueryEscape(word))
		b.fill("#country", "")
		b.fill("#job_title", word)
		b.swap("filter by job title", "#filter-engagers", "#engagers")
		if got := digits(b.text("#engagers-total")); got != strconv.FormatInt(filteredPage.TotalCount, 10) || filteredPage.TotalCount == 0 {
			t.Errorf("#engagers-total with job_title %q = %q, the API says %d", word, got, filteredPage.TotalCount)
		}
		if q := b.eval(`location.search`); !strings.Contains(q, "job_title="+url.QueryEscape(word)) {
			t.Errorf("the filtered page's query %q lacks the filter", q)
		}
		var titles []string
		b.evalInto(`[...document.querySelectorAll('#engagers tbody td.job-title')].map(td => td.innerText)`, &titles)
		if want := min(filteredPage.TotalCount, 50); int64(len(titles)) != want {
			t.Errorf("#engagers shows %d rows, want %d", len(titles), want)
		}
		for _, jt := range titles {
			if !strings.Contains(strings.ToLower(jt), strings.ToLower(word)) {
				t.Errorf("#engagers filtered by job title %q shows %q", word, jt)
			}
		}
		b.checkSignedIn("engagers, filtered")
		b.screenshot("topic-engagers")

		// The CSV link downloads the filtered engagers with the session.
		csvHref := b.eval(`document.getElementById('engagers-csv').getAttribute('href')`)
		if !strings.Contains(csvHref, "job_title="+url.QueryEscape(word)) {
			t.Errorf("#engagers-csv links to %q, without the filter", csvHref)
		}
		var got struct {
			Status      int
			ContentType string
			Body        string
		}
		b.evalAwait(`fetch(document.getElementById('engagers-csv').href, {credentials: 'same-origin'}).then(async r => ({
			Status: r.status, ContentType: r.headers.get('content-type') || '', Body: await r.text()}))`, &got)
		apiCSV := mustDo(t, c, http.MethodGet, "/v1/topics/"+id+"/engagements?format=csv&job_title="+url.QueryEscape(word), nil, 200).Body
		want, err := csv.NewReader(bytes.NewReader(apiCSV)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		records, err := csv.NewReader(strings.NewReader(got.Body)).ReadAll()
		if got.Status != 200 || !strings.HasPrefix(got.ContentType, "text/csv") || err != nil || int64(len(records)) != filteredPage.TotalCount+1 || !slices.Equal(firstRecord(records), want[0]) {
			t.Fatalf("the CSV link: %d %q, %d records (%v), header %q; want 200 text/csv, %d records with the API's header %q",
				got.Status, got.ContentType, len(records), err, firstRecord(records), filteredPage.TotalCount+1, want[0])
		}
		col := slices.Index(records[0], "job_title")
		for _, rec := range records[1:] {
			if col < 0 || !strings.Contains(strings.ToLower(rec[col]), strings.ToLower(word)) {
				t.Errorf("a CSV row outside the filter job_title %q: %q", word, rec)
			}
		}

		// Paging: the unfiltered list (the GET form's empty inputs are no
		// filter) is the longer; the filtered one's next link keeps the filter.
		b.open("/topics/"+id+"/engagers?job_title=&company=&seniority=", "#engagers")
		if got := digits(b.text("#engagers-total")); got != strconv.FormatInt(allPage.TotalCount, 10) {
			t.Errorf("#engagers-total with empty filters = %q, the API says %d", got, allPage.TotalCount)
		}
		if b.count(`a[rel="next"]`) == 0 {
			t.Logf("%d engagers fit one page: paging not exercised", allPage.TotalCount)
		} else {
			first := b.text("#engagers tbody tr")
			b.swap("the next page", `a[rel="next"]`, `a[rel="first"]`)
			if next := b.text("#engagers tbody tr"); next == "" || next == first {
				t.Errorf("the next page's first row %q (the first page's: %q)", next, first)
			}
			b.wantCount(`a[rel="first"]`, 1)
			b.checkSignedIn("engagers, next page")
		}
		if filteredPage.TotalCount > 50 {
			b.open("/topics/"+id+"/engagers?job_title="+url.QueryEscape(word), "#engagers")
			if n := b.eval(`document.querySelector('a[rel="next"]').getAttribute('href')`); !strings.Contains(n, "job_title="+url.QueryEscape(word)) {
				t.Errorf("the filtered next page link %q drops the filter", n)
			}
		}

		// Without JavaScript the filters are a plain GET form: a page load.
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
		b.open("/topics/"+id+"/engagers", "#engagers")
		b.fill("#job_title", word)
		b.submit("filter without JavaScript", "#filter-engagers", "#engagers")
		if got := digits(b.text("#engagers-total")); got != strconv.FormatInt(filteredPage.TotalCount, 10) {
			t.Errorf("without JavaScript #engagers-total with job_title %q = %q, the API says %d", word, got, filteredPage.TotalCount)
		}
		if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
			t.Fatal(err)
		}

		// Pause, resume, stop: each the API's status, said once.
		b.open("/topics/"+id, "#pause")
		b.submit("pause", "#pause", "#resume")
		if s := b.text("#topic-status"); s != "PAUSED" || getTopic(t, c, id).Status != "PAUSED" || !strings.Contains(b.text("#flash"), "paused") {
			t.Errorf("after Pause: #topic-status %q, API %q, #flash %q", s, getTopic(t, c, id).Status, b.text("#flash"))
		}
		b.checkSignedIn("topic, paused")
		b.submit("resume", "#resume", "#pause")
		if s := b.text("#topic-status"); s != "ACTIVE" || getTopic(t, c, id).Status != "ACTIVE" {
			t.Errorf("after Resume: #topic-status %q, API %q", s, getTopic(t, c, id).Status)
		}
		b.navigateBy("stop", chromedp.Click(chromedp.ID("stop")), "#confirm-stop")
		b.checkSignedIn("stop, confirm")
		b.submit("confirm stop", "#confirm-stop", "#topic-status")
		if s := b.text("#topic-status"); s != "STOPPED" || getTopic(t, c, id).Status != "STOPPED" || !strings.Contains(b.text("#flash"), "stopped") {
			t.Errorf("after Stop: #topic-status %q, API %q, #flash %q", s, getTopic(t, c, id).Status, b.text("#flash"))
		}
		b.wantCount("#pause", 0)
		b.wantCount("#resume", 0)
		b.wantCount("#stop", 0)
		b.checkSignedIn("topic, stopped")

		// The list shows it as the API does.
		b.open("/topics", "#topics")
		var rows []struct{ Name, Status, Posts string }
		b.evalInto(`[...document.querySelectorAll('#topics tbody tr')].map(tr => ({
			Name: tr.querySelector('td.name').innerText.trim(), Status: tr.querySelector('td.status').innerText.trim(),
			Posts: tr.querySelector('td.posts').innerText.trim()}))`, &rows)
		if tp = getTopic(t, c, id); len(rows) != 1 || rows[0].Name != "Sales talk" || rows[0].Status != "STOPPED" || digits(rows[0].Posts) != strconv.FormatInt(tp.PostsCount, 10) {
			t.Errorf("#topics rows = %+v; the API's topic: %s %s %d posts", rows, tp.Name, tp.Status, tp.PostsCount)
		}
		b.checkSignedIn("Topics, one stopped")

		// Delete: gone from the list and from the API.
		b.open("/topics/"+id, "#delete")
		b.navigateBy("delete", chromedp.Click(chromedp.ID("delete")), "#confirm-delete")
		b.checkSignedIn("delete, confirm")
		b.submit("confirm delete", "#confirm-delete", "#topics")
		b.wantPath("/topics")
		if !strings.Contains(b.text("#flash"), "deleted") {
			t.Errorf("#flash after Delete = %q", b.text("#flash"))
		}
		b.wantCount("#no-topics", 1)
		mustDo(t, c, http.MethodGet, "/v1/topics/"+id, nil, 404)
		b.checkSignedIn("Topics, after delete")
	})
}

// topicEngagersPaging is the paging of the topic's engagers with query.
func topicEngagersPaging(t *testing.T, c *client.Client, id, query string) topicPage {
	t.Helper()
	var body struct {
		Pagination topicPage `json:"pagination"`
	}
	if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/topics/"+id+"/engagements?page_size=100&"+query, nil, 200).Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Pagination
}

// bodyOf is a client answer's body, for apiFieldMessage.
func bodyOf(r *client.Response) []byte { return r.Body }

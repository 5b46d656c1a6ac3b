package main

import (
	"encoding/csv"
	"encoding/json"
	"html"
	"io"
	"net/http"
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

// The console's Searches section without JavaScript, over plain HTTP forms:
// the preview comes back as a whole page under the filled form (and as a
// fragment to htmx), a refused save shows the API's message at the field,
// author filters page and export together, a bad filter shows the API's
// message at its input, and a key that may only read sees why it may not
// write.

var searchNextLink = regexp.MustCompile(`<a rel="next" href="([^"]+)"`)

// searchHX posts form as htmx does (HX-Request) and returns the answer.
func (b *consoleBrowser) searchHX(path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	req, err := http.NewRequestWithContext(b.t.Context(), http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp, string(out)
}

func TestConsoleSearchesWithoutJavaScript(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		env := serverEnv(t, engine, nil)
		startServer(t, env).stop()

		// 75 results: 60 by authors whose bio says VP Sales, 15 by engineers.
		st, err := store.Open(t.Context(), env["TRAWL_DATABASE_URL"], time.Now)
		if err != nil {
			t.Fatal(err)
		}
		accounts, err := st.Accounts(t.Context())
		if err != nil || len(accounts) != 1 {
			t.Fatalf("accounts = %v, %v", accounts, err)
		}
		sr := search.Search{AccountID: accounts[0].ID, Name: "Seeded", Kind: search.KindPosts, Definition: search.Definition{Keywords: []string{"sales"}, Frequency: search.Daily}}
		if err := seed.Search(t.Context(), st, &sr); err != nil {
			t.Fatal(err)
		}
		base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		var items []source.Item
		for i := range 75 {
			bio := "VP Sales at Acme"
			if i%5 == 0 {
				bio = "Software engineer"
			}
			items = append(items, source.Item{ID: strconv.Itoa(7_000_000 + i), Source: "microblog", PublishedAt: base.Add(time.Duration(i) * time.Minute),
				Author:  source.Author{Name: "Person " + strconv.Itoa(i), Username: "p" + strconv.Itoa(i), Description: bio},
				Content: source.Content{Text: "post " + strconv.Itoa(i)}})
		}
		if _, err := seed.Results(t.Context(), st, sr.ID, base, items); err != nil {
			t.Fatal(err)
		}
		st.Close()

		ts := startServer(t, env)
		b := newConsoleBrowser(t, ts.URL)
		b.signIn(ts.Key)

		// Filtered results page by 50 and keep the filter; so does the CSV.
		resp, page := b.do("GET", "/searches/"+sr.ID+"?job_title=vp+sales&company=", nil)
		if resp.StatusCode != http.StatusOK || strings.Count(page, `<td class="author">`) != 50 || !strings.Contains(page, `<span id="results-total">60</span>`) ||
			!strings.Contains(page, `id="job_title" name="job_title" value="vp sales"`) {
			t.Fatalf("filtered results = %d\n%s", resp.StatusCode, page)
		}
		m := searchNextLink.FindStringSubmatch(page)
		if m == nil || !strings.Contains(html.UnescapeString(m[1]), "job_title=vp+sales") {
			t.Fatalf("the next link %q does not keep the filter", m)
		}
		csvHref := regexp.MustCompile(`id="csv" href="([^"]+)"`).FindStringSubmatch(page)
		resp, page = b.do("GET", html.UnescapeString(m[1]), nil)
		if resp.StatusCode != http.StatusOK || strings.Count(page, `<td class="author">`) != 10 || strings.Contains(page, `rel="next"`) || strings.Contains(page, "Software engineer") {
			t.Fatalf("the filtered next page = %d\n%s", resp.StatusCode, page)
		}
		if csvHref == nil || !strings.Contains(html.UnescapeString(csvHref[1]), "job_title=vp+sales") {
			t.Fatalf("the CSV link %q does not keep the filter", csvHref)
		}
		resp, body := b.do("GET", html.UnescapeString(csvHref[1]), nil)
		if records, err := csv.NewReader(strings.NewReader(body)).ReadAll(); resp.StatusCode != http.StatusOK || err != nil || len(records) != 61 {
			t.Fatalf("the filtered CSV = %d, %d records (%v)", resp.StatusCode, len(records), err)
		}

		// A bad filter: the API's message at its input, no results table.
		refused, err := ts.Client.Do(t.Context(), http.MethodGet, "/v1/searches/"+sr.ID+"/results?country=Atlantis", nil)
		if err != nil || refused.Err() == nil || len(refused.Err().Details) == 0 {
			t.Fatalf("the API took country=Atlantis: %v", err)
		}
		resp, page = b.do("GET", "/searches/"+sr.ID+"?country=Atlantis", nil)
		if resp.StatusCode != refused.Status || !strings.Contains(page, `<p class="field-error" id="country-error">`+html.EscapeString(refused.Err().Details[0].Message)+`</p>`) ||
			!strings.Contains(page, `aria-invalid="true"`) {
			t.Fatalf("bad country = %d (API %d)\n%s", resp.StatusCode, refused.Status, page)
		}

		// The create form: preview without JavaScript is the whole page, the
		// preview under the form, which keeps what was typed.
		_, page = b.do("GET", "/searches/new", nil)
		form := url.Values{"csrf": {b.csrf(page)}, "platform": {"microblog"}, "kind": {"posts"}, "name": {"No JS"}, "keywords": {"CRM\nRevOps"}, "max_results": {"10"}}
		resp, page = b.do("POST", "/searches/new/preview", form)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<table id="preview-posts">`) || !strings.Contains(page, `value="No JS"`) ||
			!strings.Contains(page, ">CRM\nRevOps</textarea>") || !strings.Contains(page, `<strong id="preview-credits">0</strong>`) {
			t.Fatalf("preview without JavaScript = %d\n%s", resp.StatusCode, page)
		}
		// To htmx: only the region.
		resp, page = b.searchHX("/searches/new/preview", form)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(page), `<div id="preview"`) || strings.Contains(page, "<html") {
			t.Fatalf("preview to htmx = %d\n%s", resp.StatusCode, page)
		}
		// A pronet profile monitor's preview: the same page, its kind's endpoint.
		pronetForm := url.Values{"csrf": form["csrf"], "platform": {"pronet"}, "kind": {"profile"}, "profile_url": {"https://www.linkedin.com/in/jane-doe"}}
		resp, page = b.do("POST", "/searches/new/preview", pronetForm)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<table id="preview-posts">`) || !strings.Contains(page, "pronet-profile") ||
			!strings.Contains(page, `value="https://www.linkedin.com/in/jane-doe"`) {
			t.Fatalf("pronet profile preview = %d\n%s", resp.StatusCode, page)
		}
		// Refused: the API's status and message at the field.
		bad := cloneValues(form)
		bad.Set("max_results", "1000")
		resp, page = b.do("POST", "/searches/new", bad)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `<p class="field-error" id="max_results-error">expected number &lt;= 100</p>`) {
			t.Fatalf("save with max_results 1000 = %d\n%s", resp.StatusCode, page)
		}
		resp, _ = b.do("POST", "/searches/new", form)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/searches/") {
			t.Fatalf("save = %d %q", resp.StatusCode, loc)
		}
		// With a webhook: the signing secret on the answer page (201), once,
		// never in a cookie; the next page does not show it.
		hooked := cloneValues(form)
		hooked.Set("name", "Hooked")
		hooked.Set("webhook_url", "https://hooks.example.com/trawl")
		resp, page = b.do("POST", "/searches/new", hooked)
		secret := regexp.MustCompile(`id="webhook-secret" readonly value="([^"]+)"`).FindStringSubmatch(page)
		if resp.StatusCode != http.StatusCreated || secret == nil || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("save with a webhook = %d (Cache-Control %q)\n%s", resp.StatusCode, resp.Header.Get("Cache-Control"), page)
		}
		for _, ck := range resp.Cookies() {
			if strings.Contains(ck.Value, secret[1]) || strings.Contains(ck.Value, url.QueryEscape(secret[1])) {
				t.Errorf("cookie %s carries the webhook secret", ck.Name)
			}
		}
		to := regexp.MustCompile(`id="to-next" href="([^"]+)"`).FindStringSubmatch(page)
		if to == nil {
			t.Fatalf("no link to the search on the secret's page:\n%s", page)
		}
		if _, next := b.do("GET", to[1], nil); strings.Contains(next, secret[1]) {
			t.Errorf("the search's page shows the webhook secret again")
		}
		// Every member of each create endpoint's body (the API's OpenAPI
		// document) is an input of the form of its kind.
		for path, members := range searchCreateMembers(t, ts.URL) {
			parts := strings.Split(strings.TrimPrefix(path, "/v1/searches/"), "/")
			_, page := b.do("GET", "/searches/new?platform="+parts[0]+"&kind="+parts[1], nil)
			for _, m := range members {
				if !strings.Contains(page, ` name="`+m+`"`) {
					t.Errorf("the form of %s has no input for %s", path, m)
				}
			}
		}
		if resp, _ := b.do("GET", "/searches/new?platform=fax&kind=posts", nil); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("an unknown platform = %d, want 400", resp.StatusCode)
		}

		// A key that may read searches only: no Save, no actions, and the
		// permission named; the API refuses a forged write.
		out, err := ts.cli(t, "keys", "create", "--account", accounts[0].ID, "--permissions", "searches:read", "--json")
		if err != nil {
			t.Fatalf("keys create: %v\n%s", err, out)
		}
		var key struct{ Key string }
		if err := json.Unmarshal([]byte(out), &key); err != nil {
			t.Fatalf("keys create printed %q", out)
		}
		ro := newConsoleBrowser(t, ts.URL)
		ro.signIn(key.Key)
		const denied = "The API key lacks the permission searches:write."
		_, page = ro.do("GET", "/searches/new", nil)
		if !strings.Contains(page, denied) || strings.Contains(page, `id="save"`) || !strings.Contains(page, `id="preview-button"`) {
			t.Fatalf("the create page for a read-only key:\n%s", page)
		}
		_, page = ro.do("GET", "/searches/"+sr.ID, nil)
		if !strings.Contains(page, denied) || strings.Contains(page, `id="pause"`) || strings.Contains(page, `id="run"`) {
			t.Fatalf("the search's page for a read-only key:\n%s", page)
		}
		if resp, page := ro.do("POST", "/searches/"+sr.ID+"/run", url.Values{"csrf": {ro.csrf(page)}}); resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "searches:write") {
			t.Fatalf("run with a read-only key = %d\n%s", resp.StatusCode, page)
		}
		if resp, _ := ro.do("GET", "/searches/"+sr.ID+"/delete", nil); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("delete page with a read-only key = %d", resp.StatusCode)
		}
	})
}

// searchCreateMembers are the body members of the four create endpoints, by
// path, as the server's OpenAPI document declares them.
func searchCreateMembers(t *testing.T, base string) map[string][]string {
	t.Helper()
	resp, err := http.Get(base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, path := range []string{"/v1/searches/microblog/posts", "/v1/searches/microblog/profile", "/v1/searches/pronet/posts", "/v1/searches/pronet/profile"} {
		ref := doc.Paths[path]["post"].RequestBody.Content["application/json"].Schema.Ref
		props := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")].Properties
		if len(props) == 0 {
			t.Fatalf("the OpenAPI document has no body members for POST %s (schema %q)", path, ref)
		}
		for name := range props {
			if name != "$schema" {
				out[path] = append(out[path], name)
			}
		}
	}
	return out
}

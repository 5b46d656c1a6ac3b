package main

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// The Topics pages over plain HTTP, as a browser without JavaScript uses
// them: the API's messages at the create form's fields and the rename
// field, an ended topic's refusal, and what keys without topics:write,
// without topics:read, and accounts whose plan lacks topics are shown — the
// API's words every time, nothing the key may do hidden.

func TestConsoleTopicsAccess(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		acct := newAccount(t, ts, "Topic team", "CUSTOM", "")
		writerKey := cliKey(t, ts, acct, "topics:read,topics:write")
		readerKey := cliKey(t, ts, acct, "topics:read")
		blindKey := cliKey(t, ts, acct, "searches:read")
		starterKey := cliKey(t, ts, newAccount(t, ts, "Small shop", "STARTER", ""), "*")
		other := ts.Client // the bootstrap account

		w := newConsoleBrowser(t, ts.URL)
		if resp, _ := w.signIn(writerKey); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in = %d", resp.StatusCode)
		}
		_, page := w.do("GET", "/topics/new", nil)
		csrf := w.csrf(page)

		// No CSRF token: refused before the API is asked.
		if resp, _ := w.do("POST", "/topics", url.Values{"name": {"No token"}, "keywords": {"sales"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST /topics without csrf = %d, want 403", resp.StatusCode)
		}
		// Bad fields: each the API's message at its input, the form kept.
		writer := ts.Client.WithKey(writerKey)
		for _, bad := range []struct {
			form  url.Values
			input string
			body  map[string]any
			field string
		}{
			{url.Values{"name": {"Empty"}, "keywords": {""}}, "keywords", map[string]any{"name": "Empty", "keywords": []string{}}, "body.keywords"},
			{url.Values{"name": {"Many"}, "keywords": {"a,b,c,d,e,f"}, "keywords_not": {"g,h,i,j,k"}}, "keywords",
				map[string]any{"name": "Many", "keywords": []string{"a", "b", "c", "d", "e", "f"}, "keywords_not": []string{"g", "h", "i", "j", "k"}}, "body.keywords"},
			{url.Values{"name": {""}, "keywords": {"sales"}}, "name", map[string]any{"name": "", "keywords": []string{"sales"}}, "body.name"},
			{url.Values{"name": {"Typed"}, "keywords": {"sales"}, "max_results": {"lots"}}, "max_results",
				map[string]any{"name": "Typed", "keywords": []string{"sales"}, "max_results": "lots"}, "body.max_results"},
			{url.Values{"name": {"Kind"}, "keywords": {"sales"}, "content_type": {"gifs"}}, "content_type",
				map[string]any{"name": "Kind", "keywords": []string{"sales"}, "content_type": "gifs"}, "body.content_type"},
		} {
			want := apiFieldMessage(t, bodyOf(do(t, writer, http.MethodPost, "/v1/topics", bad.body)), bad.field)
			bad.form.Set("csrf", csrf)
			resp, page := w.do("POST", "/topics", bad.form)
			if got := fieldError(page, bad.input); resp.StatusCode < 400 || got != want {
				t.Errorf("POST /topics %v = %d, #%s-error %q; want the API's %q", bad.form, resp.StatusCode, bad.input, got, want)
			}
			if !strings.Contains(page, `id="`+bad.input+`" name="`+bad.input+`"`) || !strings.Contains(page, `aria-invalid="true"`) {
				t.Errorf("POST /topics %v: the input %s is not marked invalid", bad.form, bad.input)
			}
			if name := bad.form.Get("name"); name != "" && !strings.Contains(page, `value="`+html.EscapeString(name)+`"`) {
				t.Errorf("POST /topics %v: the form lost the name", bad.form)
			}
		}
		if n := topicsTotal(t, writer, "").TotalCount; n != 0 {
			t.Fatalf("refused forms created %d topics", n)
		}

		// Created: 303 to its page.
		resp, _ := w.do("POST", "/topics", url.Values{"csrf": {csrf}, "name": {"Ops watch"}, "keywords": {"revops\nsales ops"},
			"keywords_and": {"pipeline"}, "job_titles": {"VP, Head"}, "time_frame": {"past-month"}, "max_results": {"30"},
			"content_type": {"videos"}, "sort_by": {"relevance"}})
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/topics/") {
			t.Fatalf("create = %d %q", resp.StatusCode, loc)
		}
		id := strings.TrimPrefix(loc, "/topics/")
		var created struct {
			Keywords    []string `json:"keywords"`
			KeywordsAnd []string `json:"keywords_and"`
			JobTitles   []string `json:"job_titles"`
			TimeFrame   string   `json:"time_frame"`
			MaxResults  int      `json:"max_results"`
			ContentType string   `json:"content_type"`
			SortBy      string   `json:"sort_by"`
		}
		if err := mustDo(t, writer, http.MethodGet, "/v1/topics/"+id, nil, 200).Data(&created); err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(created); string(b) != `{"keywords":["revops","sales ops"],"keywords_and":["pipeline"],"job_titles":["VP","Head"],"time_frame":"past-month","max_results":30,"content_type":"videos","sort_by":"relevance"}` {
			t.Errorf("the API's topic from the form: %s", b)
		}

		// Rename to nothing: the API's message at the name.
		wantName := apiFieldMessage(t, bodyOf(do(t, writer, http.MethodPatch, "/v1/topics/"+id, map[string]any{"name": " "})), "body.name")
		resp, page = w.do("POST", "/topics/"+id+"/name", url.Values{"csrf": {csrf}, "name": {" "}})
		if got := fieldError(page, "name"); resp.StatusCode != http.StatusBadRequest || got != wantName {
			t.Errorf("rename to blank = %d, #name-error %q; want 400 and the API's %q", resp.StatusCode, got, wantName)
		}
		if resp, _ = w.do("POST", "/topics/"+id+"/name", url.Values{"csrf": {csrf}, "name": {"Ops radar"}}); resp.StatusCode != http.StatusSeeOther || getTopic(t, writer, id).Name != "Ops radar" {
			t.Errorf("rename = %d, the API's name %q", resp.StatusCode, getTopic(t, writer, id).Name)
		}

		// The credits of another period: a bad bound is the API's message at
		// its input; a good one is the API's figures for it.
		wantFrom := apiFieldMessage(t, bodyOf(do(t, writer, http.MethodGet, "/v1/topics/"+id+"/credits-summary?from=yesterday", nil)), "query.from")
		resp, page = w.do("GET", "/topics/"+id+"?from=yesterday", nil)
		if got := fieldError(page, "from"); resp.StatusCode != http.StatusBadRequest || got != wantFrom || !strings.Contains(page, `id="topic-posts"`) {
			t.Errorf("a topic with from=yesterday = %d, #from-error %q; want 400, the API's %q and the rest of the page", resp.StatusCode, got, wantFrom)
		}
		wantTo := apiFieldMessage(t, bodyOf(do(t, writer, http.MethodGet, "/v1/topics/"+id+"/credits-summary?from=2026-02-01&to=2026-01-01", nil)), "query.to")
		if _, page = w.do("GET", "/topics/"+id+"?from=2026-02-01&to=2026-01-01", nil); fieldError(page, "to") != wantTo {
			t.Errorf("#to-error = %q, want the API's %q", fieldError(page, "to"), wantTo)
		}
		resp, page = w.do("GET", "/topics/"+id+"?from=2026-01-01&to=2026-01-31", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<time datetime="2026-01-01T00:00:00.000Z">`) || !strings.Contains(page, `<dd id="credits-total">0</dd>`) {
			t.Errorf("a topic's credits in January = %d\n%s", resp.StatusCode, page)
		}

		// Stopped is final: resuming shows the API's refusal on the page.
		if resp, _ = w.do("POST", "/topics/"+id+"/status", url.Values{"csrf": {csrf}, "status": {"STOPPED"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("stop = %d", resp.StatusCode)
		}
		conflict := do(t, writer, http.MethodPatch, "/v1/topics/"+id, map[string]any{"status": "ACTIVE"}).Err()
		resp, page = w.do("POST", "/topics/"+id+"/status", url.Values{"csrf": {csrf}, "status": {"ACTIVE"}})
		if conflict == nil || resp.StatusCode != http.StatusConflict || !strings.Contains(page, `id="problem"`) || !strings.Contains(page, html.EscapeString(conflict.Message)) {
			t.Errorf("resume a stopped topic = %d; want 409 with the API's %v", resp.StatusCode, conflict)
		}
		if strings.Contains(page, `id="resume"`) || strings.Contains(page, `id="pause"`) {
			t.Error("a stopped topic's page offers to pause or resume it")
		}

		// The list by status; a status the API does not know is its 400.
		if _, page = w.do("GET", "/topics?status=STOPPED", nil); !strings.Contains(page, `<a href="/topics/`+id+`">Ops radar</a>`) {
			t.Errorf("/topics?status=STOPPED lacks the stopped topic\n%s", page)
		}
		if _, page = w.do("GET", "/topics?status=ACTIVE", nil); strings.Contains(page, `href="/topics/`+id+`"`) || !strings.Contains(page, `id="no-topics"`) {
			t.Errorf("/topics?status=ACTIVE lists the stopped topic\n%s", page)
		}
		badStatus := do(t, writer, http.MethodGet, "/v1/topics?status=SLEEPING", nil).Err()
		if resp, page = w.do("GET", "/topics?status=SLEEPING", nil); badStatus == nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, html.EscapeString(badStatus.Message)) {
			t.Errorf("/topics?status=SLEEPING = %d; want 400 with the API's %v", resp.StatusCode, badStatus)
		}

		// topics:read only: everything shown, the writes replaced by the
		// permission's message; a write forced through is the API's refusal.
		r := newConsoleBrowser(t, ts.URL)
		r.signIn(readerKey)
		refusal := do(t, ts.Client.WithKey(readerKey), http.MethodPost, "/v1/topics", map[string]any{"name": "x", "keywords": []string{"y"}}).Err()
		resp, page = r.do("GET", "/topics", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `href="/topics/`+id+`"`) || strings.Contains(page, `id="new-topic"`) ||
			!strings.Contains(page, `id="new-topic-denied"`) || !strings.Contains(page, "lacks the permission topics:write") {
			t.Errorf("/topics for a reader = %d\n%s", resp.StatusCode, page)
		}
		if resp, page = r.do("GET", "/topics/new", nil); resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "lacks the permission topics:write") {
			t.Errorf("/topics/new for a reader = %d", resp.StatusCode)
		}
		resp, page = r.do("GET", "/topics/"+id, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="topic-actions-denied"`) || strings.Contains(page, `id="delete"`) || !strings.Contains(page, `id="topic-posts"`) {
			t.Errorf("a topic for a reader = %d\n%s", resp.StatusCode, page)
		}
		readerCSRF := r.csrf(page)
		if resp, page := r.do("GET", "/topics/"+id+"/delete", nil); resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "lacks the permission topics:write") {
			t.Errorf("a reader's delete confirmation = %d", resp.StatusCode)
		}
		resp, page = r.do("POST", "/topics/"+id+"/delete", url.Values{"csrf": {readerCSRF}})
		if resp.StatusCode != http.StatusForbidden || refusal == nil || !strings.Contains(page, html.EscapeString(refusal.Message)) {
			t.Errorf("a reader's forced delete = %d; want 403 with the API's %v", resp.StatusCode, refusal)
		}
		if resp, _ = r.do("GET", "/topics/"+id+"/engagers?country=DE", nil); resp.StatusCode != http.StatusOK {
			t.Errorf("a reader's engagers = %d", resp.StatusCode)
		}

		// Asked by htmx, the filters and the list alone, a refusal too (200,
		// which htmx swaps), with the API's message at the input.
		req, _ := http.NewRequestWithContext(t.Context(), "GET", ts.URL+"/topics/"+id+"/engagers?country=Atlantis&job_title=", nil)
		req.Header.Set("HX-Request", "true")
		hx, err := r.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		fragment, _ := io.ReadAll(hx.Body)
		hx.Body.Close()
		wantCountry := apiFieldMessage(t, bodyOf(do(t, writer, http.MethodGet, "/v1/topics/"+id+"/engagements?country=Atlantis", nil)), "query.country")
		if f := strings.TrimSpace(string(fragment)); hx.StatusCode != http.StatusOK || !strings.HasPrefix(f, `<div id="engagers-query">`) || strings.Contains(f, "<html") || fieldError(f, "country") != wantCountry {
			t.Errorf("htmx's bad filter = %d\n%s", hx.StatusCode, f)
		}

		// No topics:read, another account's topic, a plan without topics:
		// the API's status and sentence.
		for _, c := range []struct {
			key, path string
			status    int
		}{
			{blindKey, "/topics", http.StatusForbidden},
			{blindKey, "/topics/" + id + "/engagers", http.StatusForbidden},
			{starterKey, "/topics", http.StatusForbidden},
			{writerKey, "/topics/" + createTopic(t, other, map[string]any{"name": "Theirs", "keywords": []string{"x"}}).ID, http.StatusNotFound},
		} {
			api := do(t, ts.Client.WithKey(c.key), http.MethodGet, "/v1"+strings.TrimSuffix(strings.Replace(c.path, "/engagers", "/engagements", 1), "/"), nil).Err()
			b := newConsoleBrowser(t, ts.URL)
			b.signIn(c.key)
			resp, page := b.do("GET", c.path, nil)
			if api == nil || resp.StatusCode != c.status || api.Status != c.status || !strings.Contains(page, html.EscapeString(api.Message)) {
				t.Errorf("GET %s = %d; want %d with the API's %v", c.path, resp.StatusCode, c.status, api)
			}
		}
	})
}

// cliKey creates a key of the account with the CLI and returns its secret.
func cliKey(t *testing.T, ts *testServer, accountID, perms string) string {
	t.Helper()
	out, err := ts.cli(t, "keys", "create", "--account", accountID, "--permissions", perms, "--json")
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, out)
	}
	var key struct{ Key string }
	if err := json.Unmarshal([]byte(out), &key); err != nil || key.Key == "" {
		t.Fatalf("keys create printed %q", out)
	}
	return key.Key
}

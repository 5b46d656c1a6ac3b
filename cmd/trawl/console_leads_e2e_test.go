package main

import (
	"encoding/csv"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// The console's Leads over HTTP, as a browser without JavaScript (and htmx)
// asks them: a refused query is the form with the API's message at its
// field and the API's status; htmx gets the part it swaps; the CSV of a
// refused query is the form again; a key without the permission, or an
// account whose plan lacks social mapping, is told so, and still sees what
// it may use.
func TestConsoleLeadsEndToEnd(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		b := newConsoleBrowser(t, ts.URL)
		b.signIn(ts.Key)

		resp, page := b.do("GET", "/leads", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="leads-form"`) || strings.Contains(page, `id="leads-table"`) {
			t.Fatalf("GET /leads = %d, form %v, table %v", resp.StatusCode, strings.Contains(page, `id="leads-form"`), strings.Contains(page, `id="leads-table"`))
		}

		// Not a number: sent as typed, the API's message at the field.
		apiErr := mustDo(t, ts.Client, http.MethodPost, "/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": "abc"}, 400).Err()
		var want string
		for _, d := range apiErr.Details {
			if d.Field == "body.engaged_with_days" {
				want = d.Message
			}
		}
		if want == "" {
			t.Fatalf("the API names no body.engaged_with_days: %+v", apiErr.Details)
		}
		bad := "/leads?" + url.Values{"engaged_with_keywords": {"sales"}, "engaged_with_days": {"abc"}}.Encode()
		resp, page = b.do("GET", bad, nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `<p class="field-error" id="engaged_with_days-error">`+html.EscapeString(want)+`</p>`) ||
			!strings.Contains(page, `aria-describedby="engaged_with_days-hint engaged_with_days-error" aria-invalid="true"`) {
			t.Errorf("GET %s = %d; want 400 and the API's %q at the field:\n%s", bad, resp.StatusCode, want, page)
		}

		// htmx gets the form and results part, 200 so that it swaps it in.
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+bad, nil)
		req.Header.Set("HX-Request", "true")
		hx, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var part strings.Builder
		_, _ = io.Copy(&part, hx.Body)
		hx.Body.Close()
		if hx.StatusCode != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(part.String()), `<div id="leads-query">`) || strings.Contains(part.String(), "<html") ||
			!strings.Contains(part.String(), `id="engaged_with_days-error"`) {
			t.Errorf("htmx GET %s = %d:\n%s", bad, hx.StatusCode, part.String())
		}

		// A query that finds no one (no topic collected anything): an empty table.
		resp, page = b.do("GET", "/leads?engaged_with_keywords=sales&engaged_with_days=7", nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `<span id="leads-total">0</span>`) || !strings.Contains(page, `id="leads-none"`) {
			t.Errorf("an empty answer = %d:\n%s", resp.StatusCode, page)
		}
		resp, body := b.do("GET", "/leads.csv?engaged_with_keywords=sales&engaged_with_days=7", nil)
		if records, err := csv.NewReader(strings.NewReader(body)).ReadAll(); resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
			err != nil || len(records) != 1 || records[0][0] != "first_name" {
			t.Errorf("the CSV of an empty answer = %d %q: %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		// The CSV of a refused query: the form with the API's message.
		resp, page = b.do("GET", "/leads.csv?"+url.Values{"engaged_with_keywords": {"sales"}, "engaged_with_days": {"abc"}}.Encode(), nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="engaged_with_days-error"`) {
			t.Errorf("the CSV of a refused query = %d:\n%s", resp.StatusCode, page)
		}
		resp, page = b.do("GET", "/leads/creators?posted_about_keywords=sales&posted_about_days=7&company_sizes=1-10&company_sizes=huge", nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, `id="company_sizes-error"`) {
			t.Errorf("creators with a size the API does not know = %d:\n%s", resp.StatusCode, page)
		}

		// A key without the permissions: the API's reason, no form.
		var acct struct{ ID string }
		out, err := ts.cli(t, "accounts", "create", "--name", "Custom", "--plan", "CUSTOM", "--json")
		if err != nil || json.Unmarshal([]byte(out), &acct) != nil {
			t.Fatalf("accounts create: %v %s", err, out)
		}
		var key struct{ Key string }
		out, err = ts.cli(t, "keys", "create", "--account", acct.ID, "--permissions", "searches:read", "--json")
		if err != nil || json.Unmarshal([]byte(out), &key) != nil {
			t.Fatalf("keys create: %v %s", err, out)
		}
		nb := newConsoleBrowser(t, ts.URL)
		nb.signIn(key.Key)
		for path, perm := range map[string]string{"/leads": "social:mapping:read", "/leads/creators": "discover:creators:read", "/leads.csv?engaged_with_keywords=x": "social:mapping:read"} {
			resp, page := nb.do("GET", path, nil)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "The API key lacks the permission "+perm+".") || strings.Contains(page, `id="leads-form"`) {
				t.Errorf("GET %s without %s = %d:\n%s", path, perm, resp.StatusCode, page)
			}
		}

		// A STARTER account: no social mapping (the plan), creator discovery yes.
		out, err = ts.cli(t, "accounts", "create", "--name", "Starter", "--plan", "STARTER", "--json")
		if err != nil || json.Unmarshal([]byte(out), &acct) != nil {
			t.Fatalf("accounts create: %v %s", err, out)
		}
		out, err = ts.cli(t, "keys", "create", "--account", acct.ID, "--permissions", "*", "--json")
		if err != nil || json.Unmarshal([]byte(out), &key) != nil {
			t.Fatalf("keys create: %v %s", err, out)
		}
		planMsg := mustDo(t, client.New(ts.URL, key.Key), http.MethodPost, "/v1/social/mapping", map[string]any{}, 403).Err().Message
		sb := newConsoleBrowser(t, ts.URL)
		sb.signIn(key.Key)
		if resp, page := sb.do("GET", "/leads", nil); resp.StatusCode != http.StatusForbidden || !strings.Contains(page, html.EscapeString(planMsg)) || strings.Contains(page, `id="leads-form"`) {
			t.Errorf("social mapping on STARTER = %d, want 403 and the API's %q:\n%s", resp.StatusCode, planMsg, page)
		}
		if resp, page := sb.do("GET", "/leads/creators", nil); resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="leads-form"`) {
			t.Errorf("creator discovery on STARTER = %d:\n%s", resp.StatusCode, page)
		}
	})
}

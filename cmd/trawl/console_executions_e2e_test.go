package main

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/trawlhq/trawl/internal/store"
)

// The console's Executions section over HTTP, as a browser without
// JavaScript (and htmx's polls) would use it, on each engine: paging that
// keeps the filters, the API's messages at the filter's inputs, the
// timeline's poll (204 while nothing changed), the API's refusals of rerun
// and cancel, CSRF, and another account's execution.

var (
	executionRowRE = regexp.MustCompile(`<tr data-id="([^"]+)">`)
	relLinkRE      = regexp.MustCompile(`rel="(next|first)" href="([^"]+)"`)
	pollRE         = regexp.MustCompile(`hx-get="([^"]+)" hx-trigger="every 2s"`)
)

func executionRowIDs(page string) []string {
	var ids []string
	for _, m := range executionRowRE.FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func relLink(page, rel string) string {
	for _, m := range relLinkRE.FindAllStringSubmatch(page, -1) {
		if m[1] == rel {
			return html.UnescapeString(m[2])
		}
	}
	return ""
}

// fieldError is the text of the field-error paragraph of input id.
func fieldError(page, id string) string {
	m := regexp.MustCompile(`<p class="field-error" id="` + regexp.QuoteMeta(id) + `-error">([^<]*)</p>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// apiFieldMessage is the API's message for field in an error answer.
func apiFieldMessage(t *testing.T, body []byte, field string) string {
	t.Helper()
	var e struct {
		Error struct {
			Details struct {
				Fields []struct{ Field, Message string } `json:"fields"`
			} `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	for _, f := range e.Error.Details.Fields {
		if f.Field == field {
			return f.Message
		}
	}
	t.Fatalf("the API's answer names no %s: %s", field, body)
	return ""
}

// htmxGet asks path as htmx's poll does.
func (b *consoleBrowser) htmxGet(path string) (int, string) {
	b.t.Helper()
	req, err := http.NewRequestWithContext(b.t.Context(), http.MethodGet, b.base+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("HX-Request", "true")
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

func TestConsoleExecutionsEndToEnd(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_RATE_LIMIT_CUSTOM": "100000"}))
		c := ts.Client
		quick := createWorkflow(t, c, map[string]any{"name": "Quick", "workflow": json.RawMessage(
			`{"actions":[{"id":"one","kind":"builtin:set","inputs":{"values":{"n":1}}}],"edges":[{"from":"$source","to":"one"}]}`)})
		broken := createWorkflow(t, c, map[string]any{"name": "Broken call", "workflow": json.RawMessage(brokenFlow)})
		later := createWorkflow(t, c, map[string]any{"name": "Later", "workflow": json.RawMessage(laterFlow)})
		// One more than a page of completed runs, and a failed one beside them.
		const runs = 51
		for range runs {
			startTest(t, c, quick.ID, map[string]any{})
		}
		bad := waitExecution(t, ts, c, broken.ID, startTest(t, c, broken.ID, map[string]any{}), ended)
		waitUntil(t, ts, "the quick runs completed", func() bool {
			var page struct {
				Pagination struct {
					TotalCount int64 `json:"total_count"`
				} `json:"pagination"`
			}
			r := mustDo(t, c, http.MethodGet, "/v1/workflows/"+quick.ID+"/executions?status=completed&page_size=1", nil, 200)
			return json.Unmarshal(r.Body, &page) == nil && page.Pagination.TotalCount == runs
		})

		b := newConsoleBrowser(t, ts.URL)
		if resp, _ := b.signIn(ts.Key); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in answered %d", resp.StatusCode)
		}

		// Paging keeps the filters: 50, then 1, each a completed run of Quick.
		first := "/executions?" + url.Values{"workflow": {quick.ID}, "status": {"completed"}}.Encode()
		resp, page := b.do(http.MethodGet, first, nil)
		ids := executionRowIDs(page)
		next := relLink(page, "next")
		if resp.StatusCode != http.StatusOK || len(ids) != 50 || !strings.Contains(next, "workflow="+quick.ID) || !strings.Contains(next, "status=completed") {
			t.Fatalf("first page: %d, %d rows, next %q", resp.StatusCode, len(ids), next)
		}
		_, page = b.do(http.MethodGet, next, nil)
		more := executionRowIDs(page)
		if len(more) != 1 || relLink(page, "next") != "" || relLink(page, "first") != first {
			t.Errorf("second page: %d rows, next %q, first %q (want %q)", len(more), relLink(page, "next"), relLink(page, "first"), first)
		}
		seen := map[string]bool{}
		for _, id := range append(ids, more...) {
			if seen[id] || id == bad.ID {
				t.Errorf("row %s twice, or the failed run under status=completed", id)
			}
			seen[id] = true
		}

		// Bad filters: the API's messages, at their inputs.
		apiStatus := apiFieldMessage(t, do(t, c, http.MethodGet, "/v1/workflows/"+quick.ID+"/executions?status=stuck&event_name=workflows/nope", nil).Body, "query.status")
		apiEvent := apiFieldMessage(t, do(t, c, http.MethodGet, "/v1/workflows/"+quick.ID+"/executions?status=stuck&event_name=workflows/nope", nil).Body, "query.event_name")
		resp, page = b.do(http.MethodGet, "/executions?status=stuck&event_name=workflows/nope", nil)
		if resp.StatusCode != http.StatusBadRequest || fieldError(page, "status") != apiStatus || fieldError(page, "event_name") != apiEvent || len(executionRowIDs(page)) != 0 {
			t.Errorf("bad status and event: %d, status error %q (API %q), event error %q (API %q)",
				resp.StatusCode, fieldError(page, "status"), apiStatus, fieldError(page, "event_name"), apiEvent)
		}
		ghost := uuid.Must(uuid.NewV7()).String()
		notFound := do(t, c, http.MethodGet, "/v1/workflows/"+ghost+"/executions", nil).Err()
		resp, page = b.do(http.MethodGet, "/executions?workflow="+ghost, nil)
		if resp.StatusCode != http.StatusNotFound || notFound == nil || fieldError(page, "workflow") != notFound.Message {
			t.Errorf("unknown workflow: %d, workflow error %q, the API's %+v", resp.StatusCode, fieldError(page, "workflow"), notFound)
		}
		if resp, page = b.do(http.MethodGet, "/executions?cursor=nonsense", nil); resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "Bad page link") {
			t.Errorf("a bad cursor: %d", resp.StatusCode)
		}
		// Upper case is the API's spelling too.
		if _, page = b.do(http.MethodGet, "/executions?status=FAILED", nil); len(executionRowIDs(page)) != 1 || executionRowIDs(page)[0] != bad.ID {
			t.Errorf("status=FAILED lists %v, want %s", executionRowIDs(page), bad.ID)
		}

		// A running execution polls; the same answer is 204, a change the fragment.
		parked := waitExecution(t, ts, c, later.ID, startTest(t, c, later.ID, map[string]any{}), func(x executionView) bool {
			return x.keys() == "before:completed wait:running after:pending"
		})
		runPath := "/workflows/" + later.ID + "/executions/" + parked.ID
		_, page = b.do(http.MethodGet, runPath, nil)
		m := pollRE.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("a running execution's page does not poll:\n%s", page)
		}
		poll := html.UnescapeString(m[1])
		if status, _ := b.htmxGet(poll); status != http.StatusNoContent {
			t.Errorf("a poll with nothing new answered %d, want 204", status)
		}
		// Without the CSRF token, cancel changes nothing.
		if resp, _ := b.do(http.MethodPost, runPath+"/cancel", url.Values{}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("cancel without csrf: %d", resp.StatusCode)
		}
		if x := execution(t, c, later.ID, parked.ID); x.Status != "running" {
			t.Fatalf("cancel without csrf ended the run: %s", x.Status)
		}
		mustDo(t, c, http.MethodPost, "/v1"+runPath+"/cancel", nil, 200)
		status, frag := b.htmxGet(poll)
		if status != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(frag), `<div id="timeline">`) || strings.Contains(frag, "<html") || !strings.Contains(frag, "cancelled") {
			t.Errorf("the poll after the run ended: %d\n%s", status, frag)
		}

		// The API's refusals, shown on the execution: cancel of an ended
		// run, rerun of one that did not fail.
		token := b.csrf(page)
		refusal := do(t, c, http.MethodPost, "/v1"+runPath+"/cancel", nil).Err()
		resp, page = b.do(http.MethodPost, runPath+"/cancel", url.Values{"csrf": {token}})
		if resp.StatusCode != http.StatusConflict || refusal == nil || !strings.Contains(page, html.EscapeString(refusal.Message)) || !strings.Contains(page, `id="problem"`) {
			t.Errorf("cancel of an ended run: %d, the API's refusal %+v", resp.StatusCode, refusal)
		}
		var done string
		for id := range seen {
			done = id
			break
		}
		donePath := "/workflows/" + quick.ID + "/executions/" + done
		refusal = do(t, c, http.MethodPost, "/v1"+donePath+"/rerun", nil).Err()
		resp, page = b.do(http.MethodPost, donePath+"/rerun", url.Values{"csrf": {token}})
		if resp.StatusCode != http.StatusConflict || refusal == nil || !strings.Contains(page, html.EscapeString(refusal.Message)) {
			t.Errorf("rerun of a completed run: %d, the API's refusal %+v", resp.StatusCode, refusal)
		}
		// A rerun through the form: 303 to the new execution.
		resp, _ = b.do(http.MethodPost, "/workflows/"+broken.ID+"/executions/"+bad.ID+"/rerun", url.Values{"csrf": {token}})
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/workflows/"+broken.ID+"/executions/") || strings.HasSuffix(loc, bad.ID) {
			t.Errorf("rerun: %d to %q", resp.StatusCode, loc)
		}

		// A key that may not do what the run's steps do: rerun is the API's
		// 403, its message naming the permission.
		enrich := createWorkflow(t, c, map[string]any{"name": "Enrich then call", "workflow": json.RawMessage(`{"actions":[
			{"id":"who","kind":"person_enrichment","inputs":{"profile_url":"https://www.linkedin.com/in/jane-doe"}},
			{"id":"call","kind":"http_request","inputs":{"url":"https://crm.example.com/leads","method":"{{ 'FE' + 'TCH' }}"}}],
			"edges":[{"from":"$source","to":"who"},{"from":"who","to":"call"}]}`)})
		enriched := waitExecution(t, ts, c, enrich.ID, startTest(t, c, enrich.ID, map[string]any{}), ended)
		if enriched.Status != "failed" || enriched.keys() != "who:completed call:failed" {
			t.Fatalf("the enrich run %s: %s", enriched.Status, enriched.keys())
		}
		var me struct {
			UserID string `json:"user_id"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/account", nil, 200).Data(&me); err != nil {
			t.Fatal(err)
		}
		narrow := newKey(t, ts, me.UserID, "searches:read")
		enrichPath := "/workflows/" + enrich.ID + "/executions/" + enriched.ID
		forbidden := do(t, narrow, http.MethodPost, "/v1"+enrichPath+"/rerun", nil).Err()
		nb := newConsoleBrowser(t, ts.URL)
		if resp, _ := nb.signIn(narrow.APIKey); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("the narrow key's sign-in answered %d", resp.StatusCode)
		}
		_, page = nb.do(http.MethodGet, enrichPath, nil)
		resp, page = nb.do(http.MethodPost, enrichPath+"/rerun", url.Values{"csrf": {nb.csrf(page)}})
		if forbidden == nil || forbidden.Status != http.StatusForbidden || resp.StatusCode != http.StatusForbidden || !strings.Contains(page, html.EscapeString(forbidden.Message)) {
			t.Errorf("rerun with a narrow key: %d; the API's %+v", resp.StatusCode, forbidden)
		}

		// Another account's execution is the API's 404.
		other := newKey(t, ts, newAccount(t, ts, "other", "CUSTOM", ""), "*")
		ob := newConsoleBrowser(t, ts.URL)
		if resp, _ := ob.signIn(other.APIKey); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("the other account's sign-in answered %d", resp.StatusCode)
		}
		resp, page = ob.do(http.MethodGet, "/workflows/"+broken.ID+"/executions/"+bad.ID, nil)
		if resp.StatusCode != http.StatusNotFound || strings.Contains(page, "Broken call") {
			t.Errorf("another account's execution: %d", resp.StatusCode)
		}
		if _, page = ob.do(http.MethodGet, "/executions", nil); len(executionRowIDs(page)) != 0 {
			t.Errorf("another account lists %d executions", len(executionRowIDs(page)))
		}
	})
}

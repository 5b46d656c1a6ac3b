package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// TestPagingAliases: every list takes the API's other paging conventions
// where they mean the same thing (limit for page_size, offset for page,
// and the reverse on the workflows list), answering exactly what its own
// parameters answer; an alias is bounded as its parameter is; two names of
// one parameter, or a page beside a cursor, are a 400 naming both; and a
// convention a list cannot take says how it pages.
func TestPagingAliases(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_RATE_LIMIT_CUSTOM": "100000"}))
		c := ts.Client

		var topicID, searchID string
		for i := range 3 {
			topicID = createTopic(t, c, map[string]any{"name": fmt.Sprintf("topic %d", i), "keywords": []string{"revops"}, "max_results": 10}).ID
			searchID = createSearch(t, c, map[string]any{"name": fmt.Sprintf("search %d", i), "keywords": []string{"crm"}, "max_results": 10}).ID
		}
		def := `{"trigger":{"kind":"workflows/webhook"},"actions":[{"id":"keep","kind":"builtin:set","inputs":{"values":{"seen":true}}}],"edges":[{"from":"$source","to":"keep"}]}`
		var hook workflowView
		for i := range 3 {
			hook = createWorkflow(t, c, map[string]any{"name": fmt.Sprintf("flow %d", i), "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		}
		for range 3 {
			if status, body := postHook(t, ts.HTTP, *hook.WebhookURL+"?wait=true", http.Header{}, []byte(`{"n": 1}`)); status != 200 {
				t.Fatalf("webhook = %d %v", status, body)
			}
		}
		// Every list needs two pages at least.
		var postID string
		waitUntil(t, ts, "collected posts, engagers and results", func() bool {
			var sr savedSearch
			if err := mustDo(t, c, http.MethodGet, "/v1/searches/"+searchID, nil, 200).Data(&sr); err != nil {
				t.Fatal(err)
			}
			_, engagers := listAll[json.RawMessage](t, c, "/v1/topics/"+topicID+"/engagements")
			posts, _ := listAll[topicPost](t, c, "/v1/topics/"+topicID+"/posts")
			for _, p := range posts {
				if p.EngagementsCount >= 2 {
					postID = p.URN
				}
			}
			return len(posts) >= 2 && postID != "" && engagers.TotalCount >= 2 && sr.TotalResults >= 2
		})

		byNumber := []string{
			"/v1/topics",
			"/v1/topics/" + topicID + "/posts",
			"/v1/topics/" + topicID + "/engagements",
			"/v1/topics/" + topicID + "/posts/" + postID + "/engagements",
			"/v1/workflows/" + hook.ID + "/executions",
		}
		for _, list := range byNumber {
			sameAnswer(t, c, list+"?page=2&page_size=1", list+"?offset=1&limit=1", list+"?page=2&limit=1", list+"?offset=1&page_size=1")
			sameAnswer(t, c, list+"?page_size=2", list+"?limit=2")
			wantError(t, do(t, c, http.MethodGet, list+"?limit=2&page_size=2", nil), 400, "VALIDATION_ERROR", "query.limit", "query.page_size")
			wantError(t, do(t, c, http.MethodGet, list+"?page=1&offset=0", nil), 400, "VALIDATION_ERROR", "query.page", "query.offset")
			wantError(t, do(t, c, http.MethodGet, list+"?offset=3&limit=2", nil), 400, "VALIDATION_ERROR", "query.offset")
			wantError(t, do(t, c, http.MethodGet, list+"?limit=101", nil), 400, "VALIDATION_ERROR", "query.limit")
			wantError(t, do(t, c, http.MethodGet, list+"?limit=0", nil), 400, "VALIDATION_ERROR", "query.limit")
			wantError(t, do(t, c, http.MethodGet, list+"?offset=-1", nil), 400, "VALIDATION_ERROR", "query.offset")
			// The deepest page by offset is the deepest by page; one further is refused.
			mustDo(t, c, http.MethodGet, list+"?limit=10&offset=99999990", nil, 200)
			wantError(t, do(t, c, http.MethodGet, list+"?limit=10&offset=100000000", nil), 400, "VALIDATION_ERROR", "query.offset")
		}
		for _, list := range byNumber[:2] {
			wantHint(t, c, list+"?cursor=abc", "query.cursor", "pages by number")
		}

		// The engagers keep a cursor: limit sizes its pages too, and a
		// page or offset beside it is refused.
		engagers := "/v1/topics/" + topicID + "/engagements"
		sameAnswer(t, c, engagers+"?cursor=start&page_size=2", engagers+"?cursor=start&limit=2")
		wantError(t, do(t, c, http.MethodGet, engagers+"?cursor=start&page=2", nil), 400, "VALIDATION_ERROR", "query.cursor", "query.page")
		wantError(t, do(t, c, http.MethodGet, engagers+"?cursor=start&offset=10", nil), 400, "VALIDATION_ERROR", "query.cursor", "query.offset")
		wantError(t, do(t, c, http.MethodGet, engagers+"?format=csv&offset=10", nil), 400, "VALIDATION_ERROR", "query.offset")

		// The workflows list pages by offset and takes page and page_size.
		sameAnswer(t, c, "/v1/workflows?offset=1&limit=1", "/v1/workflows?page=2&page_size=1", "/v1/workflows?page=2&limit=1", "/v1/workflows?offset=1&page_size=1")
		sameAnswer(t, c, "/v1/workflows?limit=2", "/v1/workflows?page_size=2")
		wantError(t, do(t, c, http.MethodGet, "/v1/workflows?limit=2&page_size=2", nil), 400, "VALIDATION_ERROR", "query.limit", "query.page_size")
		wantError(t, do(t, c, http.MethodGet, "/v1/workflows?page=2&offset=1", nil), 400, "VALIDATION_ERROR", "query.page", "query.offset")
		wantError(t, do(t, c, http.MethodGet, "/v1/workflows?page_size=101", nil), 400, "VALIDATION_ERROR", "query.page_size")
		wantError(t, do(t, c, http.MethodGet, "/v1/workflows?page=10000001", nil), 400, "VALIDATION_ERROR", "query.page")
		wantHint(t, c, "/v1/workflows?cursor=abc", "query.cursor", "pages by offset")

		// The cursor lists take page_size for limit, within limit's bounds.
		results := "/v1/searches/" + searchID + "/results"
		for _, cl := range []struct {
			list string
			most int
		}{{"/v1/searches", 100}, {results, 500}} {
			sameAnswer(t, c, cl.list+"?limit=2", cl.list+"?page_size=2")
			var first struct {
				Pagination struct {
					NextCursor *string `json:"next_cursor"`
				} `json:"pagination"`
			}
			if err := json.Unmarshal(mustDo(t, c, http.MethodGet, cl.list+"?limit=1", nil, 200).Body, &first); err != nil || first.Pagination.NextCursor == nil {
				t.Fatalf("%s?limit=1: no next cursor (%v)", cl.list, err)
			}
			next := "cursor=" + *first.Pagination.NextCursor
			sameAnswer(t, c, cl.list+"?limit=1&"+next, cl.list+"?page_size=1&"+next)
			wantError(t, do(t, c, http.MethodGet, cl.list+"?limit=2&page_size=2", nil), 400, "VALIDATION_ERROR", "query.limit", "query.page_size")
			wantError(t, do(t, c, http.MethodGet, fmt.Sprintf("%s?page_size=%d", cl.list, cl.most+1), nil), 400, "VALIDATION_ERROR", "query.page_size")
			wantError(t, do(t, c, http.MethodGet, cl.list+"?page_size=0", nil), 400, "VALIDATION_ERROR", "query.page_size")
			wantHint(t, c, cl.list+"?page=2", "query.page", "pages by cursor")
			wantHint(t, c, cl.list+"?offset=20", "query.offset", "pages by cursor")
		}
	})
}

// sameAnswer checks that every path answers 200 with the first's data and
// paging. Collection may still add rows between two reads, so a difference
// counts only when the first path, read again, answers as it did.
func sameAnswer(t *testing.T, c *client.Client, paths ...string) {
	t.Helper()
	read := func(path string) []byte {
		var body struct {
			Data       json.RawMessage `json:"data"`
			Pagination json.RawMessage `json:"pagination"`
		}
		if err := json.Unmarshal(mustDo(t, c, http.MethodGet, path, nil, 200).Body, &body); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(body.Data, []byte("[]")) || bytes.Equal(body.Data, []byte(`{"items":[],"has_more":false,"total":0}`)) {
			t.Fatalf("%s: an empty page proves nothing", path)
		}
		return append(append([]byte{}, body.Data...), body.Pagination...)
	}
	for attempt := 0; ; attempt++ {
		want := read(paths[0])
		var differs string
		for _, p := range paths[1:] {
			if got := read(p); !bytes.Equal(got, want) {
				differs = fmt.Sprintf("%s answered\n%s\nbut %s answered\n%s", paths[0], want, p, got)
				break
			}
		}
		if differs == "" {
			return
		}
		if bytes.Equal(read(paths[0]), want) || attempt == 5 {
			t.Fatal(differs)
		}
	}
}

// wantHint checks that a paging parameter a list does not take is a 400
// naming it and saying how the list pages.
func wantHint(t *testing.T, c *client.Client, path, field, hint string) {
	t.Helper()
	r := do(t, c, http.MethodGet, path, nil)
	wantError(t, r, 400, "VALIDATION_ERROR", field)
	if !strings.Contains(string(r.Body), hint) {
		t.Fatalf("%s: %s does not say %q", path, r.Body, hint)
	}
}

package sandbox

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzNotionLinearPipedriveBodies throws arbitrary JSON bodies and ids at
// every endpoint of the Notion, Linear and Pipedrive servers: no panic,
// never a 5xx, and always a JSON answer.
func FuzzNotionLinearPipedriveBodies(f *testing.F) {
	for _, seed := range []string{
		`{"parent":{"database_id":"x"},"properties":{"Name":{"title":[{"text":{"content":"a"}}]}}}`,
		`{"properties":{"Score":{"number":"x"},"Tags":{"multi_select":[1]}},"children":[{"type":"paragraph","paragraph":{}}]}`,
		`{"filter":{"property":"Email","email":{"equals":null}}}`,
		`{"operationName":"IssueCreate","query":"mutation IssueCreate","variables":{"input":{"teamId":"ENG","title":"t","priority":9,"labelIds":[null]}}}`,
		`{"operationName":"TeamStates","query":"query TeamStates","variables":{"teamId":5}}`,
		`{"name":"A","email":[{"value":3}],"org_id":"7","phone":["x"]}`,
		`{"title":"t","person_id":1.5,"organization_id":"2"}`,
		`{"content":"c","lead_id":7,"deal_id":"1"}`,
		`null`, `[]`, `{`,
	} {
		f.Add(seed, "1")
	}
	h := New(Config{Seed: 1}).Handler()
	f.Fuzz(func(t *testing.T, body, ident string) {
		id := url.PathEscape(ident)
		for _, r := range []struct{ method, path string }{
			{"POST", "/notion/v1/search"}, {"POST", "/notion/v1/pages"}, {"PATCH", "/notion/v1/pages/" + id},
			{"POST", "/notion/v1/databases/" + id + "/query"}, {"POST", "/linear/graphql"},
			{"POST", "/pipedrive/v1/persons"}, {"PUT", "/pipedrive/v1/persons/" + id}, {"POST", "/pipedrive/v1/organizations"},
			{"POST", "/pipedrive/v1/leads"}, {"POST", "/pipedrive/v1/notes"},
			{"GET", "/pipedrive/v1/persons/search?term=" + id + "&exact_match=true"},
		} {
			req := httptest.NewRequest(r.method, r.path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer tok")
			req.Header.Set("Notion-Version", "2022-06-28")
			req.Header.Set("x-api-token", "tok")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code/100 == 3 { // the mux cleaning a path of dots
				continue
			}
			if w.Code >= 500 || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
				if w.Code != http.StatusTooManyRequests || !strings.Contains(body+ident, "flaky-") {
					t.Fatalf("%s %s %q: %d %s", r.method, r.path, body, w.Code, w.Body)
				}
			}
		}
	})
}

package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// TestPageBounds: a page number past what any list can hold is refused on
// every list paged by number, naming the parameter, on both engines (it
// overflowed into page 1 on SQLite and a 500 on PostgreSQL); the deepest
// page allowed is an empty page that still counts the list.
func TestPageBounds(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		tp := createTopic(t, c, map[string]any{"name": "revops", "keywords": []string{"revops"}})
		_, _, wf := hookFlow(t, ts)

		lists := []string{
			"/v1/topics",
			"/v1/topics/" + tp.ID + "/posts",
			"/v1/topics/" + tp.ID + "/engagements",
			"/v1/topics/" + tp.ID + "/posts/7000000000000000001/engagements",
			"/v1/workflows/" + wf + "/executions",
		}
		for _, list := range lists {
			for _, page := range []string{"9223372036854775807", "10000001"} {
				wantError(t, do(t, c, http.MethodGet, list+"?page_size=100&page="+page, nil), 400, "VALIDATION_ERROR", "query.page")
			}
		}
		var topics struct {
			Data       []json.RawMessage `json:"data"`
			Pagination struct {
				Page       int   `json:"page"`
				TotalCount int64 `json:"total_count"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/topics?page_size=100&page=10000000", nil, 200).Body, &topics); err != nil {
			t.Fatal(err)
		}
		if len(topics.Data) != 0 || topics.Pagination.Page != 10000000 || topics.Pagination.TotalCount != 1 {
			t.Fatalf("deepest page: %+v", topics)
		}
		mustDo(t, c, http.MethodGet, "/v1/workflows/"+wf+"/executions?page_size=100&page=10000000", nil, 200)

		// The lists paged otherwise keep the same bound.
		wantError(t, do(t, c, http.MethodPost, "/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"revops"}, "engaged_with_days": 7, "page": int64(9223372036854775807)}), 400, "VALIDATION_ERROR", "body.page")
		wantError(t, do(t, c, http.MethodGet, "/v1/workflows?offset=9223372036854775807", nil), 400, "VALIDATION_ERROR", "query.offset")
	})
}

package pronet_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// FuzzListItems: whatever one item of a search page is, the well-formed item beside it is read,
// and a page that is valid JSON is never an error.
func FuzzListItems(f *testing.F) {
	for _, s := range []string{`"<html>"`, `null`, `{}`, `{"urn": {}}`, `{"urn": "1", "author": []}`, `[1,2]`, `7`, `true`} {
		f.Add(s)
	}
	var item atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"success": true, "data": {"items": [` + item.Load().(string) +
			`, {"urn": "7301234567890123456", "text": "kept"}], "total": 2, "totalPage": 1, "currentPage": 1}}`))
	}))
	f.Cleanup(srv.Close)
	c := pronet.New(pronet.Config{BaseURL: srv.URL, APIKey: "k"})
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		item.Store(raw)
		page, err := c.SearchPosts(t.Context(), pronet.SearchParams{Keywords: "crm"})
		if err != nil {
			t.Fatalf("item %s: %v", raw, err)
		}
		if n := len(page.Items); n == 0 || n > 2 || page.Items[n-1].Text != "kept" {
			t.Fatalf("item %s: %d items, the well-formed one lost", raw, n)
		}
	})
}

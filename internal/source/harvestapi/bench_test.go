package harvestapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source/harvestapi"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

// BenchmarkProfilePostsOverhead is one ProfilePosts call (a vendor page of 20 posts) against a
// loopback fake: the adapter's own cost beside the vendor's seconds.
func BenchmarkProfilePostsOverhead(b *testing.B) {
	var items []string
	for i := range 20 {
		ts := now.Add(-time.Duration(i) * time.Hour)
		items = append(items, postItem(idAt(ts), ts))
	}
	body := listBody(items, pag(1, 5, 100, 20, "t"))
	srv := sourcetest.NewServer(b, func(w http.ResponseWriter, r *http.Request, n int) { sourcetest.JSON(w, 200, body) })
	c := harvestapi.New(harvestapi.Config{BaseURL: srv.URL, APIKey: key})
	ctx := context.Background()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		posts, _, err := c.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: "nickbennett05"})
		if err != nil || len(posts) != 20 {
			b.Fatal(err)
		}
	}
}

package pronet_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

func BenchmarkProfilePosts50(b *testing.B) {
	body := `{"success":true,"message":"","data":[` + strings.TrimSuffix(strings.Repeat(postRecord+",", 50), ",") + `],"paginationToken":"t"}`
	srv := sourcetest.NewServer(b, func(w http.ResponseWriter, r *http.Request, n int) { sourcetest.JSON(w, 200, body) })
	c := pronet.New(pronet.Config{BaseURL: srv.URL, APIKey: "k"})
	ctx := context.Background()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		posts, _, err := c.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: "jane-doe"})
		if err != nil || len(posts) != 50 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*50), "ns/post")
}

func BenchmarkParsePostURN(b *testing.B) {
	for b.Loop() {
		if _, err := pronet.ParsePostURN("https://www.linkedin.com/posts/jane-doe_hiring-activity-7301234567890123456-AbCd"); err != nil {
			b.Fatal(err)
		}
	}
}

package pronet_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

func TestPostAndLimitsAgainstSandbox(t *testing.T) {
	sb := sandbox.New(sandbox.Config{Seed: 2, Now: func() time.Time { return now }})
	srv := httptest.NewServer(sb.Handler())
	t.Cleanup(srv.Close)
	c := pronet.New(pronet.Config{BaseURL: srv.URL + "/pronet", APIKey: "k", Sleep: (&sourcetest.Sleeper{}).Sleep})
	ctx := context.Background()
	co := sb.World().Companies()[4]
	posts, err := c.CompanyPosts(ctx, co.Slug)
	if err != nil || len(posts) == 0 {
		t.Fatalf("company posts: %d, %v", len(posts), err)
	}
	best := posts[0]
	for _, p := range posts {
		if p.CommentsCount > best.CommentsCount {
			best = p
		}
	}
	got, err := c.Post(ctx, best.URN)
	if err != nil {
		t.Fatal(err)
	}
	if got.URN != best.URN || got.Text != best.Text || got.PostURL != best.PostURL || got.CommentsCount != best.CommentsCount {
		t.Errorf("post = %+v, want %+v", got, best)
	}
	if best.CommentsCount < 2 || best.TotalReactionCount < 2 {
		t.Fatalf("no post with engagement among %d", len(posts))
	}
	page, err := c.Comments(ctx, best.URN, 1, 1)
	if err != nil || len(page.Comments) != 1 || page.TotalPage != page.Total || page.CurrentPage != 1 {
		t.Errorf("comments limit 1 = %+v, %v", page, err)
	}
	reactions, err := c.Reactions(ctx, best.URN, 2, 1)
	if err != nil || len(reactions.Items) != 1 || reactions.TotalPage != reactions.Total || reactions.CurrentPage != 2 {
		t.Errorf("reactions limit 1 page 2 = %+v, %v", reactions, err)
	}
	id, _ := strconv.ParseUint(best.URN, 10, 64)
	if _, err := c.Post(ctx, strconv.FormatUint(id+1, 10)); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("unknown post: %v, want ErrNotFound", err)
	}
	var up *source.UpstreamError
	if _, err := c.Comments(ctx, best.URN, 1, 101); !errors.As(err, &up) || up.Status != http.StatusBadRequest {
		t.Errorf("limit 101: %v, want the provider's 400", err)
	}
}

func TestPostRequest(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			sourcetest.JSON(w, 200, `{"success": true, "message": "ok", "data": `+postRecord+`}`)
			return
		}
		sourcetest.JSON(w, 200, `{"success": true, "message": "ok", "data": null}`)
	})
	c, _ := newClient(t, srv)
	p, err := c.Post(context.Background(), "7301234567890123456")
	if err != nil || p.URN != "7301234567890123456" || p.CommentsCount != 4 {
		t.Fatalf("post = %+v, %v", p, err)
	}
	if req := srv.Requests()[0]; req.Path != "/post" || req.Query.Get("urn") != "7301234567890123456" {
		t.Errorf("request %s %v", req.Path, req.Query)
	}
	if _, err := c.Post(context.Background(), "7301234567890123456"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("a 200 without a post: %v, want ErrNotFound", err)
	}
	if _, err := c.Post(context.Background(), ""); err == nil {
		t.Error("empty urn sent")
	}
}

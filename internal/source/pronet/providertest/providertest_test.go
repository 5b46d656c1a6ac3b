package providertest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/pronet/providertest"
)

// TestLacksAndPrices runs the suite on a priced provider that lacks company posts and the
// author title filter, so the suite's own paths for both are tried.
func TestLacksAndPrices(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		Name: "partial",
		New: func(base, key string, hc *http.Client, now func() time.Time, sleep func(context.Context, time.Duration) error) pronet.Provider {
			return partial{pronet.New(pronet.Config{BaseURL: base, APIKey: key, HTTP: hc, Now: now, Sleep: sleep})}
		},
		Upstream: (*sandbox.Server).PronetURL,
		Lacks:    []string{"company_posts", "search/authorTitle"},
		Priced:   true,
	})
}

// partial is the contract client billed 0.002 USD a call, without company posts and without
// the author title filter.
type partial struct{ *pronet.Client }

const callCost source.Micros = 2000

func (p partial) Name() string { return "partial" }

func (p partial) ProfilePosts(ctx context.Context, q pronet.ProfilePostsParams) ([]pronet.Post, string, error) {
	source.AddCost(ctx, callCost)
	return p.Client.ProfilePosts(ctx, q)
}

func (p partial) CompanyPosts(context.Context, string) ([]pronet.Post, error) {
	return nil, pronet.Unsupported("partial", "company posts")
}

func (p partial) Post(ctx context.Context, urn string) (pronet.Post, error) {
	source.AddCost(ctx, callCost)
	return p.Client.Post(ctx, urn)
}

func (p partial) Comments(ctx context.Context, urn string, page, limit int) (pronet.CommentsPage, error) {
	source.AddCost(ctx, callCost)
	return p.Client.Comments(ctx, urn, page, limit)
}

func (p partial) Reactions(ctx context.Context, urn string, page, limit int) (pronet.ReactionsPage, error) {
	source.AddCost(ctx, callCost)
	return p.Client.Reactions(ctx, urn, page, limit)
}

func (p partial) SearchPosts(ctx context.Context, q pronet.SearchParams) (pronet.SearchPage, error) {
	if q.AuthorTitle != "" {
		return pronet.SearchPage{}, pronet.Unsupported("partial", "search by author title")
	}
	source.AddCost(ctx, callCost)
	return p.Client.SearchPosts(ctx, q)
}

func (p partial) Profile(ctx context.Context, username string) (pronet.Profile, error) {
	source.AddCost(ctx, callCost)
	return p.Client.Profile(ctx, username)
}

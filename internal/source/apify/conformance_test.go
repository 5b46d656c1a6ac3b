package apify_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source/apify"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/pronet/providertest"
)

func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{Name: "apify", New: newForSuite, Upstream: (*sandbox.Server).ApifyURL, Priced: true,
		Lacks: []string{"search/mentionsMember", "search/mentionsOrganization"},
		// HarvestAPI's actors log a vendor's not-found and push nothing (their src/main.ts): a
		// missing profile, company or post reads as one without posts, comments or reactions.
		EmptyWhenMissing: []string{"profile_posts", "company_posts", "comments", "reactions"}})
}

func newForSuite(base, key string, hc *http.Client, now func() time.Time, sleep func(context.Context, time.Duration) error) pronet.Provider {
	return apify.New(apify.Config{BaseURL: base, Token: key, HTTP: hc, Now: now, Sleep: sleep, Prices: apify.DefaultPrices()})
}

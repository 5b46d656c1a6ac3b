package harvestapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source/harvestapi"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/pronet/providertest"
)

func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{Name: "harvestapi", New: newForSuite, Upstream: (*sandbox.Server).HarvestAPIURL, Priced: true})
}

func newForSuite(base, key string, hc *http.Client, now func() time.Time, sleep func(context.Context, time.Duration) error) pronet.Provider {
	return harvestapi.New(harvestapi.Config{BaseURL: base, APIKey: key, HTTP: hc, Now: now, Sleep: sleep, Prices: harvestapi.DefaultPrices()})
}

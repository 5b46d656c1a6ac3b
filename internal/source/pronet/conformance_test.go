package pronet_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/pronet/providertest"
)

func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{Name: pronet.ContractName, New: newContract, Upstream: (*sandbox.Server).PronetURL})
}

func newContract(base, key string, hc *http.Client, now func() time.Time, sleep func(context.Context, time.Duration) error) pronet.Provider {
	return pronet.New(pronet.Config{BaseURL: base, APIKey: key, HTTP: hc, Now: now, Sleep: sleep})
}

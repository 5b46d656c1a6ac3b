package app

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"time"

	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/netguard"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

// newConnector opens accounts' connections for the API (probes, lookups)
// and the engine (actions). Their requests go through the guarded client:
// a credential may name its own host (a Salesforce instance). When the
// integrations are the sandbox's, its loopback address alone is let
// through, for this client only.
func newConnector(cfg *config.Config, st *store.Store, box *secret.Box, sources Sources, opts Options) (*integration.Connector, error) {
	guard := netguard.Options{Allow: cfg.PrivateNetworks()}
	if sources.IntegrationSandbox != "" {
		u, err := url.Parse(sources.IntegrationSandbox)
		if err != nil {
			return nil, fmt.Errorf("integrations: sandbox address: %w", err)
		}
		ip, err := netip.ParseAddr(u.Hostname())
		if err != nil {
			return nil, fmt.Errorf("integrations: sandbox address: %w", err)
		}
		guard.Allow = append(guard.Allow, netip.PrefixFrom(ip, ip.BitLen()))
	}
	hc := netguard.NewClient(guard)
	hc.Timeout = 30 * time.Second
	return &integration.Connector{
		HTTP:  hc,
		URLs:  sources.IntegrationURLs,
		Now:   opts.Now,
		Sleep: source.SleepContext,
		Load: func(ctx context.Context, accountID, typ string) (integration.Credentials, error) {
			_, sealed, err := st.IntegrationCredentials(ctx, accountID, typ)
			if errors.Is(err, store.ErrNotFound) {
				return nil, fmt.Errorf("integration %s: %w", typ, integration.ErrNotConnected)
			}
			if err != nil {
				return nil, err
			}
			return integration.Open(box, sealed, accountID, typ)
		},
		Save: func(ctx context.Context, accountID, typ string, creds integration.Credentials) error {
			sealed, err := integration.Seal(box, creds, accountID, typ)
			if err != nil {
				return err
			}
			return st.RenewIntegrationCredentials(ctx, accountID, typ, sealed)
		},
	}, nil
}

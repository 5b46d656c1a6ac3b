package app

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/apify"
	"github.com/trawlhq/trawl/internal/source/enrich"
	"github.com/trawlhq/trawl/internal/source/harvestapi"
	"github.com/trawlhq/trawl/internal/source/microblog"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// Sources are the connectors to the upstream platforms.
type Sources struct {
	Microblog *microblog.Client
	Pronet    pronet.Provider
	Enrich    *enrich.Client
	// LLM is the chat-completions API of generic_agent steps: the
	// configured one, or the sandbox's model.
	LLM LLMEndpoint
	// IntegrationURLs are the API base URLs of the integrations' services
	// by connection type (internal/integration) that replace the live
	// services': the sandbox's, and TRAWL_INTEGRATION_URLS.
	IntegrationURLs map[string]string
	// IntegrationSandbox is the address (host:port) of the sandbox the
	// integrations reach, "" when they reach the live services.
	IntegrationSandbox string
	// sandbox serves every source whose URL is unset; nil when none is.
	sandbox *sandbox.Server
}

// Close stops the sandbox, if one runs.
func (s Sources) Close() error {
	if s.sandbox == nil {
		return nil
	}
	return s.sandbox.Close()
}

// LLMEndpoint is where generic_agent steps ask a model.
type LLMEndpoint struct {
	URL, Key, Model string
	// Sandbox is set when URL is the built-in sandbox's, on loopback.
	Sandbox bool
}

// sandboxCredential is what the connectors send to the sandbox, which
// accepts any non-empty credential.
const sandboxCredential = "sandbox"

// OpenSources builds the connectors. A source without a URL talks to the
// built-in sandbox, started on loopback for the life of ctx; sandbox data is
// never mixed with a real upstream of the same source.
func OpenSources(ctx context.Context, cfg *config.Config, opts Options) (Sources, error) {
	mbURL, mbToken := cfg.MicroblogAPIURL, cfg.MicroblogBearerToken
	pnURL, pnKey := cfg.PronetAPIURL, cfg.PronetAPIKey
	pnSandbox := pronetUsesSandbox(cfg)
	enURL, enKey := cfg.EnrichAPIURL, cfg.EnrichAPIKey
	llm := LLMEndpoint{URL: cfg.LLMAPIURL, Key: cfg.LLMAPIKey, Model: cfg.LLMModel}
	intURLs, err := integrationURLs(cfg)
	if err != nil {
		return Sources{}, err
	}
	intSandbox := cfg.IntegrationSandbox == "on" || cfg.IntegrationSandbox != "off" && mbURL == "" && pnSandbox && enURL == ""
	var sb *sandbox.Server
	if mbURL == "" || pnSandbox || enURL == "" || llm.URL == "" || intSandbox {
		var err error
		sb, err = sandbox.Start(ctx, "127.0.0.1:0", sandbox.Config{Seed: cfg.SandboxSeed, Now: opts.Now, Logger: opts.Log.With("component", "sandbox")})
		if err != nil {
			return Sources{}, err
		}
		for name, unset := range map[string]bool{"microblog": mbURL == "", "pronet": pnSandbox, "enrich": enURL == "", "llm": llm.URL == "", "integrations": intSandbox} {
			if unset {
				opts.Log.Info("source uses the built-in sandbox", "source", name, "seed", cfg.SandboxSeed)
			}
		}
	}
	if mbURL == "" {
		mbURL, mbToken = sb.MicroblogURL(), sandboxCredential
	}
	if pnSandbox {
		pnURL, pnKey = pronetSandboxURL(sb, cfg.PronetProvider), sandboxCredential
	}
	if enURL == "" {
		enURL, enKey = sb.EnrichURL(), sandboxCredential
	}
	if llm.URL == "" {
		llm = LLMEndpoint{URL: sb.LLMURL(), Key: sandboxCredential, Model: cmp.Or(cfg.LLMModel, sandbox.LLMModel), Sandbox: true}
	}
	var intAddr string
	if intSandbox {
		intAddr = sb.Addr()
		for _, name := range integration.Names() {
			if _, set := intURLs[name]; !set {
				intURLs[name] = sb.IntegrationURL(name)
			}
		}
	} else {
		opts.Log.Info("integrations reach the live services", "overridden", len(intURLs))
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	pn, err := openPronet(cfg, pnURL, pnKey, hc, opts)
	if err != nil {
		if sb != nil {
			sb.Close()
		}
		return Sources{}, err
	}
	return Sources{
		Microblog:          microblog.New(microblog.Config{BaseURL: mbURL, BearerToken: mbToken, HTTP: hc, Now: opts.Now, Sleep: source.SleepContext}),
		Pronet:             pn,
		Enrich:             enrich.New(enrich.Config{BaseURL: enURL, APIKey: enKey, HTTP: hc, Now: opts.Now, Sleep: source.SleepContext}),
		LLM:                llm,
		IntegrationURLs:    intURLs,
		IntegrationSandbox: intAddr,
		sandbox:            sb,
	}, nil
}

// integrationURLs reads TRAWL_INTEGRATION_URLS; every name must be a
// connection type.
func integrationURLs(cfg *config.Config) (map[string]string, error) {
	urls, err := config.ParseURLMap(cfg.IntegrationURLs)
	if err != nil {
		return nil, fmt.Errorf("TRAWL_INTEGRATION_URLS: %w", err)
	}
	for name := range urls {
		if _, ok := integration.Lookup(name); !ok {
			return nil, fmt.Errorf("TRAWL_INTEGRATION_URLS: %q is not a connection type; the types are %s", name, strings.Join(integration.Names(), ", "))
		}
	}
	return urls, nil
}

// pronetUsesSandbox reports whether the pronet provider is the built-in sandbox: no URL and,
// for a vendor, no key either (a vendor named with its key and no URL is its public API).
func pronetUsesSandbox(cfg *config.Config) bool {
	vendor := cfg.PronetProvider != "" && cfg.PronetProvider != pronet.ContractName
	return cfg.PronetAPIURL == "" && (!vendor || cfg.PronetAPIKey == "")
}

// pronetSandboxURL is where the built-in sandbox serves the protocol of provider.
func pronetSandboxURL(sb *sandbox.Server, provider string) string {
	switch provider {
	case "harvestapi":
		return sb.HarvestAPIURL()
	case "apify":
		return sb.ApifyURL()
	default:
		return sb.PronetURL()
	}
}

// providerDefaults are a vendor's own limits, used where the settings say 0.
type providerDefaults struct {
	rate        float64
	burst       int
	concurrency int
}

// openPronet builds the provider of TRAWL_PRONET_PROVIDER and wraps it in the limits of the
// settings (0: the provider's defaults).
func openPronet(cfg *config.Config, baseURL, key string, hc *http.Client, opts Options) (pronet.Provider, error) {
	var (
		p    pronet.Provider
		defs providerDefaults
	)
	switch cfg.PronetProvider {
	case "", pronet.ContractName:
		// The contract publishes no limits: none unless the settings give them.
		p = pronet.New(pronet.Config{BaseURL: baseURL, APIKey: key, HTTP: hc, Now: opts.Now, Sleep: source.SleepContext})
	case "harvestapi":
		prices, err := pronet.ParsePrices(cfg.PronetPrices, harvestapi.DefaultPrices())
		if err != nil {
			return nil, fmt.Errorf("TRAWL_PRONET_PRICES: %w", err)
		}
		p = harvestapi.New(harvestapi.Config{BaseURL: baseURL, APIKey: key, HTTP: hc, Now: opts.Now, Sleep: source.SleepContext, Prices: prices})
		defs = providerDefaults{rate: harvestapi.DefaultRateLimit, burst: harvestapi.DefaultConcurrency, concurrency: harvestapi.DefaultConcurrency}
	case "apify":
		prices, err := pronet.ParsePrices(cfg.PronetPrices, apify.DefaultPrices())
		if err != nil {
			return nil, fmt.Errorf("TRAWL_PRONET_PRICES: %w", err)
		}
		actors, err := apify.ParseActors(cfg.ApifyActors)
		if err != nil {
			return nil, fmt.Errorf("TRAWL_APIFY_ACTORS: %w", err)
		}
		p = apify.New(apify.Config{BaseURL: baseURL, Token: key, HTTP: hc, Now: opts.Now, Sleep: source.SleepContext, Prices: prices, Actors: actors})
		defs = providerDefaults{rate: apify.DefaultRateLimit, burst: apify.DefaultConcurrency, concurrency: apify.DefaultConcurrency}
	default:
		return nil, fmt.Errorf("pronet provider %q (TRAWL_PRONET_PROVIDER): unknown", cfg.PronetProvider)
	}
	return pronet.Limit(p, pronetLimits(cfg, defs, opts)), nil
}

// pronetLimits are the limits of the settings over the provider's defaults. A call waits for the
// vendor's rate-limit resets at most a quarter of the lease of the run that makes it, so that a
// hydration that waits still ends well within its lease. The limiter sleeps for real, so it keeps
// its bucket on the wall clock even when the service runs on an injected one.
func pronetLimits(cfg *config.Config, defs providerDefaults, opts Options) pronet.Limits {
	l := pronet.Limits{Rate: cfg.PronetRateLimit, Burst: defs.burst, Concurrency: cfg.PronetConcurrency,
		MaxWait: cfg.SearchRunLease / 4, Now: opts.Now, Wall: time.Now, Sleep: source.SleepContext}
	if l.Rate == 0 {
		l.Rate = defs.rate
	}
	if l.Concurrency == 0 {
		l.Concurrency = defs.concurrency
	}
	return l
}

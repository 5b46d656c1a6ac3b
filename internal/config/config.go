// Package config is Trawl's settings: one struct filled from flags and
// TRAWL_* environment variables, validated once before anything starts.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/netguard"
	"github.com/trawlhq/trawl/internal/secret"
)

// Config holds every setting shared by the trawl commands. Each flag --x-y
// is also read from the environment variable TRAWL_X_Y.
type Config struct {
	Addr        string `name:"addr" default:"127.0.0.1:8080" help:"Address the API listens on (TRAWL_ADDR)."`
	DataDir     string `name:"data-dir" default:"./trawl-data" help:"Folder for the SQLite database and the bootstrap key (TRAWL_DATA_DIR)."`
	DatabaseURL string `name:"database-url" help:"sqlite://PATH or postgres://… (TRAWL_DATABASE_URL); default sqlite://<data dir>/trawl.db."`
	Role        string `name:"role" default:"all" enum:"all,api,worker" help:"What this process runs: all, api or worker (TRAWL_ROLE)."`
	LogFormat   string `name:"log-format" default:"auto" enum:"auto,json,text" help:"Log format; auto is text on a terminal, JSON otherwise (TRAWL_LOG_FORMAT)."`
	LogLevel    string `name:"log-level" default:"info" enum:"debug,info,warn,error" help:"Lowest level logged (TRAWL_LOG_LEVEL)."`

	MicroblogAPIURL      string  `name:"microblog-api-url" help:"X API v2 base URL; unset uses the sandbox (TRAWL_MICROBLOG_API_URL)."`
	MicroblogBearerToken string  `name:"microblog-bearer-token" help:"X API v2 bearer token (TRAWL_MICROBLOG_BEARER_TOKEN)."`
	PronetProvider       string  `name:"pronet-provider" default:"sandbox" enum:"sandbox,harvestapi,apify" help:"Who serves pronet data: sandbox (Trawl's provider contract), harvestapi (HarvestAPI's REST API) or apify (Apify actors) (TRAWL_PRONET_PROVIDER)."`
	PronetAPIURL         string  `name:"pronet-api-url" help:"Base URL of the pronet provider; unset uses the built-in sandbox speaking that provider's protocol (TRAWL_PRONET_API_URL)."`
	PronetAPIKey         string  `name:"pronet-api-key" help:"Key of the pronet provider: the contract's x-api-key, HarvestAPI's X-API-Key or Apify's API token (TRAWL_PRONET_API_KEY)."`
	PronetPrices         string  `name:"pronet-prices" help:"Vendor prices overriding the provider's published defaults, as op=USD/call or op=USD/item, comma-separated; ops: search, profile_posts, company_posts, post, comments, reactions, profile (TRAWL_PRONET_PRICES)."`
	PronetRateLimit      float64 `name:"pronet-rate-limit" default:"0" help:"Most pronet provider requests per second from this process; 0 is the provider's default (TRAWL_PRONET_RATE_LIMIT)."`
	PronetConcurrency    int     `name:"pronet-concurrency" default:"0" help:"Most pronet provider requests in flight from this process; 0 is the provider's default (TRAWL_PRONET_CONCURRENCY)."`
	ApifyActors          string  `name:"apify-actors" help:"Apify actors per operation overriding the defaults, as op=owner~name, comma-separated; ops as for pronet-prices (TRAWL_APIFY_ACTORS)."`
	EnrichAPIURL         string  `name:"enrich-api-url" help:"People Data Labs base URL; unset uses the sandbox (TRAWL_ENRICH_API_URL)."`
	EnrichAPIKey         string  `name:"enrich-api-key" help:"People Data Labs API key (TRAWL_ENRICH_API_KEY)."`
	LLMAPIURL            string  `name:"llm-api-url" help:"OpenAI-compatible chat-completions base URL (…/v1) for generic_agent steps; unset uses the sandbox model (TRAWL_LLM_API_URL)."`
	LLMAPIKey            string  `name:"llm-api-key" help:"Bearer key of the LLM API; may be empty for local servers (TRAWL_LLM_API_KEY)."`
	LLMModel             string  `name:"llm-model" help:"Model generic_agent steps use unless they name one; required with TRAWL_LLM_API_URL (TRAWL_LLM_MODEL)."`
	IntegrationSandbox   string  `name:"integration-sandbox" default:"auto" enum:"auto,on,off" help:"Whether connections (HubSpot, Slack, Google Sheets, …) reach the built-in sandbox's copies of those services: on, off (the live services), or auto: on while microblog, pronet and enrich are all the sandbox (TRAWL_INTEGRATION_SANDBOX)."`
	IntegrationURLs      string  `name:"integration-urls" help:"API base URLs overriding services' own (a proxy, a regional host), as type=URL, comma-separated (TRAWL_INTEGRATION_URLS)."`
	SandboxSeed          int64   `name:"sandbox-seed" default:"1" help:"Seed of the sandbox's synthetic world (TRAWL_SANDBOX_SEED)."`

	QueryMaxLength int      `name:"query-max-length" default:"512" help:"Longest compiled X query of a recent search, in characters; full-archive searches may reach 1024 (TRAWL_QUERY_MAX_LENGTH)."`
	MicroblogHosts []string `name:"microblog-hosts" default:"x.com,twitter.com" help:"Host names of microblog profile URLs (TRAWL_MICROBLOG_HOSTS)."`
	PronetHosts    []string `name:"pronet-hosts" default:"linkedin.com" help:"Host names of pronet URLs; subdomains are accepted (TRAWL_PRONET_HOSTS)."`
	APINames       string   `name:"api-names" default:"spec" enum:"spec,hosted" help:"Names in responses and in the OpenAPI document: spec (microblog, pronet_url) or hosted (the hosted API's twitter, linkedin_url); requests take both (TRAWL_API_NAMES)."`

	RateLimitStarter    int `name:"rate-limit-starter" default:"100" help:"Requests per key per minute on STARTER (TRAWL_RATE_LIMIT_STARTER)."`
	RateLimitEnterprise int `name:"rate-limit-enterprise" default:"100" help:"Requests per key per minute on ENTERPRISE (TRAWL_RATE_LIMIT_ENTERPRISE)."`
	RateLimitCustom     int `name:"rate-limit-custom" default:"100" help:"Requests per key per minute on CUSTOM (TRAWL_RATE_LIMIT_CUSTOM)."`

	CreditsStarter    int64 `name:"credits-starter" default:"1000" help:"Monthly credits of STARTER accounts (TRAWL_CREDITS_STARTER)."`
	CreditsEnterprise int64 `name:"credits-enterprise" default:"25000" help:"Monthly credits of ENTERPRISE accounts (TRAWL_CREDITS_ENTERPRISE)."`
	CreditsCustom     int64 `name:"credits-custom" default:"100000" help:"Monthly credits of CUSTOM accounts (TRAWL_CREDITS_CUSTOM)."`

	SearchLimitStarter    int64 `name:"search-limit-starter" default:"0" help:"Most saved searches a STARTER account may keep; 0 is no limit (TRAWL_SEARCH_LIMIT_STARTER)."`
	SearchLimitEnterprise int64 `name:"search-limit-enterprise" default:"0" help:"Most saved searches an ENTERPRISE account may keep; 0 is no limit (TRAWL_SEARCH_LIMIT_ENTERPRISE)."`
	SearchLimitCustom     int64 `name:"search-limit-custom" default:"0" help:"Most saved searches a CUSTOM account may keep; 0 is no limit (TRAWL_SEARCH_LIMIT_CUSTOM)."`

	PublicURL string `name:"public-url" help:"Base URL clients reach this service at, used in webhook trigger URLs; default http://<listen address> (TRAWL_PUBLIC_URL)."`
	SecretKey string `name:"secret-key" help:"Key that encrypts account secrets: 32 bytes as base64 or hex; unset, one is generated into <data dir>/secret-key. Set it when several processes share a database (TRAWL_SECRET_KEY)."`

	ExecutionRetention   time.Duration `name:"execution-retention" default:"720h" help:"How long workflow executions stay readable before they are pruned (TRAWL_EXECUTION_RETENTION)."`
	ConsoleSessionTTL    time.Duration `name:"console-session-ttl" default:"12h" help:"How long a web console sign-in lasts before the key must be entered again (TRAWL_CONSOLE_SESSION_TTL)."`
	AllowPrivateNetworks string        `name:"allow-private-networks" help:"Comma-separated CIDRs that workflow HTTP, Slack, SMTP and LLM calls may reach although private or loopback (TRAWL_ALLOW_PRIVATE_NETWORKS)."`

	MappingMaxCandidates int `name:"mapping-max-candidates" default:"1000000" help:"Most qualifying engagements (creators: authors) a social mapping query may weigh, once its filters are applied, before it is refused as too broad (TRAWL_MAPPING_MAX_CANDIDATES)."`
	MappingCacheBytes    int `name:"mapping-cache-bytes" default:"67108864" help:"Memory, in bytes, each process's cache of the posts social mapping and creator keywords matched may take; the least recently used go first; 0 is the default (TRAWL_MAPPING_CACHE_BYTES)."`

	TickInterval    time.Duration `name:"tick-interval" default:"1m" help:"How often due work is scanned for (TRAWL_TICK_INTERVAL)."`
	SearchRunLease  time.Duration `name:"search-run-lease" default:"10m" help:"How long a search run, topic discovery or post hydration may take before another process retries it (TRAWL_SEARCH_RUN_LEASE)."`
	ShutdownTimeout time.Duration `name:"shutdown-timeout" default:"30s" help:"Grace period for in-flight requests and jobs on shutdown (TRAWL_SHUTDOWN_TIMEOUT)."`

	WebhookMaxBody int64         `name:"webhook-max-body" default:"1048576" help:"Largest webhook request body, in bytes; larger ones are refused with 413 before anything is stored (TRAWL_WEBHOOK_MAX_BODY)."`
	ReadTimeout    time.Duration `name:"read-timeout" default:"10s" help:"How long a client may take to send a request body once its headers are in; slower ones get 408 (TRAWL_READ_TIMEOUT)."`
	WriteTimeout   time.Duration `name:"write-timeout" default:"1m" help:"How long a client may take to receive an answer, from its first byte; a CSV export gets this long for each batch of rows (TRAWL_WRITE_TIMEOUT)."`

	HeartbeatInterval time.Duration `name:"heartbeat-interval" default:"5s" help:"How often a process sharing a PostgreSQL database tells the others it is alive (TRAWL_HEARTBEAT_INTERVAL)."`
	HeartbeatTimeout  time.Duration `name:"heartbeat-timeout" default:"30s" help:"How long after its last heartbeat a PostgreSQL process counts as gone and others take over its work (TRAWL_HEARTBEAT_TIMEOUT)."`
}

// EnvName is the environment variable that sets the flag of the given name.
func EnvName(flag string) string {
	return "TRAWL_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// Check checks every setting and fills in derived defaults. Its error
// names each bad setting by its environment variable. (Not Validate: kong
// calls a Validate method of its grammar by itself, before the command can
// report the environment's unparsable values with it.)
func (c *Config) Check() error {
	var errs []error
	bad := func(flag, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", EnvName(flag), fmt.Sprintf(format, args...)))
	}
	if _, port, err := net.SplitHostPort(c.Addr); err != nil || port == "" {
		bad("addr", "%q is not host:port", c.Addr)
	}
	if strings.TrimSpace(c.DataDir) == "" {
		bad("data-dir", "must not be empty")
	}
	switch c.APINames {
	case "":
		c.APINames = "spec"
	case "spec", "hosted":
	default:
		bad("api-names", "%q is neither spec nor hosted", c.APINames)
	}
	if c.DatabaseURL == "" {
		c.DatabaseURL = "sqlite://" + filepath.Join(c.DataDir, "trawl.db")
	}
	if !strings.HasPrefix(c.DatabaseURL, "sqlite:") && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		bad("database-url", "want sqlite://PATH or postgres://…")
	}
	for flag, v := range map[string]string{"microblog-api-url": c.MicroblogAPIURL, "pronet-api-url": c.PronetAPIURL, "enrich-api-url": c.EnrichAPIURL, "llm-api-url": c.LLMAPIURL} {
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad(flag, "%q is not an absolute http(s) URL", v)
		}
	}
	switch c.IntegrationSandbox {
	case "":
		c.IntegrationSandbox = "auto"
	case "auto", "on", "off":
	default:
		bad("integration-sandbox", "%q is none of auto, on, off", c.IntegrationSandbox)
	}
	if _, err := ParseURLMap(c.IntegrationURLs); err != nil {
		bad("integration-urls", "%v", err)
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("public-url", "%q is not an absolute http(s) URL", c.PublicURL)
		}
		c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	}
	if c.SecretKey != "" {
		if _, err := secret.ParseKey(c.SecretKey); err != nil {
			bad("secret-key", "%v", err)
		}
	}
	if c.MicroblogAPIURL != "" && c.MicroblogBearerToken == "" {
		bad("microblog-bearer-token", "is required when TRAWL_MICROBLOG_API_URL is set")
	}
	if c.PronetRateLimit < 0 {
		bad("pronet-rate-limit", "must not be negative, got %g", c.PronetRateLimit)
	}
	if c.PronetConcurrency < 0 {
		bad("pronet-concurrency", "must not be negative, got %d", c.PronetConcurrency)
	}
	if c.PronetAPIURL != "" && c.PronetAPIKey == "" {
		bad("pronet-api-key", "is required when TRAWL_PRONET_API_URL is set")
	}
	if c.EnrichAPIURL != "" && c.EnrichAPIKey == "" {
		bad("enrich-api-key", "is required when TRAWL_ENRICH_API_URL is set")
	}
	if c.LLMAPIURL != "" && c.LLMModel == "" {
		bad("llm-model", "is required when TRAWL_LLM_API_URL is set")
	}
	for flag, v := range map[string]int{"rate-limit-starter": c.RateLimitStarter, "rate-limit-enterprise": c.RateLimitEnterprise, "rate-limit-custom": c.RateLimitCustom} {
		if v < 1 {
			bad(flag, "must be at least 1, got %d", v)
		}
	}
	for flag, v := range map[string]int64{"credits-starter": c.CreditsStarter, "credits-enterprise": c.CreditsEnterprise, "credits-custom": c.CreditsCustom,
		"search-limit-starter": c.SearchLimitStarter, "search-limit-enterprise": c.SearchLimitEnterprise, "search-limit-custom": c.SearchLimitCustom} {
		if v < 0 {
			bad(flag, "must not be negative, got %d", v)
		}
	}
	if c.QueryMaxLength < 1 {
		bad("query-max-length", "must be at least 1, got %d", c.QueryMaxLength)
	}
	if len(c.MicroblogHosts) == 0 {
		bad("microblog-hosts", "must name at least one host")
	}
	if len(c.PronetHosts) == 0 {
		bad("pronet-hosts", "must name at least one host")
	}
	if c.TickInterval < time.Second {
		bad("tick-interval", "must be at least 1s, got %s", c.TickInterval)
	}
	if c.MappingMaxCandidates < 1 {
		bad("mapping-max-candidates", "must be at least 1, got %d", c.MappingMaxCandidates)
	}
	if c.MappingCacheBytes == 0 {
		c.MappingCacheBytes = 64 << 20 // the flag's default, for configs built in code
	}
	if c.MappingCacheBytes < 1<<20 {
		bad("mapping-cache-bytes", "must be at least 1048576 (1 MiB), got %d", c.MappingCacheBytes)
	}
	if c.SearchRunLease < time.Second {
		bad("search-run-lease", "must be at least 1s, got %s", c.SearchRunLease)
	}
	if _, err := netguard.ParsePrefixes(c.AllowPrivateNetworks); err != nil {
		bad("allow-private-networks", "%v", err)
	}
	if c.ExecutionRetention < time.Hour {
		bad("execution-retention", "must be at least 1h, got %s", c.ExecutionRetention)
	}
	if c.ConsoleSessionTTL < time.Minute || c.ConsoleSessionTTL > 30*24*time.Hour {
		bad("console-session-ttl", "must be between 1m and 720h, got %s", c.ConsoleSessionTTL)
	}
	if c.ShutdownTimeout <= 0 {
		bad("shutdown-timeout", "must be positive, got %s", c.ShutdownTimeout)
	}
	if c.WebhookMaxBody < 1<<10 || c.WebhookMaxBody > 64<<20 {
		bad("webhook-max-body", "must be 1024 to 67108864 bytes (1 KiB to 64 MiB), got %d", c.WebhookMaxBody)
	}
	if c.ReadTimeout < 100*time.Millisecond {
		bad("read-timeout", "must be at least 100ms, got %s", c.ReadTimeout)
	}
	if c.WriteTimeout < time.Second {
		bad("write-timeout", "must be at least 1s, got %s", c.WriteTimeout)
	}
	if c.HeartbeatInterval < 100*time.Millisecond {
		bad("heartbeat-interval", "must be at least 100ms, got %s", c.HeartbeatInterval)
	}
	// Two missed beats at least: one late beat must not pass for a death.
	if c.HeartbeatTimeout < 2*c.HeartbeatInterval {
		bad("heartbeat-timeout", "must be at least twice TRAWL_HEARTBEAT_INTERVAL (%s), got %s", c.HeartbeatInterval, c.HeartbeatTimeout)
	}
	return errors.Join(errs...)
}

// RateLimit is the number of requests a key of the plan may make per minute.
func (c *Config) RateLimit(p auth.Plan) int {
	switch p {
	case auth.PlanEnterprise:
		return c.RateLimitEnterprise
	case auth.PlanCustom:
		return c.RateLimitCustom
	}
	return c.RateLimitStarter
}

// SearchLimit is the most saved searches an account of the plan may keep;
// 0 is no limit.
func (c *Config) SearchLimit(p auth.Plan) int64 {
	switch p {
	case auth.PlanEnterprise:
		return c.SearchLimitEnterprise
	case auth.PlanCustom:
		return c.SearchLimitCustom
	}
	return c.SearchLimitStarter
}

// MonthlyCredits is the allocation of an account: its override or its plan's.
func (c *Config) MonthlyCredits(a auth.Account) int64 {
	if a.MonthlyCredits != nil {
		return *a.MonthlyCredits
	}
	switch a.Plan {
	case auth.PlanEnterprise:
		return c.CreditsEnterprise
	case auth.PlanCustom:
		return c.CreditsCustom
	}
	return c.CreditsStarter
}

// SecretBox opens the box that seals account secrets: TRAWL_SECRET_KEY, or
// the key kept in the data directory (generated on first use).
func (c *Config) SecretBox() (*secret.Box, error) {
	var key []byte
	var err error
	if c.SecretKey != "" {
		key, err = secret.ParseKey(c.SecretKey)
	} else {
		key, err = secret.LoadOrCreateKey(c.DataDir)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvName("secret-key"), err)
	}
	return secret.NewBox(key)
}

// PrivateNetworks are the networks workflow calls may reach although
// private (validated by Check).
func (c *Config) PrivateNetworks() []netip.Prefix {
	p, _ := netguard.ParsePrefixes(c.AllowPrivateNetworks)
	return p
}

// ServesAPI and RunsWorkers tell what the process's role includes.
func (c *Config) ServesAPI() bool   { return c.Role == "all" || c.Role == "api" }
func (c *Config) RunsWorkers() bool { return c.Role == "all" || c.Role == "worker" }

// Default returns the settings of a process given none, validated: what
// `trawl serve` runs on with an empty environment. Programs that start the
// service in-process (the benchmarks) change what they need from there, so
// a new setting never reaches them as its zero value.
func Default() (*Config, error) {
	var c Config
	p, err := kong.New(&c, kong.Exit(func(int) {}))
	if err != nil {
		return nil, fmt.Errorf("config: defaults: %w", err)
	}
	if _, err := p.Parse(nil); err != nil {
		return nil, fmt.Errorf("config: defaults: %w", err)
	}
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("config: defaults: %w", err)
	}
	return &c, nil
}

// ParseURLMap reads "name=URL,name=URL" (TRAWL_INTEGRATION_URLS): names in
// lower case, each once, each URL absolute http(s).
func ParseURLMap(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, v, ok := strings.Cut(part, "=")
		name, v = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(v)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not name=URL", part)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%s is given twice", name)
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s: %q is not an absolute http(s) URL", name, v)
		}
		out[name] = strings.TrimRight(v, "/")
	}
	return out, nil
}

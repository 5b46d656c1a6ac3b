package harvestapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// Name is the provider's setting value (TRAWL_PRONET_PROVIDER=harvestapi); errors name it.
const Name = "harvestapi"

// DefaultBaseURL is HarvestAPI's API.
const DefaultBaseURL = "https://api.harvest-api.com"

// HarvestAPI publishes no request rate limit, only concurrency per plan (Free 1, Starter 5,
// Basic 10, Pro 20, Business 40; answers report user.requestsConcurrency), with a queue of 10
// beyond it. The defaults are the lowest paid plan's: 5 in flight, and 5 requests a second,
// which at about a second per scrape keeps that queue from overflowing.
const (
	DefaultConcurrency = 5
	DefaultRateLimit   = 5.0
)

// DefaultPrices are HarvestAPI's prices per operation. The REST API's own price list was not
// at hand; these are the prices of HarvestAPI's Apify actors for the same data ($2 per 1,000
// posts, comments or reactions, $4 per 1,000 profiles), which the REST API does not exceed.
func DefaultPrices() pronet.Prices {
	return pronet.Prices{
		pronet.OpSearch:       {PerItem: 2000},
		pronet.OpProfilePosts: {PerItem: 2000},
		pronet.OpCompanyPosts: {PerItem: 2000},
		pronet.OpPost:         {PerCall: 2000},
		pronet.OpComments:     {PerItem: 2000},
		pronet.OpReactions:    {PerItem: 2000},
		pronet.OpProfile:      {PerCall: 4000},
	}
}

// Config of a Client. Zero fields fall back to DefaultBaseURL, a 30 s client, a real sleep,
// time.Now and DefaultPrices.
type Config struct {
	BaseURL string
	APIKey  string
	HTTP    *http.Client
	Sleep   func(context.Context, time.Duration) error
	Now     func() time.Time
	Prices  pronet.Prices
}

// Client is a pronet.Provider over HarvestAPI's REST API.
type Client struct {
	base   string
	key    string
	now    func() time.Time
	prices pronet.Prices
	retry  source.Retrier
}

var _ pronet.Provider = (*Client)(nil)

// New returns a Client for cfg.
func New(cfg Config) *Client {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	prices := cfg.Prices
	if prices == nil {
		prices = DefaultPrices()
	}
	r := source.NewRetrier(Name, cfg.HTTP, cfg.Sleep, cfg.Now)
	return &Client{base: base, key: cfg.APIKey, now: r.Now, prices: prices, retry: r}
}

// Name implements pronet.Provider.
func (c *Client) Name() string { return Name }

// Check implements pronet.Provider with the vendor's free key test (GET /linkedin/test). A 404
// still means the key was accepted (a server without the test path); 401, 402 and 403 are a
// bad key or plan.
func (c *Client) Check(ctx context.Context) error {
	_, err := c.get(ctx, "/linkedin/test", nil)
	if err == nil || errors.Is(err, source.ErrNotFound) {
		return nil
	}
	return fmt.Errorf("harvestapi: check key: %w", err)
}

// pagination is the vendor's ApiPagination.
type pagination struct {
	TotalPages       num `json:"totalPages"`
	TotalElements    num `json:"totalElements"`
	PageNumber       num `json:"pageNumber"`
	PageSize         num `json:"pageSize"`
	PaginationToken  str `json:"paginationToken"`
	TotalResultCount num `json:"totalResultCount"`
}

// envelope is the vendor's BaseApiResponse with element (one item) or elements and
// pagination (a list). Items stay raw so that one bad item does not spoil the page.
type envelope struct {
	Status     num               `json:"status"`
	Error      json.RawMessage   `json:"error"`
	Message    str               `json:"message"`
	Element    json.RawMessage   `json:"element"`
	Elements   []json.RawMessage `json:"elements"` // items decoded one by one: a bad one is skipped
	Pagination *pagination       `json:"pagination"`
}

// failed reports whether a 200 carries an error (a message alone does not count).
func (e envelope) failed() bool {
	switch strings.TrimSpace(string(e.Error)) {
	case "", "null", `""`, "false", "{}":
		return false
	}
	return true
}

// errorMessage is the vendor's error text: error as a string or {error, message}, and the
// top-level message, joined.
func (e envelope) errorMessage() string {
	var parts []string
	add := func(s str) {
		if s != "" && !slices.Contains(parts, string(s)) {
			parts = append(parts, string(s))
		}
	}
	var s str
	if len(e.Error) > 0 && json.Unmarshal(e.Error, &s) == nil {
		add(s)
	} else {
		var o struct {
			Error   str `json:"error"`
			Message str `json:"message"`
		}
		if len(e.Error) > 0 && json.Unmarshal(e.Error, &o) == nil {
			add(o.Error)
			add(o.Message)
		}
	}
	add(e.Message)
	return strings.Join(parts, ": ")
}

// get sends GET base+path?q with the key and returns the decoded envelope. Vendor failures
// become the shared errors: 404 or a "not found" message → source.ErrNotFound, 429 →
// *source.RateLimitError (from the retrier), other statuses → *source.UpstreamError.
func (c *Client) get(ctx context.Context, path string, q url.Values) (envelope, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	resp, err := c.retry.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-API-KEY", c.key)
		req.Header.Set("Accept", "application/json")
		return req, nil
	})
	if err != nil {
		return envelope{}, c.redact(err)
	}
	var env envelope
	decodeErr := json.Unmarshal(resp.Body, &env)
	status := resp.Status
	if status < 300 && env.Status >= 400 && env.Status < 600 {
		status = int(env.Status) // a failure reported inside a 200
	}
	msg := c.redactString(env.errorMessage())
	if status >= 300 {
		if decodeErr != nil || msg == "" {
			msg = http.StatusText(status)
		}
		if status == http.StatusBadRequest && notFoundMessage(msg) {
			status = http.StatusNotFound
		}
		return envelope{}, source.StatusError(Name, status, msg)
	}
	if decodeErr != nil {
		return envelope{}, source.DecodeError(Name, status, decodeErr)
	}
	if env.failed() && len(env.Element) == 0 && len(env.Elements) == 0 {
		if notFoundMessage(msg) {
			return envelope{}, fmt.Errorf("%s: %s: %w", Name, msg, source.ErrNotFound)
		}
		return envelope{}, &source.UpstreamError{Source: Name, Status: status, Err: errors.New(msg)}
	}
	return env, nil
}

func notFoundMessage(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "not found") || strings.Contains(m, "not_found") || strings.Contains(m, "does not exist")
}

// redact keeps the key out of error text, should the vendor echo it back.
func (c *Client) redact(err error) error {
	if len(c.key) < minRedactLen || !strings.Contains(err.Error(), c.key) {
		return err
	}
	var ue *source.UpstreamError
	if errors.As(err, &ue) {
		return &source.UpstreamError{Source: ue.Source, Status: ue.Status, Err: errors.New(c.redactString(ue.Err.Error()))}
	}
	return errors.New(c.redactString(err.Error()))
}

// minRedactLen: a key shorter than this (a test's "k") would mangle words if replaced.
const minRedactLen = 6

func (c *Client) redactString(s string) string {
	if len(c.key) < minRedactLen {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[key]")
}

// bill adds one successful billed call to the meter of ctx.
func (c *Client) bill(ctx context.Context, op string, items int) {
	source.AddCost(ctx, c.prices.Cost(op, items))
}

// postsPage decodes a list of posts, skipping items that do not decode or have no id.
func postsPage(raw []json.RawMessage) []pronet.Post {
	out := make([]pronet.Post, 0, len(raw))
	for _, it := range raw {
		p, err := PostFromItem(it)
		if err != nil {
			continue
		}
		out = append(out, p)
	}
	return out
}

// decodeErr is a 200 whose body is not the shape documented.
func decodeErr(err error) error { return source.DecodeError(Name, http.StatusOK, err) }

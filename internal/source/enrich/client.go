package enrich

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// SourceName prefixes this package's errors.
const SourceName = "enrich"

// DefaultBaseURL is People Data Labs' API.
const DefaultBaseURL = "https://api.peopledatalabs.com"

// Config of a Client. Zero HTTP, Sleep and Now fall back to a 30 s client, a real sleep and time.Now.
type Config struct {
	BaseURL string
	APIKey  string
	HTTP    *http.Client
	Sleep   func(context.Context, time.Duration) error
	Now     func() time.Time // only to turn a Retry-After into a reset time
}

// Client talks to PDL's person enrichment API (PDL itself or the sandbox).
type Client struct {
	base  string
	key   string
	retry source.Retrier
}

// New returns a Client for cfg.
func New(cfg Config) *Client {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	return &Client{base: base, key: cfg.APIKey, retry: source.NewRetrier(SourceName, cfg.HTTP, cfg.Sleep, cfg.Now)}
}

// Match is an enrichment answer: PDL's confidence (1-10) and the person.
type Match struct {
	Likelihood int
	Person     Person
}

type enrichResponse struct {
	Status     int     `json:"status"`
	Likelihood int     `json:"likelihood"`
	Data       *Person `json:"data"`
}

type errorResponse struct {
	Status int `json:"status"`
	Error  struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// PersonByProfile enriches a person from a profile URL: GET /v5/person/enrich?profile=<url>
// with titlecase=true (so names come back capitalised). No match (404) is source.ErrNotFound.
func (c *Client) PersonByProfile(ctx context.Context, profileURL string) (Person, error) {
	m, err := c.MatchByProfile(ctx, profileURL)
	return m.Person, err
}

// MatchByProfile is PersonByProfile with PDL's likelihood.
func (c *Client) MatchByProfile(ctx context.Context, profileURL string) (Match, error) {
	if strings.TrimSpace(profileURL) == "" {
		return Match{}, fmt.Errorf("enrich: person: empty profile url")
	}
	q := url.Values{"profile": {profileURL}, "titlecase": {"true"}}
	status, raw, err := c.getJSON(ctx, "/v5/person/enrich", q)
	if err != nil {
		return Match{}, fmt.Errorf("enrich: person %q: %w", profileURL, err)
	}
	var body enrichResponse
	if err := json.Unmarshal(raw, &body); err != nil {
		return Match{}, fmt.Errorf("enrich: person %q: %w", profileURL, source.DecodeError(SourceName, status, err))
	}
	if body.Status == http.StatusNotFound || body.Data == nil {
		return Match{}, fmt.Errorf("enrich: person %q: no match: %w", profileURL, source.ErrNotFound)
	}
	return Match{Likelihood: body.Likelihood, Person: *body.Data}, nil
}

// getJSON sends GET base+path?q with the key and returns a 200's status and body; another
// status is the error PDL's body names (404 is source.ErrNotFound, 429 a RateLimitError).
func (c *Client) getJSON(ctx context.Context, path string, q url.Values) (int, []byte, error) {
	u := c.base + path + "?" + q.Encode()
	resp, err := c.retry.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Api-Key", c.key)
		req.Header.Set("Accept", "application/json")
		return req, nil
	})
	if err != nil {
		return 0, nil, err
	}
	if resp.Status != http.StatusOK {
		var e errorResponse
		msg := ""
		if json.Unmarshal(resp.Body, &e) == nil {
			msg = e.Error.Message
		}
		return resp.Status, nil, source.StatusError(SourceName, resp.Status, msg)
	}
	return resp.Status, resp.Body, nil
}

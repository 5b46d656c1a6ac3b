// Package apify is the pronet provider that runs Apify actors (HarvestAPI's no-cookie LinkedIn
// actors by default) and reads their datasets: short lookups (Profile, Post) through Apify's
// synchronous run endpoint, lists (search, posts, comments, reactions) as asynchronous runs
// that are polled and then paged from the run's dataset. docs/providers.md, "Apify adapter".
package apify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// Name is the provider's setting value and prefixes its errors.
const Name = "apify"

// DefaultPollInterval is the pause between two waits on a run that has not finished.
const DefaultPollInterval = time.Second

// maxWaitForFinish is the longest waitForFinish Apify accepts, in seconds.
const maxWaitForFinish = 60

// Config of a Client. Zero fields take the defaults: DefaultBaseURL, a 6-minute HTTP client
// (a synchronous run may take Apify's 300 s), a real sleep, time.Now, DefaultPrices,
// DefaultActors (per operation), DefaultPollInterval.
type Config struct {
	BaseURL      string
	Token        string
	HTTP         *http.Client
	Sleep        func(context.Context, time.Duration) error
	Now          func() time.Time
	Prices       pronet.Prices
	Actors       map[string]string // op → "owner~name"; missing ops take DefaultActors
	PollInterval time.Duration
}

// Client runs actors on Apify. It implements pronet.Provider and is safe for concurrent use.
type Client struct {
	base   string
	token  string
	hc     *http.Client
	retry  source.Retrier
	sleep  func(context.Context, time.Duration) error
	now    func() time.Time
	prices pronet.Prices
	actors map[string]string
	poll   time.Duration
	runs   *runCache
	flight flights
}

// New returns a Client for cfg.
func New(cfg Config) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 6 * time.Minute}
	}
	if cfg.Sleep == nil {
		cfg.Sleep = source.SleepContext
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Prices == nil {
		cfg.Prices = DefaultPrices()
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	actors := DefaultActors()
	maps.Copy(actors, cfg.Actors)
	return &Client{
		base: strings.TrimRight(cfg.BaseURL, "/"), token: cfg.Token, hc: cfg.HTTP,
		retry: source.NewRetrier(Name, cfg.HTTP, cfg.Sleep, cfg.Now),
		sleep: cfg.Sleep, now: cfg.Now, prices: cfg.Prices, actors: actors, poll: cfg.PollInterval,
		runs: newRunCache(runCacheSize, runCacheTTL, cfg.Now),
	}
}

// Name implements pronet.Provider.
func (c *Client) Name() string { return Name }

// Check implements pronet.Provider: GET /v2/users/me answers 401 to a bad token.
func (c *Client) Check(ctx context.Context) error {
	var me struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.call(ctx, http.MethodGet, "/v2/users/me", nil, nil, "", &me); err != nil {
		return fmt.Errorf("apify: check token: %w", err)
	}
	return nil
}

// call sends method base+path?q with body as JSON through the shared retries and decodes a
// 2xx answer into out (a *[]json.RawMessage, a struct or nil). actor names the actor in a 404.
func (c *Client) call(ctx context.Context, method, path string, q url.Values, body any, actor string, out any) error {
	resp, err := c.send(ctx, method, path, q, body)
	if err != nil {
		return err
	}
	if resp.Status < 200 || resp.Status > 299 {
		return apiError(resp.Status, resp.Body, actor)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return source.DecodeError(Name, resp.Status, err)
	}
	return nil
}

// send is one request with the shared retry policy; the token goes in a header only, so no
// URL in an error carries it.
func (c *Client) send(ctx context.Context, method, path string, q url.Values, body any) (source.Response, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return source.Response{}, fmt.Errorf("apify: encode input: %w", err)
		}
	}
	return c.retry.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		var rd *bytes.Reader
		if payload != nil {
			rd = bytes.NewReader(payload)
		}
		var req *http.Request
		var err error
		if rd != nil {
			req, err = http.NewRequestWithContext(ctx, method, u, rd)
		} else {
			req, err = http.NewRequestWithContext(ctx, method, u, nil)
		}
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Accept", "application/json")
		if payload != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, nil
	})
}

// apiError turns an Apify error answer {"error": {"type", "message"}} that the retries let
// through (a 4xx other than 429) into an UpstreamError. A 404 is the actor, run or dataset
// missing, never the LinkedIn object: the actors answer that in their items.
func apiError(status int, body []byte, actor string) error {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := http.StatusText(status)
	if json.Unmarshal(body, &e) == nil && (e.Error.Message != "" || e.Error.Type != "") {
		msg = strings.TrimPrefix(e.Error.Type+": "+e.Error.Message, ": ")
	}
	switch {
	case status == http.StatusBadRequest && e.Error.Type == "run-failed":
		// The synchronous endpoint's answer to a run that ended FAILED or TIMED-OUT.
		return runFailed("%s", msg)
	case status == http.StatusNotFound && actor != "":
		msg = fmt.Sprintf("actor %s: %s", actor, msg)
	case status == http.StatusRequestTimeout:
		msg = "the run outlived the synchronous call's limit: " + msg
	}
	return &source.UpstreamError{Source: Name, Status: status, Err: errors.New(msg)}
}

var _ pronet.Provider = (*Client)(nil)

package microblog

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// SourceName is the value of Item.Source and the prefix of this package's errors.
const SourceName = "microblog"

// DefaultBaseURL is X's production API.
const DefaultBaseURL = "https://api.x.com"

// Config of a Client. Zero HTTP, Now and Sleep fall back to a 30 s client, time.Now and a real sleep.
type Config struct {
	BaseURL     string
	BearerToken string
	HTTP        *http.Client
	Now         func() time.Time
	Sleep       func(context.Context, time.Duration) error
}

// Client talks to an X API v2 server (X itself or the sandbox).
type Client struct {
	base  string
	token string
	now   func() time.Time
	retry source.Retrier
}

// New returns a Client for cfg.
func New(cfg Config) *Client {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Client{base: base, token: cfg.BearerToken, now: now,
		retry: source.NewRetrier(SourceName, cfg.HTTP, cfg.Sleep, now)}
}

// Request field sets, sent on every tweet-returning call so items can be built from one response.
const (
	tweetFields = "created_at,public_metrics,entities,lang,conversation_id,referenced_tweets,attachments,author_id,in_reply_to_user_id"
	expansions  = "author_id,attachments.media_keys"
	userFields  = "username,name,profile_image_url,public_metrics,verified,description,location"
	mediaFields = "type,url,preview_image_url"
)

func tweetQuery() url.Values {
	q := url.Values{}
	q.Set("tweet.fields", tweetFields)
	q.Set("expansions", expansions)
	q.Set("user.fields", userFields)
	q.Set("media.fields", mediaFields)
	return q
}

// get sends GET base+path?q and decodes a 200 body into out. Non-200 answers become
// source errors; X's error objects supply the message.
func (c *Client) get(ctx context.Context, path string, q url.Values, out any) error {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	resp, err := c.retry.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Accept", "application/json")
		return req, nil
	})
	if err != nil {
		return err
	}
	if resp.Status != http.StatusOK {
		return source.StatusError(SourceName, resp.Status, problemMessage(resp.Body))
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return source.DecodeError(SourceName, resp.Status, err)
	}
	return nil
}

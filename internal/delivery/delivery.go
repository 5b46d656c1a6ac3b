// Package delivery POSTs saved searches' new results to their webhook_url:
// signed as Standard Webhooks, retried with backoff, at least once, with
// the delivery row's id as a stable webhook-id.
package delivery

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/netguard"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/store"
)

// Repo holds the deliveries.
type Repo interface {
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]store.Delivery, error)
	RecordDeliveryAttempt(ctx context.Context, id string, a store.DeliveryAttempt) error
}

// Opener opens sealed secrets.
type Opener interface {
	Open(sealed []byte, context string) ([]byte, error)
}

// Defaults of a Deliverer.
const (
	DefaultMaxAttempts = 8
	DefaultTimeout     = 30 * time.Second
	firstBackoff       = 30 * time.Second
	maxBackoff         = time.Hour
	maxRetryAfter      = 24 * time.Hour
	claimBatch         = 20
)

// Deliverer sends due deliveries. Kick it after a commit that wrote some;
// its ScanDue, on every tick, is the safety net.
type Deliverer struct {
	Repo    Repo
	HTTP    *http.Client // the guarded outbound client
	Secrets Opener
	Now     func() time.Time
	// Lease is how long a claimed delivery is kept from other deliverers:
	// longer than an attempt (Timeout).
	Lease       time.Duration
	Timeout     time.Duration
	MaxAttempts int
	Log         *slog.Logger
	kicks       chan struct{}
}

// New returns a deliverer with the defaults; Run it, then Kick it.
func New(repo Repo, hc *http.Client, secrets Opener, now func() time.Time, log *slog.Logger) *Deliverer {
	return &Deliverer{Repo: repo, HTTP: hc, Secrets: secrets, Now: now, Lease: 2 * DefaultTimeout,
		Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts, Log: log, kicks: make(chan struct{}, 1)}
}

// Name implements jobs.Scanner.
func (d *Deliverer) Name() string { return "search webhook deliveries" }

// ScanDue implements jobs.Scanner: a pass on every tick.
func (d *Deliverer) ScanDue(ctx context.Context, _ time.Time) error { return d.Pass(ctx) }

// Kick asks for a pass; it never blocks.
func (d *Deliverer) Kick() {
	select {
	case d.kicks <- struct{}{}:
	default:
	}
}

// Run makes a pass on every kick until ctx ends.
func (d *Deliverer) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.kicks:
			if err := d.Pass(ctx); err != nil && ctx.Err() == nil {
				d.Log.Warn("search webhook deliveries (the tick will retry)", "error", err)
			}
		}
	}
}

// Pass sends every delivery due now, a claimed batch at a time.
func (d *Deliverer) Pass(ctx context.Context) error {
	for {
		due, err := d.Repo.ClaimDeliveries(ctx, d.Now(), d.Lease, claimBatch)
		if err != nil {
			return fmt.Errorf("delivery: %w", err)
		}
		for _, dl := range due {
			if err := d.Repo.RecordDeliveryAttempt(ctx, dl.ID, d.attempt(ctx, dl)); err != nil {
				return fmt.Errorf("delivery: %w", err)
			}
		}
		if len(due) < claimBatch {
			return nil
		}
	}
}

// Payload is the body of a delivery.
type Payload struct {
	Type     string            `json:"type"`
	SearchID string            `json:"search_id"`
	RunAt    string            `json:"run_at"`
	Results  []json.RawMessage `json:"results"`
}

// attempt sends a claimed delivery once and says how it ended.
func (d *Deliverer) attempt(ctx context.Context, dl store.Delivery) store.DeliveryAttempt {
	now := d.Now()
	out := store.DeliveryAttempt{At: now, Status: store.DeliveryFailed}
	if dl.URL == "" {
		out.Error = "the search has no webhook_url any more"
		return out
	}
	key, err := d.key(dl)
	if err != nil {
		out.Error = "the webhook's signing secret cannot be opened"
		return out
	}
	results := dl.Results
	if results == nil {
		results = []json.RawMessage{}
	}
	body, err := json.Marshal(Payload{Type: "search.results", SearchID: dl.SearchID,
		RunAt: dl.RunAt.UTC().Format(time.RFC3339Nano), Results: results})
	if err != nil {
		out.Error = "encode: " + err.Error()
		return out
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	reqCtx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, dl.URL, bytes.NewReader(body))
	if err != nil {
		out.Error = "bad webhook_url: " + err.Error()
		return out
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Trawl-Webhooks/1")
	req.Header.Set("webhook-id", dl.ID)
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", Sign(key, dl.ID, ts, body))
	res, err := d.HTTP.Do(req)
	var blocked *netguard.BlockedError
	if errors.As(err, &blocked) {
		// The outbound policy will refuse it again: no retry.
		out.Error = err.Error()
		return out
	}
	if err != nil {
		out.Error = err.Error()
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			// Shutting down: the attempt does not count against the
			// delivery, whose lease brings it back.
			out.Error = "interrupted"
		}
		return d.retry(out, dl.Attempts, 0)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	out.StatusCode = res.StatusCode
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		out.Status = store.DeliveryDelivered
		return out
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusRequestTimeout || res.StatusCode >= 500:
		out.Error = "the receiver answered " + res.Status
		return d.retry(out, dl.Attempts, retryAfter(res.Header.Get("Retry-After"), now))
	}
	out.Error = "the receiver answered " + res.Status
	return out
}

// retry keeps a delivery pending with exponential backoff (or the
// receiver's Retry-After, when longer), or fails it after MaxAttempts.
func (d *Deliverer) retry(out store.DeliveryAttempt, attemptsBefore int, after time.Duration) store.DeliveryAttempt {
	if attemptsBefore+1 >= d.MaxAttempts {
		return out
	}
	wait := Backoff(attemptsBefore + 1)
	if after > wait {
		wait = after
	}
	out.Status, out.NextAt = store.DeliveryPending, out.At.Add(wait)
	return out
}

// Backoff is the wait after the n-th failed attempt: 30 s, doubling, at
// most an hour.
func Backoff(n int) time.Duration {
	w := firstBackoff
	for i := 1; i < n && w < maxBackoff; i++ {
		w *= 2
	}
	return min(w, maxBackoff)
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var w time.Duration
	if n, err := strconv.Atoi(v); err == nil {
		w = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		w = t.Sub(now)
	}
	return max(0, min(w, maxRetryAfter))
}

// key is the HMAC key of a delivery's search.
func (d *Deliverer) key(dl store.Delivery) ([]byte, error) {
	sealed, err := base64.StdEncoding.DecodeString(dl.Secret)
	if err != nil {
		return nil, err
	}
	plain, err := d.Secrets.Open(sealed, secret.SearchWebhookContext(dl.AccountID))
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(strings.TrimPrefix(string(plain), "whsec_"))
}

// Sign is the Standard Webhooks signature of a message:
// v1,<base64 HMAC-SHA256 of "id.timestamp.body">.
func Sign(key []byte, id, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

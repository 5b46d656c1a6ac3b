package apify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// Statuses of an actor run (docs.apify.com/platform/actors/running/runs-and-builds).
const (
	statusSucceeded = "SUCCEEDED"
	statusFailed    = "FAILED"
	statusTimedOut  = "TIMED-OUT"
	statusAborted   = "ABORTED"
)

// errRunFailed marks a run that ended FAILED or TIMED-OUT (or the synchronous endpoint's
// run-failed answer): the actor failed at the vendor, so the adapter answers 502 Bad Gateway
// and runs it once more after the shared retry policy's first delay.
var errRunFailed = errors.New("the actor run failed")

func runFailed(format string, args ...any) error {
	return &source.UpstreamError{Source: Name, Status: http.StatusBadGateway,
		Err: fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), errRunFailed)}
}

// onceMore calls run again, after the retry policy's base delay through the injected sleep,
// when its first run failed at the vendor; other errors are returned as they are.
func (c *Client) onceMore(ctx context.Context, run func() error) error {
	err := run()
	if !errors.Is(err, errRunFailed) {
		return err
	}
	if serr := c.retry.Sleep(ctx, c.retry.BaseDelay); serr != nil {
		return err
	}
	return run()
}

// abortTimeout bounds the best-effort abort of a run whose caller gave up.
const abortTimeout = 10 * time.Second

// actorRun is the part of Apify's run object the adapter reads.
type actorRun struct {
	ID               string `json:"id"`
	Status           string `json:"status"`
	StatusMessage    string `json:"statusMessage"`
	DefaultDatasetID string `json:"defaultDatasetId"`
}

func (c *Client) actor(op string) string { return c.actors[op] }

func actorPath(actor string) string { return "/v2/acts/" + url.PathEscape(actor) }

// runSync runs op's actor with input through run-sync-get-dataset-items and returns every
// item it pushed, adding what they cost to the meter of ctx.
func (c *Client) runSync(ctx context.Context, op string, input any, maxItems int) ([]json.RawMessage, error) {
	actor := c.actor(op)
	q := url.Values{"format": {"json"}, "clean": {"true"}, "maxItems": {strconv.Itoa(maxItems)}}
	var items []json.RawMessage
	if err := c.onceMore(ctx, func() error {
		return c.call(ctx, http.MethodPost, actorPath(actor)+"/run-sync-get-dataset-items", q, input, actor, &items)
	}); err != nil {
		return nil, fmt.Errorf("apify: run %s: %w", actor, err)
	}
	source.AddCost(ctx, c.prices.Cost(op, len(items)))
	return items, nil
}

// page returns the items [offset, offset+limit) of the dataset that op's actor fills for
// input, and how many the dataset holds. The first call for an op and input runs the actor
// (and adds its cost to the meter); later ones, within the cache's life, read its dataset.
func (c *Client) page(ctx context.Context, op string, input any, maxItems, offset, limit int) ([]json.RawMessage, int, error) {
	b, err := json.Marshal(input)
	if err != nil {
		return nil, 0, fmt.Errorf("apify: encode input: %w", err)
	}
	key := op + "\x00" + string(b)
	for {
		if ref, ok := c.runs.get(key); ok {
			items, _, err := c.datasetItems(ctx, ref.ID, offset, limit)
			return items, ref.Total, err
		}
		done, leader := c.flight.join(key)
		if leader {
			items, total, err := c.runPage(ctx, op, key, input, maxItems, offset, limit)
			c.flight.leave(key, done)
			return items, total, err
		}
		// The same run is under way for another call: its dataset will be cached (or, if it
		// failed, this call runs the actor itself).
		select {
		case <-done:
		case <-ctx.Done():
			return nil, 0, fmt.Errorf("apify: wait for a run under way: %w", ctx.Err())
		}
	}
}

// runPage runs the actor on input, caches its dataset under key and reads a page of it.
func (c *Client) runPage(ctx context.Context, op, key string, input any, maxItems, offset, limit int) ([]json.RawMessage, int, error) {
	actor := c.actor(op)
	var run actorRun
	if err := c.onceMore(ctx, func() (err error) {
		run, err = c.runAsync(ctx, actor, input, maxItems)
		return err
	}); err != nil {
		return nil, 0, err
	}
	items, total, err := c.datasetItems(ctx, run.DefaultDatasetID, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	// Billed once per run, for every item it pushed (malformed ones too), whatever page is read.
	source.AddCost(ctx, c.prices.Cost(op, total))
	c.runs.put(key, datasetRef{ID: run.DefaultDatasetID, Total: total})
	return items, total, nil
}

// runAsync starts actor with input and waits for its end: waitForFinish as long as the
// deadline of ctx allows (at most Apify's 60 s), PollInterval between two waits. When ctx
// ends first, the run is aborted, best effort, so that it stops costing.
func (c *Client) runAsync(ctx context.Context, actor string, input any, maxItems int) (actorRun, error) {
	var started struct {
		Data actorRun `json:"data"`
	}
	q := url.Values{"maxItems": {strconv.Itoa(maxItems)}}
	if err := c.call(ctx, http.MethodPost, actorPath(actor)+"/runs", q, input, actor, &started); err != nil {
		return actorRun{}, fmt.Errorf("apify: start %s: %w", actor, err)
	}
	run := started.Data
	if run.ID == "" {
		return actorRun{}, &source.UpstreamError{Source: Name, Status: http.StatusCreated,
			Err: fmt.Errorf("start %s: answer without a run id", actor)}
	}
	for {
		switch run.Status {
		case statusSucceeded:
			if run.DefaultDatasetID == "" {
				return actorRun{}, &source.UpstreamError{Source: Name,
					Err: fmt.Errorf("actor %s run %s succeeded without a dataset", actor, run.ID)}
			}
			return run, nil
		case statusFailed, statusTimedOut, statusAborted:
			msg := run.StatusMessage
			if msg == "" {
				msg = "no status message"
			}
			if run.Status == statusAborted {
				// Stopped by someone else (the console, another client): not a failure to retry.
				return actorRun{}, &source.UpstreamError{Source: Name,
					Err: fmt.Errorf("actor %s run %s %s: %s", actor, run.ID, run.Status, msg)}
			}
			return actorRun{}, runFailed("actor %s run %s %s: %s", actor, run.ID, run.Status, msg)
		}
		if ctx.Err() != nil {
			return actorRun{}, c.giveUp(ctx, actor, run.ID, nil)
		}
		var got struct {
			Data actorRun `json:"data"`
		}
		q := url.Values{"waitForFinish": {strconv.Itoa(c.waitSeconds(ctx))}}
		if err := c.call(ctx, http.MethodGet, "/v2/actor-runs/"+url.PathEscape(run.ID), q, nil, "", &got); err != nil {
			if ctx.Err() != nil {
				return actorRun{}, c.giveUp(ctx, actor, run.ID, nil)
			}
			c.abort(ctx, run.ID) // nobody will read what it finds
			return actorRun{}, fmt.Errorf("apify: actor %s run %s: %w", actor, run.ID, err)
		}
		if got.Data.ID == "" {
			got.Data.ID = run.ID
		}
		run = got.Data
		if run.Status == statusSucceeded || run.Status == statusFailed || run.Status == statusTimedOut || run.Status == statusAborted {
			continue
		}
		if err := c.sleep(ctx, c.poll); err != nil {
			return actorRun{}, c.giveUp(ctx, actor, run.ID, err)
		}
	}
}

// giveUp aborts a run the caller no longer waits for and returns the context's error.
// cause is the sleep's error, used when ctx itself does not say why.
func (c *Client) giveUp(ctx context.Context, actor, runID string, cause error) error {
	c.abort(ctx, runID)
	err := ctx.Err()
	if err == nil {
		err = cause
	}
	if err == nil {
		err = context.Canceled
	}
	return fmt.Errorf("apify: actor %s run %s aborted: %w", actor, runID, err)
}

// waitSeconds is the waitForFinish of the next poll: Apify's most, or what is left of the
// deadline of ctx (the job's lease) less a second to read the answer. A context's deadline is on
// the real clock, not the injected one: measured against a clock days ahead, it would say no
// time is left, and every run would be polled without waiting, a PollInterval apart.
func (c *Client) waitSeconds(ctx context.Context) int {
	w := maxWaitForFinish
	if dl, ok := ctx.Deadline(); ok {
		left := int(time.Until(dl)/time.Second) - 1
		w = min(w, left)
	}
	return max(w, 0)
}

// abort asks Apify to stop a run, once and without retries, even when ctx is already done.
func (c *Client) abort(ctx context.Context, runID string) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.base+"/v2/actor-runs/"+url.PathEscape(runID)+"/abort", nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.hc.Do(req)
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

// datasetItems reads items [offset, offset+limit) of a dataset and its item count, from the
// X-Apify-Pagination-Total header, else from the dataset object.
func (c *Client) datasetItems(ctx context.Context, datasetID string, offset, limit int) ([]json.RawMessage, int, error) {
	q := url.Values{"format": {"json"}, "clean": {"true"},
		"offset": {strconv.Itoa(offset)}, "limit": {strconv.Itoa(limit)}}
	path := "/v2/datasets/" + url.PathEscape(datasetID)
	resp, err := c.send(ctx, http.MethodGet, path+"/items", q, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("apify: dataset %s: %w", datasetID, err)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, 0, fmt.Errorf("apify: dataset %s: %w", datasetID, apiError(resp.Status, resp.Body, ""))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(resp.Body, &items); err != nil {
		return nil, 0, fmt.Errorf("apify: dataset %s: %w", datasetID, source.DecodeError(Name, resp.Status, err))
	}
	if n, err := strconv.Atoi(resp.Header.Get("X-Apify-Pagination-Total")); err == nil && n >= 0 {
		return items, n, nil
	}
	if len(items) < limit && (len(items) > 0 || offset == 0) {
		return items, offset + len(items), nil
	}
	var ds struct {
		Data struct {
			ItemCount int `json:"itemCount"`
		} `json:"data"`
	}
	if err := c.call(ctx, http.MethodGet, path, nil, nil, "", &ds); err != nil {
		return nil, 0, fmt.Errorf("apify: dataset %s: %w", datasetID, err)
	}
	return items, max(ds.Data.ItemCount, offset+len(items)), nil
}

package microblog

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// X's limits for search.
const (
	recentWindow       = 7 * 24 * time.Hour
	recentStartMargin  = time.Minute      // keeps a "past week" start inside X's window by the time X reads it
	endTimeMinLag      = 10 * time.Second // X rejects an end_time less than 10 s before the request
	minSearchResults   = 10
	maxRecentResults   = 100
	maxArchiveResults  = 500
	pathSearchRecent   = "/2/tweets/search/recent"
	pathSearchArchive  = "/2/tweets/search/all"
	timeParamLayout    = time.RFC3339
	sortOrderRecency   = "recency"
	sortOrderRelevancy = "relevancy"
)

// SearchParams of a search. Query is an X query string. Zero times, empty strings and
// MaxResults 0 are left out (X's defaults apply).
type SearchParams struct {
	Query       string
	SortOrder   string // recency or relevancy
	StartTime   time.Time
	EndTime     time.Time
	SinceID     string
	MaxResults  int
	NextToken   string
	FullArchive bool
	// Now is the caller's "now", against which StartTime was computed: the
	// endpoint choice and the clamps use it, so a start of exactly now − 7 days
	// stays on recent search however long the caller took to get here. Zero
	// means the client's own clock.
	Now time.Time
}

// Page is one page of tweets, as items and as the raw tweets (author and media joined).
// NextToken is empty on the last page.
type Page struct {
	Items       []source.Item
	Tweets      []Tweet
	NextToken   string
	NewestID    string
	ResultCount int
}

// Search runs a search. It uses the full-archive endpoint when p.FullArchive is set or when
// StartTime is more than the 7 days recent search covers before p.Now; MaxResults is clamped
// to the endpoint's bounds (recent 10-100, all 10-500).
func (c *Client) Search(ctx context.Context, p SearchParams) (Page, error) {
	if p.Query == "" {
		return Page{}, fmt.Errorf("microblog: search: empty query")
	}
	if p.SortOrder != "" && p.SortOrder != sortOrderRecency && p.SortOrder != sortOrderRelevancy {
		return Page{}, fmt.Errorf("microblog: search: sort order %q is not recency or relevancy", p.SortOrder)
	}
	now := p.Now
	if now.IsZero() {
		now = c.now()
	}
	archive := p.FullArchive || (!p.StartTime.IsZero() && p.StartTime.Before(now.Add(-recentWindow)))
	path, maxResults := pathSearchRecent, maxRecentResults
	if archive {
		path, maxResults = pathSearchArchive, maxArchiveResults
	}
	q := tweetQuery()
	q.Set("query", p.Query)
	if p.SortOrder != "" {
		q.Set("sort_order", p.SortOrder)
	}
	if !p.StartTime.IsZero() {
		start := p.StartTime
		if !archive {
			start = maxTime(start, now.Add(-recentWindow+recentStartMargin))
		}
		q.Set("start_time", start.UTC().Format(timeParamLayout))
	}
	if !p.EndTime.IsZero() {
		end := p.EndTime
		if latest := now.Add(-endTimeMinLag); end.After(latest) {
			end = latest
		}
		q.Set("end_time", end.UTC().Format(timeParamLayout))
	}
	if p.SinceID != "" {
		q.Set("since_id", p.SinceID)
	}
	if p.MaxResults != 0 {
		q.Set("max_results", strconv.Itoa(min(max(p.MaxResults, minSearchResults), maxResults)))
	}
	if p.NextToken != "" {
		q.Set("next_token", p.NextToken)
	}
	page, err := c.tweets(ctx, path, q)
	if err != nil {
		return Page{}, fmt.Errorf("microblog: search: %w", err)
	}
	return page, nil
}

// tweets fetches a tweet list (search or timeline) and joins its includes.
func (c *Client) tweets(ctx context.Context, path string, q url.Values) (Page, error) {
	var body tweetsResponse
	if err := c.get(ctx, path, q, &body); err != nil {
		return Page{}, err
	}
	tweets := joinIncludes(body.Data, body.Includes)
	collected := c.now()
	items := make([]source.Item, 0, len(tweets))
	for _, t := range tweets {
		items = append(items, ItemFromTweet(t, collected))
	}
	return Page{Items: items, Tweets: tweets, NextToken: body.Meta.NextToken,
		NewestID: body.Meta.NewestID, ResultCount: body.Meta.ResultCount}, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

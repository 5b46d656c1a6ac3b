package microblog

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

const (
	minTimelineResults = 5
	maxTimelineResults = 100
)

// UserByUsername looks an account up. X answers an unknown username with 200 and an errors
// array (and a suspended one with 404); both give source.ErrNotFound.
func (c *Client) UserByUsername(ctx context.Context, username string) (User, error) {
	if !validUsername(username) {
		return User{}, fmt.Errorf("microblog: user %q: invalid username", username)
	}
	q := url.Values{}
	q.Set("user.fields", userFields)
	var body userResponse
	if err := c.get(ctx, "/2/users/by/username/"+url.PathEscape(username), q, &body); err != nil {
		return User{}, fmt.Errorf("microblog: user %q: %w", username, err)
	}
	if body.Data == nil {
		msg := "no data"
		for _, p := range body.Errors {
			msg = firstNonEmpty(p.Detail, p.Title, msg)
			if p.Type != problemResourceNotFound {
				return User{}, fmt.Errorf("microblog: user %q: %w", username,
					&source.UpstreamError{Source: SourceName, Status: 200, Err: fmt.Errorf("%s", msg)})
			}
		}
		return User{}, fmt.Errorf("microblog: user %q: %s: %w", username, msg, source.ErrNotFound)
	}
	return *body.Data, nil
}

// TimelineParams of UserTweets. Retweets and replies are left out unless asked for.
type TimelineParams struct {
	SinceID         string
	PaginationToken string
	MaxResults      int // 5-100; 0 leaves X's default (10)
	StartTime       time.Time
	EndTime         time.Time
	IncludeRetweets bool
	IncludeReplies  bool
}

// UserTweets returns a page of the user's own tweets, newest first. The next page is asked
// for with Page.NextToken as TimelineParams.PaginationToken.
func (c *Client) UserTweets(ctx context.Context, userID string, p TimelineParams) (Page, error) {
	if userID == "" {
		return Page{}, fmt.Errorf("microblog: user tweets: empty user id")
	}
	q := tweetQuery()
	var exclude []string
	if !p.IncludeRetweets {
		exclude = append(exclude, "retweets")
	}
	if !p.IncludeReplies {
		exclude = append(exclude, "replies")
	}
	if len(exclude) > 0 {
		q.Set("exclude", strings.Join(exclude, ","))
	}
	if p.SinceID != "" {
		q.Set("since_id", p.SinceID)
	}
	if p.PaginationToken != "" {
		q.Set("pagination_token", p.PaginationToken)
	}
	if p.MaxResults != 0 {
		q.Set("max_results", strconv.Itoa(min(max(p.MaxResults, minTimelineResults), maxTimelineResults)))
	}
	if !p.StartTime.IsZero() {
		q.Set("start_time", p.StartTime.UTC().Format(timeParamLayout))
	}
	if !p.EndTime.IsZero() {
		q.Set("end_time", p.EndTime.UTC().Format(timeParamLayout))
	}
	page, err := c.tweets(ctx, "/2/users/"+url.PathEscape(userID)+"/tweets", q)
	if err != nil {
		return Page{}, fmt.Errorf("microblog: user %s tweets: %w", userID, err)
	}
	return page, nil
}

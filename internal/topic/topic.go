// Package topic is the domain of topic monitors (Social Topics): a topic
// watches the professional network for posts about a subject for 30 days and
// collects the people who react to and comment on them. Discovery links posts
// to topics; hydration reads a post's reactions and comments, at once and
// again on Day 1, 3 and 5; people are filled from their pronet profiles.
package topic

import (
	"errors"
	"strings"
	"time"
)

// Status of a topic. STOPPED, EXPIRED and DELETED are final.
type Status string

const (
	StatusActive  Status = "ACTIVE"
	StatusPaused  Status = "PAUSED"
	StatusStopped Status = "STOPPED"
	StatusExpired Status = "EXPIRED"
	StatusDeleted Status = "DELETED"
)

// Final reports whether nothing can change the status any more.
func (s Status) Final() bool {
	return s == StatusStopped || s == StatusExpired || s == StatusDeleted
}

// Lifetime is how long a topic collects after its creation.
const Lifetime = 30 * 24 * time.Hour

// Limits and defaults of a definition.
const (
	MaxKeywords       = 10
	MinMaxResults     = 10
	MaxMaxResults     = 100
	DefaultMaxResults = 50
	DefaultTimeFrame  = "past-week"
	DefaultSortBy     = "date_posted"
	// DefaultContentType keeps every post, as the provider does when no
	// contentType is sent.
	DefaultContentType = "posts"
)

// TimeFrames, ContentTypes and SortOrders list the accepted values.
func TimeFrames() []string { return []string{"past-24h", "past-week", "past-month"} }

func ContentTypes() []string {
	return []string{"posts", "videos", "photos", "liveVideos", "collaborativeArticles", "documents"}
}

func SortOrders() []string { return []string{"date_posted", "relevance"} }

// Definition is what a topic looks for.
type Definition struct {
	Keywords    []string `json:"keywords"`
	KeywordsAnd []string `json:"keywords_and"`
	KeywordsNot []string `json:"keywords_not"`
	// JobTitles keeps engagers whose title contains one of them
	// (case-insensitive); empty keeps everyone.
	JobTitles   []string `json:"job_titles"`
	TimeFrame   string   `json:"time_frame"`
	MaxResults  int      `json:"max_results"`
	ContentType string   `json:"content_type"`
	SortBy      string   `json:"sort_by"`
}

// KeepsEngager reports whether a person with this title and headline is
// kept for the topic.
func (d Definition) KeepsEngager(jobTitle, headline string) bool {
	if len(d.JobTitles) == 0 {
		return true
	}
	t, h := strings.ToLower(jobTitle), strings.ToLower(headline)
	for _, want := range d.JobTitles {
		w := strings.ToLower(want)
		if strings.Contains(t, w) || strings.Contains(h, w) {
			return true
		}
	}
	return false
}

// Topic is a topic monitor.
type Topic struct {
	ID         string
	AccountID  string
	Name       string
	Status     Status
	Definition Definition
	CreatedAt  time.Time
	UpdatedAt  time.Time
	ExpiresAt  time.Time

	LastRunAt        *time.Time
	NewItems         bool
	NumberOfNewItems int
	PostsCount       int64
	EngagementsCount int64

	NextRunAt        *time.Time
	LastError        string
	Failures         int
	CreditsBlockedAt *time.Time
}

// Interval says which collection found a post or an engagement.
type Interval string

const (
	Initial     Interval = "initial"
	Rediscovery Interval = "rediscovery"
	Day1        Interval = "day1"
	Day3        Interval = "day3"
	Day5        Interval = "day5"
	// ProfileReads names the upstream cost of reading the profiles of a
	// topic's people (its engagers and post authors): no credits, no
	// hydration stage, only a topic's share of what the vendor billed.
	ProfileReads Interval = "profiles"
)

// followUps are the re-hydrations of a linked post, by days after its first link.
var followUps = []struct {
	interval Interval
	after    time.Duration
}{{Day1, 24 * time.Hour}, {Day3, 3 * 24 * time.Hour}, {Day5, 5 * 24 * time.Hour}}

// NextFollowUp is the first follow-up of a post first linked at linked that
// is due after now; ok is false when none is left.
func NextFollowUp(linked, now time.Time) (Interval, time.Time, bool) {
	for _, f := range followUps {
		if due := linked.Add(f.after); due.After(now) {
			return f.interval, due, true
		}
	}
	return "", time.Time{}, false
}

// DueStage is the stage a hydration due at now carries: the latest
// follow-up that has fallen due, so that a post whose topic was paused over
// several follow-ups is hydrated once, not once per missed day. A post's
// first hydration keeps the stage of its link (initial or rediscovery).
func DueStage(stage Interval, linked, now time.Time) Interval {
	if stage == Initial || stage == Rediscovery {
		return stage
	}
	due := stage
	for _, f := range followUps {
		if !linked.Add(f.after).After(now) {
			due = f.interval
		}
	}
	return due
}

// DailyHour is the hour (UTC) of the daily rediscovery.
const DailyHour = 6

// NextDaily is the first 06:00 UTC strictly after t.
func NextDaily(t time.Time) time.Time {
	t = t.UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), DailyHour, 0, 0, 0, time.UTC)
	if !d.After(t) {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// ProfileRefresh is how long a person's profile is trusted.
const ProfileRefresh = 30 * 24 * time.Hour

var (
	// ErrGone is what the repository returns for a topic or post that does not exist.
	ErrGone = errors.New("topic: no such topic")
	// ErrNotRunnable means the topic cannot run in its current state.
	ErrNotRunnable = errors.New("topic: not runnable")
	// ErrContention means a write lost to a concurrent one and can be run again at once.
	ErrContention = errors.New("topic: lost to a concurrent write")
)

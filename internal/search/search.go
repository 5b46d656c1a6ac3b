// Package search is the domain of saved searches on the microblog and pronet
// platforms: what a search is, the rules of its definition, its schedule, and
// the collection runs that fetch posts through the connectors and hand them
// to the store.
package search

import (
	"errors"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/query"
)

// Kind is what a search monitors (the monitoring_type of the API).
type Kind string

const (
	KindPosts         Kind = "microblog-posts"
	KindProfile       Kind = "microblog-profile"
	KindPronetPosts   Kind = "pronet-posts"
	KindPronetProfile Kind = "pronet-profile"
)

// Pronet reports whether the search runs on the pronet platform.
func (k Kind) Pronet() bool { return k == KindPronetPosts || k == KindPronetProfile }

// Status of a saved search. Deleted searches are kept (soft delete) but are
// invisible to the API.
type Status string

const (
	StatusActive    Status = "active"
	StatusPaused    Status = "paused"
	StatusCompleted Status = "completed"
	StatusDeleted   Status = "deleted"
)

// Frequency is how often an active search runs.
type Frequency string

const (
	Hourly    Frequency = "HOURLY"
	Every12h  Frequency = "EVERY_12H"
	Daily     Frequency = "DAILY"
	Weekly    Frequency = "WEEKLY"
	Monthly   Frequency = "MONTHLY"
	Quarterly Frequency = "QUARTERLY"
)

// Frequencies lists the accepted frequencies.
func Frequencies() []Frequency {
	return []Frequency{Hourly, Every12h, Daily, Weekly, Monthly, Quarterly}
}

// Next is when a search that ran at t runs again.
func (f Frequency) Next(t time.Time) time.Time {
	switch f {
	case Hourly:
		return t.Add(time.Hour)
	case Every12h:
		return t.Add(12 * time.Hour)
	case Weekly:
		return t.AddDate(0, 0, 7)
	case Monthly:
		return t.AddDate(0, 1, 0)
	case Quarterly:
		return t.AddDate(0, 3, 0)
	}
	return t.AddDate(0, 0, 1)
}

// TimeFrames lists the accepted time_frame values.
func TimeFrames() []string {
	return []string{"past-24h", "past-week", "past-month", "past-6-months", "past-year", "all-time"}
}

// PronetTimeFrames lists the time_frame values of pronet searches: the
// provider's post search looks back a month at most.
func PronetTimeFrames() []string { return []string{"past-24h", "past-week", "past-month"} }

// TimeFramesOf lists the time_frame values a kind of search accepts.
func TimeFramesOf(k Kind) []string {
	if k.Pronet() {
		return PronetTimeFrames()
	}
	return TimeFrames()
}

// Since is the earliest publication time a time frame covers at now; zero
// for all-time.
func Since(timeFrame string, now time.Time) time.Time {
	switch timeFrame {
	case "past-24h":
		return now.Add(-24 * time.Hour)
	case "past-month":
		return now.AddDate(0, -1, 0)
	case "past-6-months":
		return now.AddDate(0, -6, 0)
	case "past-year":
		return now.AddDate(-1, 0, 0)
	case "all-time":
		return time.Time{}
	}
	return now.AddDate(0, 0, -7)
}

// Defaults of a definition (DESIGN.md, API conventions).
const (
	DefaultTimeFrame  = "past-week"
	DefaultMaxResults = 50
	DefaultFrequency  = Daily
	DefaultSearchType = "Latest"
	// Pronet keyword searches.
	DefaultContentType  = "posts"
	DefaultPronetSortBy = "date_posted"
)

// Definition is what a search looks for: the validated body of its creation,
// with defaults filled in. It is stored as JSON.
type Definition struct {
	// WebhookURL receives each run's new results, signed with
	// WebhookSecret: the sealed secret, base64 (never shown after creation).
	WebhookURL    string `json:"webhook_url,omitempty"`
	WebhookSecret string `json:"webhook_secret,omitempty"`

	Keywords    []string `json:"keywords"`
	KeywordsAnd []string `json:"keywords_and"`
	KeywordsNot []string `json:"keywords_not"`

	TimeFrame  string    `json:"time_frame"`
	MaxResults int       `json:"max_results"`
	Frequency  Frequency `json:"frequency"`
	SearchType string    `json:"search_type"`
	JobTitles  []string  `json:"job_titles"`

	Language          string   `json:"microblog_language,omitempty"`
	ExcludeRetweets   bool     `json:"exclude_retweets,omitempty"`
	ExcludeReplies    bool     `json:"exclude_replies,omitempty"`
	VerifiedOnly      bool     `json:"verified_only,omitempty"`
	HasLinks          bool     `json:"has_links,omitempty"`
	UseFullArchive    bool     `json:"use_full_archive,omitempty"`
	HasMedia          string   `json:"has_media,omitempty"`
	FromUsers         []string `json:"from_users,omitempty"`
	ToUser            string   `json:"to_user,omitempty"`
	URLContains       string   `json:"url_contains,omitempty"`
	RetweetsOf        string   `json:"retweets_of,omitempty"`
	ConversationID    string   `json:"conversation_id,omitempty"`
	ListID            string   `json:"list_id,omitempty"`
	ContextAnnotation string   `json:"context_annotation,omitempty"`
	PlaceCountry      string   `json:"place_country,omitempty"`

	// Pronet keyword searches.
	ContentType          string   `json:"content_type,omitempty"`
	PronetSortBy         string   `json:"pronet_sort_by,omitempty"`
	MentionsMember       []string `json:"mentions_member,omitempty"`
	MentionsOrganization []string `json:"mentions_organization,omitempty"`

	// Profile monitors (the username is the microblog handle or the pronet
	// profile's public identifier).
	ProfileURL      string `json:"profile_url,omitempty"`
	ProfileUsername string `json:"profile_username,omitempty"`
}

// QuerySpec is the part of the definition the query compiler reads.
func (d Definition) QuerySpec() query.Spec {
	return query.Spec{
		Keywords: d.Keywords, KeywordsAnd: d.KeywordsAnd, KeywordsNot: d.KeywordsNot,
		SearchType: d.SearchType, Language: d.Language,
		ExcludeRetweets: d.ExcludeRetweets, ExcludeReplies: d.ExcludeReplies,
		VerifiedOnly: d.VerifiedOnly, HasLinks: d.HasLinks, HasMedia: d.HasMedia,
		FromUsers: d.FromUsers, ToUser: d.ToUser, URLContains: d.URLContains,
		RetweetsOf: d.RetweetsOf, ConversationID: d.ConversationID, ListID: d.ListID,
		ContextAnnotation: d.ContextAnnotation, PlaceCountry: d.PlaceCountry,
	}
}

// Compile turns the definition into the X query a run sends. maxLen is the
// configured limit of a recent search; full-archive searches may be as long
// as X allows there, if that is more.
func (d Definition) Compile(maxLen int) (query.Compiled, error) {
	if maxLen <= 0 {
		maxLen = query.MaxLenRecent
	}
	if d.UseFullArchive {
		maxLen = max(maxLen, query.MaxLenFullArchive)
	}
	return query.Compile(d.QuerySpec(), maxLen)
}

// Search is a saved search.
type Search struct {
	ID         string
	AccountID  string
	Name       string
	Kind       Kind
	Status     Status
	Definition Definition
	CreatedAt  time.Time
	UpdatedAt  time.Time

	TotalResults int64
	LastResultAt *time.Time

	NextRunAt     *time.Time
	LastRunAt     *time.Time
	LastError     string
	Failures      int
	Watermark     string // newest post id collected, for since_id
	ProfileUserID string // resolved once for profile monitors
}

// Stats are the counts GET /v1/searches/{id} adds.
type Stats struct {
	ResultsToday    int64
	ResultsThisWeek int64
}

// ErrNotRunnable means the search cannot run in its current state.
var ErrNotRunnable = errors.New("search: not runnable")

// NewerID reports whether post id a is newer than b. Post ids are
// snowflakes: decimal strings that grow with time.
func NewerID(a, b string) bool {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

package topic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// Repository is the persistence collection needs; the store implements it.
type Repository interface {
	TopicByID(ctx context.Context, id string) (Topic, error)
	Account(ctx context.Context, id string) (auth.Account, error)
	// ClaimDueTopics returns active, unexpired topics whose discovery is due
	// and moves it a lease ahead; ClaimDuePosts does the same for posts whose
	// hydration is due and that an active topic still links.
	ClaimDueTopics(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]string, error)
	ClaimDuePosts(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]string, error)
	ClaimDueProfiles(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]PersonRef, error)
	CreditBlockedTopics(ctx context.Context, limit int) ([]string, error)
	ExpireTopics(ctx context.Context, now time.Time) (int64, error)

	SaveDiscovery(ctx context.Context, run DiscoveryRun) (DiscoveryOutcome, error)
	RecordTopicFailure(ctx context.Context, id, msg string, countFailure bool, next time.Time) error
	PostSchedule(ctx context.Context, urn string) (PostSchedule, error)
	SaveHydration(ctx context.Context, h Hydration) (HydrationOutcome, error)
	RecordPostFailure(ctx context.Context, urn, msg string, countFailure bool, next time.Time) error
	ResyncTopic(ctx context.Context, id string, at time.Time, allocation int64) (int, error)
	// SaveProfile and RecordProfileFailure store a profile read and what
	// it cost at the vendor (a failed read the vendor billed included), in
	// millionths of a USD, in one transaction: the cost is split between
	// the active topics the person engaged with or wrote a post of, else
	// between the saved searches whose results they wrote.
	SaveProfile(ctx context.Context, p Profile, at time.Time, upstreamCost int64) error
	RecordProfileFailure(ctx context.Context, urn string, at, next time.Time, upstreamCost int64) error
	// RecordTopicCost and RecordPostCost record what the upstream calls of
	// a discovery or a hydration that stored nothing cost (the vendor bills
	// failed runs too), in millionths of a USD; a hydration's is split
	// between the topics linking the post.
	RecordTopicCost(ctx context.Context, id string, iv Interval, at time.Time, micros int64) error
	RecordPostCost(ctx context.Context, urn string, iv Interval, at time.Time, micros int64) error
}

// Pronet is the part of the pronet connector collection uses.
type Pronet interface {
	SearchPosts(ctx context.Context, p pronet.SearchParams) (pronet.SearchPage, error)
	Reactions(ctx context.Context, postURN string, page, limit int) (pronet.ReactionsPage, error)
	Comments(ctx context.Context, postURN string, page, limit int) (pronet.CommentsPage, error)
	Profile(ctx context.Context, username string) (pronet.Profile, error)
}

// Post is a discovered post as stored: the provider's record and its time.
type Post struct {
	URN      string
	PostedAt time.Time
	Record   json.RawMessage
	// Author is the member who wrote it; zero for a company page's post.
	Author Engager
}

// DiscoveryRun is what one discovery hands to the store.
type DiscoveryRun struct {
	TopicID   string
	At        time.Time
	Interval  Interval // initial for the first run, rediscovery after
	Posts     []Post
	NextRunAt time.Time
	// Allocation is the account's monthly credits, for the charge.
	Allocation int64
	// HydrateLease claims the first hydration of new posts, whose jobs are
	// enqueued with the discovery.
	HydrateLease time.Duration
	// UpstreamCost is what the run's searches cost at the vendor, in
	// millionths of a USD: the topic's, recorded with its charge.
	UpstreamCost int64
}

// DiscoveryOutcome is what a discovery changed.
type DiscoveryOutcome struct {
	NewPosts          int // posts the service had not seen
	Linked            int // posts newly linked to the topic
	LinkedEngagements int // engagements of already-hydrated posts linked with them
}

// PostSchedule is where a post is in its hydrations.
type PostSchedule struct {
	URN           string
	FirstLinkedAt time.Time
	Stage         Interval // "" when no hydration is left
	DueAt         *time.Time
	Failures      int
	Accounts      []string // accounts of the active topics linking it
}

// Engager is a person as a reaction or a comment shows them.
type Engager struct {
	URN        string
	Username   string
	FullName   string
	Headline   string
	ProfileURL string
	Avatar     string
}

// Found is one engagement read from the provider.
type Found struct {
	Person       Engager
	Type         string // like or comment
	ReactionType string
	Text         string
	CommentURN   string
	At           time.Time // the comment's time; zero for reactions
}

// Hydration is what one hydration of a post hands to the store.
type Hydration struct {
	PostURN     string
	At          time.Time
	Stage       Interval
	Found       []Found
	NextStage   Interval
	NextAt      *time.Time
	Allocations map[string]int64 // by account id
	// UpstreamCost is what the hydration's calls cost at the vendor, in
	// millionths of a USD, split between the topics linking the post.
	UpstreamCost int64
}

// HydrationOutcome is what a hydration changed.
type HydrationOutcome struct {
	NewEngagements int
	Linked         int
	Blocked        []string // topics whose account could not pay
}

// PersonRef names a person whose profile is to be read.
type PersonRef struct {
	URN      string
	Username string
}

// Profile is what a pronet profile tells about a person.
type Profile struct {
	URN           string
	Username      string
	FullName      string
	FirstName     string
	LastName      string
	Headline      string
	JobTitle      string
	Company       string
	CompanyDomain string
	CompanySize   string
	CompanyLogo   string
	Industry      string
	Country       string
	Followers     *int64
	Avatar        string
	PronetURL     string
}

// Collector runs discoveries, hydrations and profile reads.
type Collector struct {
	Repo   Repository
	Pronet Pronet
	Now    func() time.Time
	Log    *slog.Logger
	// Allocation is an account's monthly credits (config.MonthlyCredits).
	Allocation func(auth.Account) int64
	// Lease is how long claimed work may take before it is claimed again.
	Lease time.Duration
}

// Bounds of one run.
const (
	maxSearchPages   = 10
	maxEngagerPages  = 200
	profilesPerBatch = 50
)

func (c *Collector) allocation(ctx context.Context, accountID string) (int64, error) {
	a, err := c.Repo.Account(ctx, accountID)
	if err != nil {
		return 0, fmt.Errorf("account %s: %w", accountID, err)
	}
	return c.Allocation(a), nil
}

// Discover runs a topic's discovery now: the first at creation, then the
// daily rediscovery. A failed run is recorded on the topic with the time of
// the next attempt.
func (c *Collector) Discover(ctx context.Context, id string) (DiscoveryOutcome, error) {
	t, err := c.Repo.TopicByID(ctx, id)
	if err != nil {
		return DiscoveryOutcome{}, err
	}
	now := c.Now()
	if t.Status != StatusActive || !now.Before(t.ExpiresAt) {
		return DiscoveryOutcome{}, fmt.Errorf("topic %s is %s: %w", id, t.Status, ErrNotRunnable)
	}
	interval := Rediscovery
	if t.LastRunAt == nil {
		interval = Initial
	}
	// The vendor bills each call, whatever becomes of the run: a run that
	// stores nothing records its cost alone.
	meter := &source.Meter{}
	posts, err := c.search(source.WithMeter(ctx, meter), t.Definition)
	if err != nil {
		c.recordTopicCost(ctx, t.ID, interval, now, meter)
		c.recordTopicFailure(ctx, t, now, err)
		return DiscoveryOutcome{}, err
	}
	alloc, err := c.allocation(ctx, t.AccountID)
	if err != nil {
		c.recordTopicCost(ctx, t.ID, interval, now, meter)
		return DiscoveryOutcome{}, err
	}
	out, err := c.Repo.SaveDiscovery(ctx, DiscoveryRun{TopicID: t.ID, At: now, Interval: interval, Posts: posts,
		NextRunAt: NextDaily(now), Allocation: alloc, HydrateLease: c.Lease, UpstreamCost: int64(meter.Total())})
	if err != nil {
		c.recordTopicCost(ctx, t.ID, interval, now, meter)
		c.recordTopicFailure(ctx, t, now, err)
		return DiscoveryOutcome{}, err
	}
	return out, nil
}

// recordTopicCost records the cost of a discovery that stored nothing.
func (c *Collector) recordTopicCost(ctx context.Context, id string, iv Interval, now time.Time, m *source.Meter) {
	if m.Total() <= 0 {
		return
	}
	if err := c.Repo.RecordTopicCost(context.WithoutCancel(ctx), id, iv, now, int64(m.Total())); err != nil {
		c.Log.Error("record upstream cost of a topic discovery", "topic_id", id, "error", err)
	}
}

// recordPostCost records the cost of a hydration that stored nothing.
func (c *Collector) recordPostCost(ctx context.Context, urn string, iv Interval, now time.Time, m *source.Meter) {
	if m.Total() <= 0 {
		return
	}
	if err := c.Repo.RecordPostCost(context.WithoutCancel(ctx), urn, iv, now, int64(m.Total())); err != nil {
		c.Log.Error("record upstream cost of a hydration", "post_urn", urn, "error", err)
	}
}

// search reads up to max_results posts of the topic's query, deduplicated.
func (c *Collector) search(ctx context.Context, d Definition) ([]Post, error) {
	p := pronet.SearchParams{Keywords: CompileKeywords(d), DatePosted: d.TimeFrame, SortBy: d.SortBy, ContentType: d.ContentType}
	seen := map[string]bool{}
	var posts []Post
	for page := 1; page <= maxSearchPages && len(posts) < d.MaxResults; page++ {
		p.Page = page
		res, err := c.Pronet.SearchPosts(ctx, p)
		if err != nil {
			return nil, err
		}
		for _, rec := range res.Items {
			if len(posts) >= d.MaxResults {
				break
			}
			urn, err := pronet.ParsePostURN(rec.URN)
			if err != nil || seen[urn] {
				continue
			}
			seen[urn] = true
			raw, err := json.Marshal(rec)
			if err != nil {
				return nil, fmt.Errorf("encode post %s: %w", urn, err)
			}
			posts = append(posts, Post{URN: urn, PostedAt: postedAt(rec), Record: raw, Author: author(rec.Author)})
		}
		if page >= res.TotalPage || len(res.Items) == 0 {
			break
		}
	}
	return posts, nil
}

// author is a post's author as a person; zero unless a member (/in/) wrote it.
func author(a pronet.PostAuthor) Engager {
	if a.URN == "" || !strings.Contains(a.URL, "/in/") {
		return Engager{}
	}
	var avatar string
	if len(a.ProfilePictures) > 0 {
		avatar = a.ProfilePictures[len(a.ProfilePictures)-1].URL
	}
	return Engager{URN: a.URN, Username: a.Username, FullName: strings.TrimSpace(a.FirstName + " " + a.LastName),
		Headline: a.Headline, ProfileURL: a.URL, Avatar: avatar}
}

func postedAt(p pronet.Post) time.Time {
	if p.PostedDateTimestamp > 0 {
		return time.UnixMilli(p.PostedDateTimestamp).UTC()
	}
	if t, err := time.Parse(time.RFC3339, p.PostedDate); err == nil {
		return t.UTC()
	}
	return time.Time{}
}

func (c *Collector) recordTopicFailure(ctx context.Context, t Topic, now time.Time, cause error) {
	if errors.Is(cause, ErrNotRunnable) || errors.Is(cause, ErrGone) {
		return
	}
	next, count, msg := now.Add(backoff(t.Failures)), true, cause.Error()
	var rl *source.RateLimitError
	switch {
	case errors.As(cause, &rl):
		next, count = later(rl.ResetAt, now), false
	case errors.Is(cause, credits.ErrInsufficient):
		next, count, msg = now.Add(creditRetry), false, outOfCredits
	case errors.Is(cause, ErrContention):
		next, count = now.Add(contentionRetry), false
	}
	if err := c.Repo.RecordTopicFailure(context.WithoutCancel(ctx), t.ID, msg, count, next); err != nil {
		c.Log.Error("record failed topic discovery", "topic_id", t.ID, "error", err, "cause", cause)
	}
}

// outOfCredits is the last_error of a topic that waits for credits.
const outOfCredits = "Out of credits: collection is paused until the account has credits again."

// creditRetry is how soon work that could not be paid for is tried again;
// contentionRetry, work that lost to a concurrent transaction.
const (
	creditRetry     = 5 * time.Minute
	contentionRetry = 5 * time.Second
)

func later(t, now time.Time) time.Time {
	if !t.After(now) {
		return now.Add(time.Minute)
	}
	return t
}

// backoff is the wait before retrying work that failed n times before.
func backoff(n int) time.Duration {
	d := time.Minute << min(n, 9)
	return min(d, 6*time.Hour)
}

// Hydrate reads every reaction and comment of a post now and stores them,
// then schedules its next follow-up.
func (c *Collector) Hydrate(ctx context.Context, urn string) (HydrationOutcome, error) {
	ps, err := c.Repo.PostSchedule(ctx, urn)
	if err != nil {
		return HydrationOutcome{}, err
	}
	now := c.Now()
	// A job River rescued long after its claim finds the post scheduled
	// for later (or done) and leaves it.
	if ps.Stage == "" || len(ps.Accounts) == 0 || ps.DueAt == nil || ps.DueAt.After(now.Add(c.Lease)) {
		return HydrationOutcome{}, fmt.Errorf("post %s has nothing due: %w", urn, ErrNotRunnable)
	}
	stage := DueStage(ps.Stage, ps.FirstLinkedAt, now)
	meter := &source.Meter{}
	found, err := c.engagements(source.WithMeter(ctx, meter), urn)
	if err != nil {
		c.recordPostCost(ctx, urn, stage, now, meter)
		c.recordPostFailure(ctx, ps, now, err)
		return HydrationOutcome{}, err
	}
	h := Hydration{PostURN: urn, At: now, Stage: stage, Found: found,
		Allocations: map[string]int64{}, UpstreamCost: int64(meter.Total())}
	if next, at, ok := NextFollowUp(ps.FirstLinkedAt, now); ok {
		h.NextStage, h.NextAt = next, &at
	}
	for _, a := range ps.Accounts {
		if h.Allocations[a], err = c.allocation(ctx, a); err != nil {
			c.recordPostCost(ctx, urn, stage, now, meter)
			return HydrationOutcome{}, err
		}
	}
	out, err := c.Repo.SaveHydration(ctx, h)
	if err != nil {
		c.recordPostCost(ctx, urn, stage, now, meter)
		c.recordPostFailure(ctx, ps, now, err)
		return HydrationOutcome{}, err
	}
	return out, nil
}

func (c *Collector) recordPostFailure(ctx context.Context, ps PostSchedule, now time.Time, cause error) {
	if errors.Is(cause, ErrGone) {
		return
	}
	next, count := now.Add(backoff(ps.Failures)), true
	var rl *source.RateLimitError
	switch {
	case errors.As(cause, &rl):
		next, count = later(rl.ResetAt, now), false
	case errors.Is(cause, ErrContention):
		next, count = now.Add(contentionRetry), false
	}
	if err := c.Repo.RecordPostFailure(context.WithoutCancel(ctx), ps.URN, cause.Error(), count, next); err != nil {
		c.Log.Error("record failed hydration", "post_urn", ps.URN, "error", err, "cause", cause)
	}
}

// engagements reads every page of a post's reactions and comments (replies
// included), one engagement per (person, type): a person's first comment.
func (c *Collector) engagements(ctx context.Context, urn string) ([]Found, error) {
	var found []Found
	seen := map[string]bool{}
	add := func(f Found) {
		if f.Person.URN == "" || seen[f.Type+" "+f.Person.URN] {
			return
		}
		seen[f.Type+" "+f.Person.URN] = true
		found = append(found, f)
	}
	for page := 1; page <= maxEngagerPages; page++ {
		res, err := c.Pronet.Reactions(ctx, urn, page, 0)
		if err != nil {
			return nil, err
		}
		for _, r := range res.Items {
			add(Found{Type: "like", ReactionType: r.ReactionType, Person: Engager{URN: r.URN, Username: r.Username,
				FullName: r.FullName, Headline: r.Headline, ProfileURL: r.ProfileURL, Avatar: r.ProfilePicture}})
		}
		if page >= res.TotalPage || len(res.Items) == 0 {
			break
		}
	}
	var addComment func(cm pronet.Comment)
	addComment = func(cm pronet.Comment) {
		a := cm.Author
		add(Found{Type: "comment", Text: cm.Text, CommentURN: cm.URN, At: time.UnixMilli(cm.CreatedAt).UTC(),
			Person: Engager{URN: a.URN, Username: a.Username, FullName: a.Name, Headline: a.Title, ProfileURL: a.PronetURL}})
		for _, r := range cm.Replies {
			addComment(r)
		}
	}
	for page := 1; page <= maxEngagerPages; page++ {
		res, err := c.Pronet.Comments(ctx, urn, page, 0)
		if err != nil {
			return nil, err
		}
		for _, cm := range res.Comments {
			addComment(cm)
		}
		if page >= res.TotalPage || len(res.Comments) == 0 {
			break
		}
	}
	return found, nil
}

// RefreshProfiles reads the profiles of up to a batch of people that are
// due, stopping at the provider's rate limit. It reports whether a full
// batch was read (there may be more).
func (c *Collector) RefreshProfiles(ctx context.Context) (bool, error) {
	now := c.Now()
	due, err := c.Repo.ClaimDueProfiles(ctx, now, c.Lease, profilesPerBatch)
	if err != nil {
		return false, err
	}
	for i, p := range due {
		// Each read is billed, found or not: its cost is stored with its outcome.
		meter := &source.Meter{}
		prof, err := c.Pronet.Profile(source.WithMeter(ctx, meter), p.Username)
		cost := int64(meter.Total())
		var rl *source.RateLimitError
		switch {
		case errors.As(err, &rl):
			// Hand the rest back for when the provider allows it.
			for j, rest := range due[i:] {
				if j > 0 {
					cost = 0 // not read
				}
				if err := c.Repo.RecordProfileFailure(ctx, rest.URN, now, later(rl.ResetAt, now), cost); err != nil {
					return false, err
				}
			}
			return false, nil
		case errors.Is(err, source.ErrNotFound) || p.Username == "":
			if err := c.Repo.RecordProfileFailure(ctx, p.URN, now, time.Time{}, cost); err != nil {
				return false, err
			}
		case err != nil:
			c.Log.Warn("read pronet profile", "urn", p.URN, "error", err)
			if err := c.Repo.RecordProfileFailure(ctx, p.URN, now, now.Add(backoff(1)), cost); err != nil {
				return false, err
			}
		default:
			if err := c.Repo.SaveProfile(ctx, ProfileFrom(p.URN, prof), now, cost); err != nil {
				return false, err
			}
		}
	}
	return len(due) == profilesPerBatch, nil
}

// ResyncBlocked retries the linking of topics that waited for credits.
func (c *Collector) ResyncBlocked(ctx context.Context) error {
	ids, err := c.Repo.CreditBlockedTopics(ctx, 100)
	if err != nil {
		return err
	}
	for _, id := range ids {
		t, err := c.Repo.TopicByID(ctx, id)
		if err != nil {
			return err
		}
		alloc, err := c.allocation(ctx, t.AccountID)
		if err != nil {
			return err
		}
		if _, err := c.Repo.ResyncTopic(ctx, id, c.Now(), alloc); err != nil {
			return err
		}
	}
	return nil
}

func isCredits(err error) bool { return errors.Is(err, credits.ErrInsufficient) }

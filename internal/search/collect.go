package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/microblog"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// Repository is the persistence collection needs; the store implements it.
type Repository interface {
	SearchByID(ctx context.Context, id string) (Search, error)
	SetProfileUserID(ctx context.Context, id, userID string) error
	// SaveRun stores the items not yet stored for the search, one outbox
	// event per new item, and the search's new counters and schedule, in one
	// transaction. It changes nothing for a deleted search.
	SaveRun(ctx context.Context, run Run) (Outcome, error)
	// RecordFailure notes a failed run and when to try again.
	RecordFailure(ctx context.Context, id string, at time.Time, msg string, countFailure bool, next time.Time) error
	// RecordCost records what a run's upstream calls cost at the vendor: runs
	// charge no credits, and the vendor bills failed runs too.
	RecordCost(ctx context.Context, c credits.Cost) error
	// ClaimDue returns active searches whose next run is due at now and moves
	// their next run a lease ahead, so no other process claims them meanwhile
	// and a run whose process died is retried when the lease ends.
	ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]string, error)
}

// Microblog is the part of the microblog connector collection uses.
type Microblog interface {
	Search(ctx context.Context, p microblog.SearchParams) (microblog.Page, error)
	UserByUsername(ctx context.Context, username string) (microblog.User, error)
	UserTweets(ctx context.Context, userID string, p microblog.TimelineParams) (microblog.Page, error)
}

// Run is what one collection run hands to the store.
type Run struct {
	SearchID  string
	At        time.Time
	Items     []source.Item
	NewestID  string // watermark after the run
	NextRunAt time.Time
}

// Outcome is what a run changed.
type Outcome struct {
	NewResults   int
	TotalResults int64
}

// Collector runs saved searches.
type Collector struct {
	Repo      Repository
	Microblog Microblog
	// Pronet and People serve pronet searches; People may be nil (nothing
	// is known about authors then).
	Pronet Pronet
	People People
	Now    func() time.Time
	Log    *slog.Logger
	// QueryMaxLength is the limit of a compiled recent-search query
	// (TRAWL_QUERY_MAX_LENGTH); 0 means X's 512.
	QueryMaxLength int
}

// maxPages bounds the pages one run reads, whatever max_results says.
const maxPages = 10

// Run collects new posts for the search now and reschedules it. A failed
// run is recorded on the search with the time of the next attempt.
func (c *Collector) Run(ctx context.Context, id string) (Outcome, error) {
	s, err := c.Repo.SearchByID(ctx, id)
	if err != nil {
		return Outcome{}, err
	}
	if s.Status == StatusDeleted {
		return Outcome{}, fmt.Errorf("search %s is deleted: %w", id, ErrNotRunnable)
	}
	now := c.Now()
	var (
		items   []source.Item
		newest  string
		authors []PronetAuthor
	)
	meter := &source.Meter{}
	mctx := source.WithMeter(ctx, meter)
	if s.Kind.Pronet() {
		items, newest, authors, err = c.fetchPronet(mctx, s, now)
	} else {
		items, newest, err = c.fetch(mctx, &s, now)
	}
	c.recordCost(ctx, s, "search run", now, meter)
	if err != nil {
		c.recordFailure(ctx, s, now, err)
		return Outcome{}, err
	}
	if !NewerID(newest, s.Watermark) {
		newest = s.Watermark
	}
	out, err := c.Repo.SaveRun(ctx, Run{SearchID: s.ID, At: now, Items: items, NewestID: newest,
		NextRunAt: s.Definition.Frequency.Next(now)})
	if err == nil && len(authors) > 0 && c.People != nil {
		// The authors join the people topics collect, whose profiles (and so
		// firmographics) are read in the background. Failing that loses
		// nothing the run stored.
		if err := c.People.SeePronetAuthors(context.WithoutCancel(ctx), authors, now); err != nil {
			c.Log.Error("note authors of a pronet search", "search_id", s.ID, "error", err)
		}
	}
	return out, err
}

// recordCost records what the calls of a run (or a preview) cost, whatever became of
// it, under search_create: the feature a saved search is paid for with.
func (c *Collector) recordCost(ctx context.Context, s Search, action string, now time.Time, m *source.Meter) {
	if m.Total() <= 0 || s.AccountID == "" {
		return
	}
	cost := credits.Cost{AccountID: s.AccountID, Feature: credits.SearchCreate, Action: action, Reference: s.ID,
		SearchID: s.ID, Micros: int64(m.Total()), At: now}
	if err := c.Repo.RecordCost(context.WithoutCancel(ctx), cost); err != nil {
		c.Log.Error("record upstream cost of a search run", "search_id", s.ID, "error", err)
	}
}

func (c *Collector) recordFailure(ctx context.Context, s Search, now time.Time, cause error) {
	var rl *source.RateLimitError
	next, count := now.Add(backoff(s.Failures)), true
	if errors.As(cause, &rl) {
		// The upstream asked us to wait: a delay, not a failure.
		next, count = rl.ResetAt, false
		if !next.After(now) {
			next = now.Add(time.Minute)
		}
	}
	if err := c.Repo.RecordFailure(context.WithoutCancel(ctx), s.ID, now, cause.Error(), count, next); err != nil {
		c.Log.Error("record failed search run", "search_id", s.ID, "error", err, "cause", cause)
	}
}

// backoff is the wait before retrying a search that failed n times before.
func backoff(n int) time.Duration {
	d := time.Minute << min(n, 9)
	return min(d, 6*time.Hour)
}

func (c *Collector) fetch(ctx context.Context, s *Search, now time.Time) ([]source.Item, string, error) {
	if s.Kind == KindProfile && s.ProfileUserID == "" {
		id, err := resolveProfile(ctx, c.Microblog, s.Definition.ProfileUsername)
		if err != nil {
			return nil, "", err
		}
		if err := c.Repo.SetProfileUserID(ctx, s.ID, id); err != nil {
			return nil, "", err
		}
		s.ProfileUserID = id
	}
	return fetch(ctx, c.Microblog, *s, now, c.QueryMaxLength)
}

// Preview fetches what a first run of the search would collect now, on
// either platform, storing nothing.
func (c *Collector) Preview(ctx context.Context, s Search) ([]source.Item, error) {
	if s.Kind.Pronet() {
		// A preview's calls are billed too: recorded when the caller names
		// the account (s.AccountID).
		s.Watermark = ""
		meter, now := &source.Meter{}, c.Now()
		items, _, _, err := c.fetchPronet(source.WithMeter(ctx, meter), s, now)
		c.recordCost(ctx, s, "search preview", now, meter)
		return items, err
	}
	return Preview(ctx, c.Microblog, s, c.Now(), c.QueryMaxLength)
}

// Preview fetches what a first run of a microblog search would collect now,
// storing nothing.
func Preview(ctx context.Context, mb Microblog, s Search, now time.Time, queryMaxLen int) ([]source.Item, error) {
	if s.Kind == KindProfile {
		id, err := resolveProfile(ctx, mb, s.Definition.ProfileUsername)
		if err != nil {
			return nil, err
		}
		s.ProfileUserID = id
	}
	items, _, err := fetch(ctx, mb, s, now, queryMaxLen)
	return items, err
}

func resolveProfile(ctx context.Context, mb Microblog, username string) (string, error) {
	u, err := mb.UserByUsername(ctx, username)
	if err != nil {
		return "", fmt.Errorf("resolve @%s: %w", username, err)
	}
	return u.ID, nil
}

// fetch reads the posts a run collects: those newer than the watermark
// within the time frame, at most max_results.
func fetch(ctx context.Context, mb Microblog, s Search, now time.Time, queryMaxLen int) ([]source.Item, string, error) {
	d := s.Definition
	if s.Kind == KindProfile {
		p := microblog.TimelineParams{SinceID: s.Watermark, MaxResults: min(max(d.MaxResults, 5), 100)}
		if s.Watermark == "" {
			p.StartTime = Since(d.TimeFrame, now)
		}
		return collectPages(d.MaxResults, func(token string) (microblog.Page, error) {
			p.PaginationToken = token
			return mb.UserTweets(ctx, s.ProfileUserID, p)
		})
	}
	compiled, err := d.Compile(queryMaxLen)
	if err != nil {
		return nil, "", fmt.Errorf("compile query: %w", err)
	}
	p := microblog.SearchParams{
		Query: compiled.Query, SortOrder: compiled.SortOrder,
		StartTime: Since(d.TimeFrame, now), SinceID: s.Watermark,
		MaxResults: d.MaxResults, FullArchive: d.UseFullArchive, Now: now,
	}
	return collectPages(d.MaxResults, func(token string) (microblog.Page, error) {
		p.NextToken = token
		return mb.Search(ctx, p)
	})
}

// collectPages reads pages until limit items, the last page or maxPages.
func collectPages(limit int, page func(token string) (microblog.Page, error)) ([]source.Item, string, error) {
	var (
		items  []source.Item
		newest string
		token  string
	)
	for range maxPages {
		pg, err := page(token)
		if err != nil {
			return nil, "", err
		}
		for _, it := range pg.Items {
			if NewerID(it.ID, newest) {
				newest = it.ID
			}
		}
		items = append(items, pg.Items...)
		if len(items) >= limit || pg.NextToken == "" {
			break
		}
		token = pg.NextToken
	}
	if len(items) > limit {
		items = items[:limit]
	}
	return items, newest, nil
}

// RunArgs is the River job that runs one search.
type RunArgs struct {
	SearchID string `json:"search_id"`
}

// Kind is River's name for the job.
func (RunArgs) Kind() string { return "trawl.search.run" }

// InsertOpts: no River uniqueness. The lease on searches.next_run_at is
// what keeps a search from being claimed twice, and River insists that a
// unique job also counts running jobs, so a job left "running" by a killed
// process would block the run its expired lease should retry (for up to
// River's one-hour rescue delay). A rare overlapping run stores nothing twice.
func (RunArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3}
}

// RunWorker runs searches for River.
type RunWorker struct {
	river.WorkerDefaults[RunArgs]
	Collector *Collector
}

// Work runs the search; a search that cannot run any more is not retried.
func (w *RunWorker) Work(ctx context.Context, job *river.Job[RunArgs]) error {
	_, err := w.Collector.Run(ctx, job.Args.SearchID)
	if errors.Is(err, ErrNotRunnable) || errors.Is(err, ErrGone) {
		return nil
	}
	var rl *source.RateLimitError
	if errors.As(err, &rl) || errors.Is(err, pronet.ErrUnsupported) {
		// Recorded (and rescheduled) on the search itself; retrying the job would not help.
		return nil
	}
	return err
}

// ErrGone is what the repository returns for a search that does not exist.
var ErrGone = errors.New("search: no such search")

// Scheduler is the due-work scan that enqueues the runs of due searches.
type Scheduler struct {
	Repo    Repository
	Enqueue func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error
	// Lease is how long a claimed run may take before it is claimed again.
	Lease time.Duration
}

// Name names the scan in logs.
func (*Scheduler) Name() string { return "search-scheduler" }

// ScanDue claims due searches and enqueues a run for each.
func (s *Scheduler) ScanDue(ctx context.Context, now time.Time) error {
	for {
		ids, err := s.Repo.ClaimDue(ctx, now, s.Lease, 100)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := s.Enqueue(ctx, RunArgs{SearchID: id}, nil); err != nil {
				return err
			}
		}
		if len(ids) < 100 {
			return nil
		}
	}
}

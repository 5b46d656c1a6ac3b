package topic

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// DiscoverArgs is the River job that runs one topic's discovery.
type DiscoverArgs struct {
	TopicID string `json:"topic_id"`
}

// Kind is River's name for the job.
func (DiscoverArgs) Kind() string { return "trawl.topic.discover" }

// InsertOpts: no River uniqueness, as for search runs: the lease on
// topics.next_run_at keeps discoveries apart.
func (DiscoverArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// HydrateArgs is the River job that hydrates one post.
type HydrateArgs struct {
	PostURN string `json:"post_urn"`
}

// Kind is River's name for the job.
func (HydrateArgs) Kind() string { return "trawl.topic.hydrate" }

// InsertOpts: the lease on pronet_posts.next_hydrate_at keeps hydrations apart.
func (HydrateArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// ProfilesArgs is the River job that reads due profiles, a batch at a time.
type ProfilesArgs struct{}

// Kind is River's name for the job.
func (ProfilesArgs) Kind() string { return "trawl.topic.profiles" }

// InsertOpts: claims on pronet_people.profile_due_at keep batches apart.
func (ProfilesArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// Enqueue inserts a job outside any transaction.
type Enqueue func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error

// AddWorkers registers the topic workers.
func AddWorkers(w *river.Workers, c *Collector, enqueue Enqueue) {
	river.AddWorker(w, &discoverWorker{c: c})
	river.AddWorker(w, &hydrateWorker{c: c, enqueue: enqueue})
	river.AddWorker(w, &profilesWorker{c: c, enqueue: enqueue})
}

// settled reports errors that retrying the job cannot help: the work is
// gone, not runnable, or rescheduled in the database (rate limits, credits).
func settled(err error) bool {
	var rl *source.RateLimitError
	return errors.Is(err, ErrNotRunnable) || errors.Is(err, ErrGone) || errors.As(err, &rl) || isCredits(err) ||
		errors.Is(err, pronet.ErrUnsupported) // recorded on the topic; retrying the job cannot help
}

type discoverWorker struct {
	river.WorkerDefaults[DiscoverArgs]
	c *Collector
}

func (w *discoverWorker) Work(ctx context.Context, job *river.Job[DiscoverArgs]) error {
	if _, err := w.c.Discover(ctx, job.Args.TopicID); err != nil && !settled(err) {
		return err
	}
	return nil
}

type hydrateWorker struct {
	river.WorkerDefaults[HydrateArgs]
	c       *Collector
	enqueue Enqueue
}

func (w *hydrateWorker) Work(ctx context.Context, job *river.Job[HydrateArgs]) error {
	out, err := w.c.Hydrate(ctx, job.Args.PostURN)
	if err != nil {
		if settled(err) {
			return nil
		}
		return err
	}
	if out.NewEngagements > 0 {
		// New engagers get their profiles read soon; the tick would too.
		return w.enqueue(ctx, ProfilesArgs{}, nil)
	}
	return nil
}

type profilesWorker struct {
	river.WorkerDefaults[ProfilesArgs]
	c       *Collector
	enqueue Enqueue
}

func (w *profilesWorker) Work(ctx context.Context, _ *river.Job[ProfilesArgs]) error {
	more, err := w.c.RefreshProfiles(ctx)
	if err != nil {
		return err
	}
	if more {
		return w.enqueue(ctx, ProfilesArgs{}, nil)
	}
	return nil
}

// Scheduler is the due-work scan of topics: expiry, due discoveries (the
// daily 06:00 UTC rediscovery), due post hydrations (Day 1, 3, 5), profile
// reads and topics waiting for credits.
type Scheduler struct {
	Repo      Repository
	Collector *Collector
	Enqueue   Enqueue
	Lease     time.Duration
}

// Name names the scan in logs.
func (*Scheduler) Name() string { return "topic-scheduler" }

// ScanDue claims what is due and enqueues it.
func (s *Scheduler) ScanDue(ctx context.Context, now time.Time) error {
	if _, err := s.Repo.ExpireTopics(ctx, now); err != nil {
		return err
	}
	if err := s.Collector.ResyncBlocked(ctx); err != nil {
		return err
	}
	for {
		ids, err := s.Repo.ClaimDueTopics(ctx, now, s.Lease, 100)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := s.Enqueue(ctx, DiscoverArgs{TopicID: id}, nil); err != nil {
				return err
			}
		}
		if len(ids) < 100 {
			break
		}
	}
	for {
		urns, err := s.Repo.ClaimDuePosts(ctx, now, s.Lease, 500)
		if err != nil {
			return err
		}
		for _, urn := range urns {
			if err := s.Enqueue(ctx, HydrateArgs{PostURN: urn}, nil); err != nil {
				return err
			}
		}
		if len(urns) < 500 {
			break
		}
	}
	return s.Enqueue(ctx, ProfilesArgs{}, nil)
}

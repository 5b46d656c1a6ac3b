package store_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// topicBenchAllocation is an account's monthly credits in the topic
// benchmarks: more than any run spends.
const topicBenchAllocation = 1 << 40

// topicBenchBase is the benchmarks' "now" at the start.
var topicBenchBase = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)

// topicBenchTopics creates an account and n active topics on it at the
// store's current time.
func topicBenchTopics(tb testing.TB, s *store.Store, n int) (auth.Account, []topic.Topic) {
	tb.Helper()
	ctx := context.Background()
	a := auth.Account{Name: "bench", Plan: auth.PlanCustom}
	if err := s.CreateAccount(ctx, &a); err != nil {
		tb.Fatalf("create account: %v", err)
	}
	topics := make([]topic.Topic, n)
	for i := range topics {
		topics[i] = topic.Topic{AccountID: a.ID, Name: "bench " + strconv.Itoa(i), Definition: topic.Definition{
			Keywords: []string{"revops"}, TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults,
			SortBy: topic.DefaultSortBy,
		}}
		if err := s.CreateTopic(ctx, &topics[i], 0); err != nil {
			tb.Fatalf("create topic: %v", err)
		}
	}
	return a, topics
}

// analyzeForBench vacuums PostgreSQL's tables and refreshes its planner
// statistics after a bulk load, as autovacuum does within a minute of one;
// SQLite has nothing to do (the service never runs ANALYZE there).
func analyzeForBench(ctx context.Context, s *store.Store) error {
	if s.Dialect() != store.Postgres {
		return nil
	}
	if _, err := s.DB().ExecContext(ctx, `VACUUM ANALYZE`); err != nil {
		return fmt.Errorf("vacuum analyze: %w", err)
	}
	return nil
}

// One hydration in BenchmarkSaveHydration: a post's first read, with
// hydrationLikes reactions and hydrationComments comments. hydrationRepeat
// of the reactions are by people who engaged with earlier posts of the
// topic, and hydrationBoth commenters also reacted to the post; everyone
// else is new to the service.
const (
	hydrationLikes    = 160
	hydrationComments = 40
	hydrationRepeat   = 30
	hydrationBoth     = 10
	hydrationWarmup   = 20  // posts hydrated before timing starts
	hydrationLinkStep = 100 // posts linked per discovery
)

var benchReactions = []string{"LIKE", "LIKE", "LIKE", "PRAISE", "EMPATHY", "INTEREST", "APPRECIATION"}

// hydrationGen makes the engagements of successive posts of one topic.
type hydrationGen struct {
	data       seed.TopicData
	nextPerson int
	earlier    []int // people of the previous post, for repeats
}

func engagerOf(p topic.Profile) topic.Engager {
	return topic.Engager{URN: p.URN, Username: p.Username, FullName: p.FullName, Headline: p.Headline,
		ProfileURL: p.PronetURL, Avatar: p.Avatar}
}

// found returns the engagements hydration reads from post n at `at`.
func (g *hydrationGen) found(n int, at time.Time) []topic.Found {
	out := make([]topic.Found, 0, hydrationLikes+hydrationComments)
	var people []int
	for i := range hydrationLikes {
		var p int
		if i < hydrationRepeat && i < len(g.earlier) {
			p = g.earlier[i]
		} else {
			p = g.nextPerson
			g.nextPerson++
		}
		people = append(people, p)
		out = append(out, topic.Found{Person: engagerOf(g.data.Person(p)), Type: "like",
			ReactionType: benchReactions[(n+i)%len(benchReactions)]})
	}
	for i := range hydrationComments {
		var p int
		if i < hydrationBoth {
			p = people[len(people)-1-i]
		} else {
			p = g.nextPerson
			g.nextPerson++
		}
		urn := seed.PostURN(n)
		out = append(out, topic.Found{Person: engagerOf(g.data.Person(p)), Type: "comment",
			Text:       "Great point about pipeline hygiene — we saw the same after moving our SDRs to intent signals. Congrats on the round!",
			CommentURN: "urn:li:comment:(activity:" + urn + "," + strconv.Itoa(7_300_000_000+n*100+i) + ")",
			At:         at.Add(-time.Duration(i+1) * 37 * time.Second)})
	}
	// The next post repeats people new on this one.
	g.earlier = slices.Clone(people[hydrationRepeat:min(len(people), 2*hydrationRepeat)])
	return out
}

// BenchmarkSaveHydration reports engagements/s: engagements stored per
// second of SaveHydration (people upserted, engagements inserted, linked to
// the topic, billed, outbox events written), on every engine under test.
// One op is the first hydration of one post with 200 engagements. "serial"
// stores one post after another; "workers-4" four at once and
// "workers-10" ten, as many as a process's job workers run (most of their
// time goes to the provider, so fewer store at once).
//
//	go test ./internal/store -run '^$' -bench SaveHydration -benchtime 500x
func BenchmarkSaveHydration(b *testing.B) {
	for _, engine := range storetest.Engines() {
		b.Run(string(engine)+"/serial", func(b *testing.B) { benchSaveHydration(b, engine, 1) })
		b.Run(string(engine)+"/workers-4", func(b *testing.B) { benchSaveHydration(b, engine, 4) })
		b.Run(string(engine)+"/workers-10", func(b *testing.B) { benchSaveHydration(b, engine, 10) })
	}
}

// hydrationBench feeds BenchmarkSaveHydration: one topic, its posts linked
// a hundred at a time, each post's first hydration.
type hydrationBench struct {
	s      *store.Store
	a      auth.Account
	t      topic.Topic
	g      *hydrationGen
	linked int // posts linked to the topic so far
}

// link links the posts up to upTo to the topic.
func (hb *hydrationBench) link(b *testing.B, upTo int) {
	for hb.linked < upTo {
		at := topicBenchBase.Add(time.Duration(hb.linked) * time.Second)
		run := topic.DiscoveryRun{TopicID: hb.t.ID, At: at, Interval: topic.Rediscovery, NextRunAt: topic.NextDaily(at),
			Allocation: topicBenchAllocation}
		for n := hb.linked; n < hb.linked+hydrationLinkStep; n++ {
			run.Posts = append(run.Posts, hb.g.data.Post(n))
		}
		if hb.linked == 0 {
			run.Interval = topic.Initial
		}
		out, err := hb.s.SaveDiscovery(context.Background(), run)
		if err != nil || out.Linked != hydrationLinkStep {
			b.Fatalf("link posts: %+v, %v", out, err)
		}
		hb.linked += hydrationLinkStep
	}
}

// hydration is the first hydration of post n, a few hours after its
// discovery.
func (hb *hydrationBench) hydration(n int) topic.Hydration {
	at := topicBenchBase.Add(6*time.Hour + time.Duration(n)*time.Second)
	linkedAt := topicBenchBase.Add(time.Duration(n/hydrationLinkStep*hydrationLinkStep) * time.Second)
	stage, due, _ := topic.NextFollowUp(linkedAt, at)
	return topic.Hydration{PostURN: seed.PostURN(n), At: at, Stage: topic.Initial,
		Found: hb.g.found(n, at), NextStage: stage, NextAt: &due,
		Allocations: map[string]int64{hb.a.ID: topicBenchAllocation}}
}

func (hb *hydrationBench) save(b *testing.B, h topic.Hydration) int {
	out, err := hb.s.SaveHydration(context.Background(), h)
	if err != nil {
		b.Errorf("save hydration: %v", err)
		return 0
	}
	if out.NewEngagements != len(h.Found) || out.Linked != len(h.Found) || len(out.Blocked) > 0 {
		b.Errorf("hydration of post %s: %+v, want %d new and linked", h.PostURN, out, len(h.Found))
	}
	return out.NewEngagements
}

func benchSaveHydration(b *testing.B, engine store.Dialect, workers int) {
	ctx := context.Background()
	clk := clock.NewFake(topicBenchBase)
	s := storetest.Open(b, engine, clk.Now)
	a, topics := topicBenchTopics(b, s, 1)
	hb := &hydrationBench{s: s, a: a, t: topics[0], g: &hydrationGen{data: seed.NewTopicData(topicBenchBase.Add(-48 * time.Hour))}}
	hb.link(b, hydrationWarmup)
	for n := range hydrationWarmup {
		hb.save(b, hb.hydration(n))
	}
	if err := analyzeForBench(ctx, s); err != nil {
		b.Fatal(err)
	}
	// Every op's posts and engagements are made before the clock starts.
	hb.link(b, hydrationWarmup+b.N)
	hs := make([]topic.Hydration, b.N)
	for i := range hs {
		hs[i] = hb.hydration(hydrationWarmup + i)
	}

	var (
		next   atomic.Int64
		stored atomic.Int64
		wg     sync.WaitGroup
	)
	b.ResetTimer()
	for range workers {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(hs)); i = next.Add(1) - 1 {
				stored.Add(int64(hb.save(b, hs[i])))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(stored.Load())/b.Elapsed().Seconds(), "engagements/s")
	b.ReportMetric(float64(stored.Load())/float64(b.N), "engagements/op")
}

// The due-post scan in BenchmarkClaimDuePosts: claimTracked posts linked to
// claimTopics active topics, each with a follow-up pending (the worst case:
// every post in its first five days), claimDue of them due now.
const (
	claimTracked = 100_000
	claimTopics  = 100
	claimDue     = 300
	claimLimit   = 500 // what the topic scheduler asks for
	claimLease   = 10 * time.Minute
	// claimStale posts are linked only to expired topics. Expiry takes
	// them off the schedule; until the tick that expires a topic runs,
	// its posts whose follow-ups are pending stay due.
	claimStale       = 20_000
	claimStaleTopics = 40
)

// BenchmarkClaimDuePosts reports ms/claim: one ClaimDuePosts call that
// claims the claimDue due posts among claimTracked tracked ones (and
// claimStale posts of expired topics, off the schedule), then the same
// with those claimStale posts due in front of them, as they are between
// their topics' expiry and the tick that expires them.
// The claimed posts are made due again between calls, off the clock.
//
//	go test ./internal/store -run '^$' -bench ClaimDuePosts -benchtime 500x
func BenchmarkClaimDuePosts(b *testing.B) {
	for _, engine := range storetest.Engines() {
		b.Run(string(engine), func(b *testing.B) { benchClaimDuePosts(b, engine) })
	}
}

func benchClaimDuePosts(b *testing.B, engine store.Dialect) {
	ctx := context.Background()
	now := topicBenchBase.Add(10 * 24 * time.Hour)
	clk := clock.NewFake(now.Add(-(topic.Lifetime + 6*24*time.Hour)))
	s := storetest.Open(b, engine, clk.Now)
	data := seed.NewTopicData(clk.Now().Add(-24 * time.Hour))
	post := 0 // the next post to make

	// Stale: topics created 36 days ago whose posts of their last days
	// were left with a follow-up due; they have expired since.
	_, stale := topicBenchTopics(b, s, claimStaleTopics)
	expiredAt := clk.Now().Add(topic.Lifetime)
	staleDue := make(map[string]time.Time, claimStale)
	for _, t := range stale {
		var posts []seed.Post
		for i := range claimStale / claimStaleTopics {
			linked := expiredAt.Add(-time.Duration(1+i%(4*24*60)) * time.Minute)
			p := seed.Post{Post: data.Post(post), LinkedAt: linked, Interval: topic.Rediscovery, HydratedAt: linked}
			p.Stage, p.DueAt, _ = topic.NextFollowUp(linked, expiredAt)
			staleDue[p.URN] = p.DueAt
			posts = append(posts, p)
			post++
		}
		if _, err := seed.TopicPosts(ctx, s, t.ID, posts); err != nil {
			b.Fatal(err)
		}
	}
	clk.Set(now.Add(-6 * 24 * time.Hour))
	if n, err := s.ExpireTopics(ctx, now); err != nil || n != claimStaleTopics {
		b.Fatalf("expire topics: %d, %v", n, err)
	}

	// Tracked: active topics created 6 days ago with posts linked over the
	// last four days, a follow-up pending on each; the first claimDue are
	// due (Day 1 follow-ups that fell due in the last hour).
	_, active := topicBenchTopics(b, s, claimTopics)
	due := make(map[string]time.Time, claimDue)
	perTopic := claimTracked / claimTopics
	for ti, t := range active {
		var posts []seed.Post
		for i := range perTopic {
			k := i*claimTopics + ti // the due posts are spread over the topics
			p := seed.Post{Post: data.Post(post), Interval: topic.Rediscovery}
			if k < claimDue {
				p.LinkedAt = now.Add(-24*time.Hour - time.Duration(k)*10*time.Second)
				p.Stage, p.DueAt = topic.Day1, p.LinkedAt.Add(24*time.Hour)
				due[p.URN] = p.DueAt
			} else {
				p.LinkedAt = now.Add(-time.Duration(k%(4*24*60)) * time.Minute)
				p.Stage, p.DueAt, _ = topic.NextFollowUp(p.LinkedAt, now)
			}
			p.HydratedAt = p.LinkedAt
			posts = append(posts, p)
			post++
		}
		if _, err := seed.TopicPosts(ctx, s, t.ID, posts); err != nil {
			b.Fatal(err)
		}
	}
	clk.Set(now)
	if err := analyzeForBench(ctx, s); err != nil {
		b.Fatal(err)
	}

	claim := func(b *testing.B) {
		for b.Loop() {
			urns, err := s.ClaimDuePosts(ctx, now, claimLease, claimLimit)
			if err != nil {
				b.Fatalf("claim due posts: %v", err)
			}
			b.StopTimer()
			if len(urns) != len(due) {
				b.Fatalf("claimed %d posts, want the %d due", len(urns), len(due))
			}
			if err := resetDue(ctx, s, urns, due); err != nil {
				b.Fatalf("make posts due again: %v", err)
			}
			b.StartTimer()
		}
		b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/claim")
	}
	var left int
	if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM pronet_posts WHERE next_hydrate_at < $1`,
		now.Add(-12*time.Hour).UnixMilli()).Scan(&left); err != nil || left != 0 {
		b.Fatalf("expiry left %d posts of expired topics due (%v)", left, err)
	}
	b.Run("tracked=100k", claim)
	// The stale posts due again, as before the tick that expired them.
	if err := resetDue(ctx, s, slices.Collect(maps.Keys(staleDue)), staleDue); err != nil {
		b.Fatal(err)
	}
	if err := analyzeForBench(ctx, s); err != nil {
		b.Fatal(err)
	}
	b.Run("tracked=100k,stale=20k", claim)
}

// resetDue makes the claimed posts due again as they were.
func resetDue(ctx context.Context, s *store.Store, urns []string, due map[string]time.Time) error {
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, urn := range urns {
		at, ok := due[urn]
		if !ok {
			return fmt.Errorf("claimed post %s was not due", urn)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE pronet_posts SET next_hydrate_at = $1 WHERE urn = $2`, at.UnixMilli(), urn); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// The bulk loaders of the benchmarks must leave what the real paths leave:
// a topic seeded with seed.TopicPosts and seed.TopicEngagements lists the same
// engagers, in the same order, with the same counters, as one whose posts
// were discovered and hydrated; and the due-post scan sees seeded schedules.
func TestTopicSeedersMatchRealPaths(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(topicBenchBase)
		hydrated, seeded := storetest.Open(t, engine, clk.Now), storetest.Open(t, engine, clk.Now)
		ra, rt := topicBenchTopics(t, hydrated, 1)
		_, st := topicBenchTopics(t, seeded, 2)
		data := seed.NewTopicData(topicBenchBase.Add(-time.Hour))
		const posts = 3
		run := topic.DiscoveryRun{TopicID: rt[0].ID, At: topicBenchBase, Interval: topic.Initial,
			NextRunAt: topic.NextDaily(topicBenchBase), Allocation: topicBenchAllocation}
		var seedPosts []seed.Post
		for n := range posts {
			run.Posts = append(run.Posts, data.Post(n))
			seedPosts = append(seedPosts, seed.Post{Post: data.Post(n), LinkedAt: topicBenchBase, Interval: topic.Initial,
				HydratedAt: topicBenchBase})
		}
		if _, err := hydrated.SaveDiscovery(ctx, run); err != nil {
			t.Fatal(err)
		}
		if n, err := seed.TopicPosts(ctx, seeded, st[0].ID, seedPosts); err != nil || n != posts {
			t.Fatalf("seeded %d posts, %v; want %d", n, err, posts)
		}
		g := &hydrationGen{data: data}
		for n := range posts {
			at := topicBenchBase.Add(time.Duration(n+1) * time.Hour)
			found := g.found(n, at)
			if _, err := hydrated.SaveHydration(ctx, topic.Hydration{PostURN: seed.PostURN(n), At: at, Stage: topic.Initial,
				Found: found, Allocations: map[string]int64{ra.ID: topicBenchAllocation}}); err != nil {
				t.Fatal(err)
			}
			people := map[string]topic.Profile{}
			for p := range g.nextPerson {
				people[seed.PersonURN(p)] = data.Person(p)
			}
			var es []seed.Engagement
			for _, f := range found {
				e := seed.Engagement{PostURN: seed.PostURN(n), Person: people[f.Person.URN], Type: f.Type,
					ReactionType: f.ReactionType, Text: f.Text, CommentURN: f.CommentURN, At: f.At, Interval: topic.Initial}
				if e.At.IsZero() {
					e.At = at
				}
				es = append(es, e)
			}
			// Twice: engagements already stored are skipped.
			for range 2 {
				if _, err := seed.TopicEngagements(ctx, seeded, st[0].ID, at, es); err != nil {
					t.Fatal(err)
				}
			}
		}
		want, wantTotal, err := hydrated.TopicEngagers(ctx, rt[0].ID, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		got, gotTotal, err := seeded.TopicEngagers(ctx, st[0].ID, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if gotTotal != wantTotal || len(got) != len(want) || len(want) < posts*hydrationLikes {
			t.Fatalf("seeded topic lists %d of %d engagers, hydrated one %d of %d", len(got), gotTotal, len(want), wantTotal)
		}
		for i := range want {
			w, e := want[i], got[i]
			if e.Person.URN != w.Person.URN || e.PostURN != w.PostURN || e.Type != w.Type || !e.CreatedAt.Equal(w.CreatedAt) ||
				e.Text != w.Text || e.Person.FullName != w.Person.FullName || e.Person.Headline != w.Person.Headline {
				t.Fatalf("engager %d: seeded %+v, hydrated %+v", i, e, w)
			}
		}
		rtopic, _ := hydrated.TopicByID(ctx, rt[0].ID)
		stopic, _ := seeded.TopicByID(ctx, st[0].ID)
		if stopic.PostsCount != rtopic.PostsCount || stopic.EngagementsCount != rtopic.EngagementsCount {
			t.Fatalf("seeded counters %d posts, %d engagements; hydrated %d, %d",
				stopic.PostsCount, stopic.EngagementsCount, rtopic.PostsCount, rtopic.EngagementsCount)
		}

		// The scan claims a seeded due post of an active topic, and neither
		// one not due yet nor one whose only topic is gone.
		now := topicBenchBase.Add(48 * time.Hour)
		schedule := func(n int, due time.Time) seed.Post {
			return seed.Post{Post: data.Post(n), LinkedAt: topicBenchBase, Interval: topic.Rediscovery,
				HydratedAt: topicBenchBase, Stage: topic.Day3, DueAt: due}
		}
		if _, err := seed.TopicPosts(ctx, seeded, st[0].ID,
			[]seed.Post{schedule(10, now.Add(-time.Minute)), schedule(11, now.Add(time.Minute))}); err != nil {
			t.Fatal(err)
		}
		if _, err := seed.TopicPosts(ctx, seeded, st[1].ID, []seed.Post{schedule(12, now.Add(-time.Hour))}); err != nil {
			t.Fatal(err)
		}
		if err := seeded.DeleteTopic(ctx, st[1].AccountID, st[1].ID); err != nil {
			t.Fatal(err)
		}
		urns, err := seeded.ClaimDuePosts(ctx, now, time.Minute, claimLimit)
		if err != nil || len(urns) != 1 || urns[0] != seed.PostURN(10) {
			t.Fatalf("claimed %v, %v; want only %s", urns, err, seed.PostURN(10))
		}
	})
}

package store_test

import (
	"context"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestEngagementBillsAndOutboxMigration: migrations 00018 and 00019 fold an
// account's engagement bills and its engagement events into the topics'
// links. The credits summaries stay what the bills made them, and exactly
// the events not yet processed wait for the dispatcher.
func TestEngagementBillsAndOutboxMigration(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			clk := clock.NewFake(topicBenchBase)
			s, _ := storeAt(t, engine, 17, clk.Now)
			// CreateTopic writes today's columns: lend it the one a later
			// migration (00027) adds, for as long as it writes.
			if _, err := s.DB().ExecContext(ctx, `ALTER TABLE topics ADD COLUMN lease_owner TEXT`); err != nil {
				t.Fatal(err)
			}
			a, topics := topicBenchTopics(t, s, 2)
			if _, err := s.DB().ExecContext(ctx, `ALTER TABLE topics DROP COLUMN lease_owner`); err != nil {
				t.Fatal(err)
			}
			first, second := topics[0], topics[1]
			data := seed.NewTopicData(topicBenchBase.Add(-48 * time.Hour))
			post := data.Post(0)
			for _, tp := range topics {
				if _, err := seed.TopicPosts(ctx, s, tp.ID, []seed.Post{{Post: post, LinkedAt: topicBenchBase, Interval: topic.Initial}}); err != nil {
					t.Fatal(err)
				}
			}
			// Both topics link engagement 0 (the first an hour before the
			// second), each one more of its own.
			like := func(n int) seed.Engagement {
				return seed.Engagement{PostURN: post.URN, Person: data.Person(n), Type: "like", At: topicBenchBase, Interval: topic.Initial}
			}
			t1, t2 := topicBenchBase.Add(time.Hour), topicBenchBase.Add(2*time.Hour)
			if _, err := seed.TopicEngagements(ctx, s, first.ID, t1, []seed.Engagement{like(0), like(1)}); err != nil {
				t.Fatal(err)
			}
			if _, err := seed.TopicEngagements(ctx, s, second.ID, t2, []seed.Engagement{like(2)}); err != nil {
				t.Fatal(err)
			}
			id := map[int]string{}
			for n := range 3 {
				var e string
				if err := s.DB().QueryRowContext(ctx, `SELECT CAST(id AS TEXT) FROM pronet_engagements WHERE person_urn = $1`,
					data.Person(n).URN).Scan(&e); err != nil {
					t.Fatal(err)
				}
				id[n] = e
			}
			// (The seed stores an engagement once: the second link by hand.)
			if _, err := s.DB().ExecContext(ctx,
				`INSERT INTO topic_engagements (topic_id, engagement_id, post_urn, person_urn, created_at) VALUES ($1, $2, $3, $4, $5)`,
				second.ID, id[0], post.URN, data.Person(0).URN, t2.UnixMilli()); err != nil {
				t.Fatal(err)
			}
			// The bills and events the code before migration 00018 wrote:
			// one bill per engagement, at its first link; one event per
			// link, two of them processed.
			ms := func(at time.Time) int64 { return at.UnixMilli() }
			for _, b := range []struct {
				n  int
				at time.Time
			}{{0, t1}, {1, t1}, {2, t2}} {
				if _, err := s.DB().ExecContext(ctx, `INSERT INTO topic_billing (account_id, kind, subject_id, charged_at) VALUES ($1, 'engagement', $2, $3)`,
					a.ID, id[b.n], ms(b.at)); err != nil {
					t.Fatal(err)
				}
			}
			for _, ev := range []struct {
				topic     string
				n         int
				at        time.Time
				processed bool
			}{{first.ID, 0, t1, true}, {first.ID, 1, t1, false}, {second.ID, 0, t2, false}, {second.ID, 2, t2, true}} {
				var processed any
				if ev.processed {
					processed = ms(ev.at)
				}
				if _, err := s.DB().ExecContext(ctx,
					`INSERT INTO engagement_events (id, account_id, topic_id, engagement_id, created_at, processed_at) VALUES ($1, $2, $3, $4, $5, $6)`,
					ident.New(), a.ID, ev.topic, id[ev.n], ms(ev.at), processed); err != nil {
					t.Fatal(err)
				}
			}

			if err := s.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			var bills int
			if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM topic_billing WHERE kind = 'engagement'`).Scan(&bills); err != nil || bills != 0 {
				t.Errorf("engagement bill rows after the migration: %d, %v; want none", bills, err)
			}
			pending := map[string]bool{}
			rows, err := s.DB().QueryContext(ctx, `SELECT CAST(topic_id AS TEXT), CAST(engagement_id AS TEXT) FROM topic_engagements WHERE pending = 1`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var tp, e string
				if err := rows.Scan(&tp, &e); err != nil {
					t.Fatal(err)
				}
				pending[tp+" "+e] = true
			}
			rows.Close()
			if len(pending) != 2 || !pending[first.ID+" "+id[1]] || !pending[second.ID+" "+id[0]] {
				t.Errorf("pending links %v; want the two unprocessed events' (%s %s, %s %s)", pending, first.ID, id[1], second.ID, id[0])
			}

			// The shared engagement counts half to each topic, charged at its
			// first link; a period after that leaves it out.
			for _, c := range []struct {
				name        string
				tp          topic.Topic
				from        time.Time
				credits     float64
				billed      int64
				lastCharged time.Time
			}{
				{"first", first, topicBenchBase, 1.5, 2, t1},
				{"second", second, topicBenchBase, 1.5, 2, t2},
				{"second from t1+1ms", second, t1.Add(time.Millisecond), 1, 1, t2},
			} {
				sum, err := s.TopicCreditsSummary(ctx, c.tp, c.from, t2)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(sum.EngagementCredits-c.credits) > 1e-9 || sum.BilledEngagements != c.billed ||
					sum.LastChargedAt == nil || !sum.LastChargedAt.Equal(c.lastCharged) {
					t.Errorf("%s: summary %+v; want %v engagement credits for %d engagements, last charged %s", c.name, sum, c.credits, c.billed, c.lastCharged)
				}
			}

			// The dispatcher takes the two pending links, and only them.
			if n, err := s.DispatchEngagements(ctx, time.Minute, 10); err != nil || n != 2 {
				t.Errorf("dispatched %d, %v; want the 2 pending links", n, err)
			}
			if n, err := s.DispatchEngagements(ctx, time.Minute, 10); err != nil || n != 0 {
				t.Errorf("dispatched %d again, %v; want none", n, err)
			}
		})
	}
}

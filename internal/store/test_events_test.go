package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestLatestEngagementPayload: a test run's engagement event is the
// topic's newest engagement, in the payload the dispatcher gives it (with
// its topic); none for a topic without engagements or of another account.
func TestLatestEngagementPayload(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			clk := clock.NewFake(topicBenchBase)
			s := storetest.Open(t, engine, clk.Now)
			a, topics := topicBenchTopics(t, s, 2)
			tp, empty := topics[0], topics[1]
			data := seed.NewTopicData(topicBenchBase.Add(-48 * time.Hour))
			post := data.Post(0)
			if _, err := seed.TopicPosts(ctx, s, tp.ID, []seed.Post{{Post: post, LinkedAt: topicBenchBase, Interval: topic.Initial}}); err != nil {
				t.Fatal(err)
			}
			for n, at := range []time.Time{topicBenchBase.Add(time.Hour), topicBenchBase.Add(3 * time.Hour), topicBenchBase.Add(2 * time.Hour)} {
				e := seed.Engagement{PostURN: post.URN, Person: data.Person(n), Type: "comment", Text: "said " + data.Person(n).FullName, At: at, Interval: topic.Initial}
				if _, err := seed.TopicEngagements(ctx, s, tp.ID, at, []seed.Engagement{e}); err != nil {
					t.Fatal(err)
				}
			}
			p, err := s.LatestEngagementPayload(ctx, a.ID, tp.ID)
			if err != nil {
				t.Fatal(err)
			}
			newest := data.Person(1)
			prospect, _ := p["prospect"].(map[string]any)
			eng, _ := p["engagement"].(map[string]any)
			if p["topic_id"] != tp.ID || prospect["pronet_urn"] != newest.URN || eng["text"] != "said "+newest.FullName || p["post"] == nil || p["pronet_post_id"] != post.URN {
				t.Fatalf("payload %v, want %s's engagement", p, newest.FullName)
			}
			for _, c := range []struct{ account, topic string }{{a.ID, empty.ID}, {ident.New(), tp.ID}, {a.ID, "not-an-id"}} {
				if _, err := s.LatestEngagementPayload(ctx, c.account, c.topic); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("account %s, topic %s: %v, want not found", c.account, c.topic, err)
				}
			}
		})
	}
}

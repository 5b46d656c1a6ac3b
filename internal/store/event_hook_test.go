package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestEventHookAfterLinkedEngagements: a hydration that links a new
// engagement to a topic (an outbox event) kicks the event hook once it has
// committed; one that links nothing new does not.
func TestEventHookAfterLinkedEngagements(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		f := newMappingFixture(t, engine)
		kicks := 0
		f.Store.SetEventHook(func() { kicks++ })
		f.Engage(t, fxEngagement{Person: "U11", Post: "P1", Kind: "like", At: mapNow.Add(-time.Minute)})
		if kicks != 1 {
			t.Fatalf("a linked engagement kicked the hook %d times, want 1", kicks)
		}
		again := topic.Hydration{PostURN: fxPostURN("P1"), At: mapNow, Stage: topic.Initial,
			Found:       []topic.Found{{Person: fxEngager("U11"), Type: "like", ReactionType: "LIKE"}},
			Allocations: map[string]int64{f.Account.ID: fxAllocation}}
		if out, err := f.Store.SaveHydration(context.Background(), again); err != nil || out.Linked != 0 {
			t.Fatalf("the same engagement again: %+v, %v", out, err)
		}
		if kicks != 1 {
			t.Fatalf("a hydration that linked nothing kicked the hook (%d kicks)", kicks)
		}
	})
}

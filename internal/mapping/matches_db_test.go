package mapping_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// The keyword matches a process keeps are bounded: past the limit the
// least recently used entries go, never those of the query being answered,
// and the answers stay exact.
func TestKeywordMatchesEvicted(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			f := newMappingFixture(t, engine)
			f.Engine.SetKeywordMatchBudget(1)
			checkOracle(t, f.Store, f.Engine, "one byte kept")
			q := mapping.Query{Keywords: []string{"revops"}, Days: 30, Strength: 1, Page: 1, PageSize: 10}
			if _, total, err := f.Engine.SocialMapping(context.Background(), q, mapNow, noLimit); err != nil || total == 0 {
				t.Fatalf("revops: %d people, %v", total, err)
			}
			if held := f.Engine.KeywordMatchesHeld(); held.Entries != 1 || held.Posts == 0 {
				t.Errorf("%d entries of %d post ids held, want only the last query's one", held.Entries, held.Posts)
			}
		})
	}
}

// The keyword index is asked outside the lock that keeps the matches up to
// date, in a snapshot of its own: what is written between that snapshot
// and the update is decided too.
func TestKeywordMatchesFilledApart(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			writes := 0
			f.Engine.AfterMatchFill(func() {
				if writes++; writes == 1 {
					changeMatchedTexts(ctx, t, f.Store, engine)
				}
			})
			if _, _, err := f.Engine.SocialMapping(ctx, changedQuery, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			if writes != 1 {
				t.Fatalf("the index was asked %d times, want once", writes)
			}
			checkOracle(t, f.Store, f.Engine, "written while the index was asked")
		})
	}
}

// A lookup asks the index about its keywords side by side, each in a
// snapshot of its own taken after the lookup's: what is written after one
// keyword was asked, and seen by the next one's snapshot, is decided for
// the first too.
func TestKeywordMatchesAskedSideBySide(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			var asked []string
			f.Engine.AfterAskAlone(1, func(keyword string) {
				if asked = append(asked, keyword); len(asked) == 1 {
					changeMatchedTexts(ctx, t, f.Store, engine)
				}
			})
			if _, _, err := f.Engine.SocialMapping(ctx, changedQuery, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			if len(asked) != 2 || f.Engine.IndexAsks() != 1 {
				t.Fatalf("asked %q side by side in %d lookups, want both keywords in one", asked, f.Engine.IndexAsks())
			}
			checkOracle(t, f.Store, f.Engine, "written between two keywords' snapshots")
		})
	}
}

// Lookups asking about new keywords at once, more of them than the pool has
// connections, all finish: none holds a connection while it waits for more.
func TestKeywordMatchesAskedSideBySideAtOnce(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			f := newMappingFixture(t, engine)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			errs := make(chan error, 24)
			for i := range cap(errs) {
				go func() {
					q := mapping.Query{Keywords: []string{"revops", fmt.Sprintf("word%da", i), fmt.Sprintf("word%db", i)},
						Days: 30, Strength: 1, Page: 1, PageSize: 10}
					_, _, err := f.Engine.SocialMapping(ctx, q, mapNow, noLimit)
					errs <- err
				}()
			}
			for range cap(errs) {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// On PostgreSQL the processes share what they asked the keyword index: a
// process missing an entry loads another's and decides the posts logged
// since; an entry whose log was pruned past is deleted, or if stored
// anyway, not used. SQLite's processes each ask for themselves.
func TestKeywordMatchesShared(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			q := mapping.Query{Keywords: []string{"revops", "pipeline hygiene"}, Days: 30, Strength: 1, Page: 1, PageSize: 50}
			if _, _, err := f.Engine.SocialMapping(ctx, q, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			// Texts change after the first process asked.
			for post, text := range map[string]string{"P8": "Big news: #RevOps and pipeline hygiene", "P2": "our playbook"} {
				if _, err := f.Store.DB().ExecContext(ctx, setPostText(engine), text, fxPostURN(post)); err != nil {
					t.Fatal(err)
				}
			}
			wantAsks := int64(0)
			if engine == store.SQLite {
				wantAsks = 1
			}
			otherStore := storetest.OpenURL(t, f.URL, f.Now)
			other := mapping.NewEngine(otherStore.MappingPool())
			if _, _, err := other.SocialMapping(ctx, q, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			if got := other.IndexAsks(); got != wantAsks {
				t.Errorf("another process asked the index %d times, want %d", got, wantAsks)
			}
			checkOracle(t, otherStore, other, "loaded from another process")
			if engine != store.Postgres {
				return
			}

			// Pruning the log past the stored entries deletes them.
			fill := `INSERT INTO mapping_posts_log (id) SELECT -1 FROM generate_series(1, 100050)`
			if _, err := f.Store.DB().ExecContext(ctx, fill); err != nil {
				t.Fatal(err)
			}
			awaitRowsPrunable(t, f.Store.DB(), "mapping_posts_log")
			if _, err := f.Store.PruneMappingLog(ctx, f.Engine.KeywordMatchesHeld().Budget); err != nil {
				t.Fatal(err)
			}
			var stored int
			if err := f.Store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM mapping_keyword_matches`).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if stored != 0 {
				t.Errorf("%d entries stored after the log was pruned past them, want none", stored)
			}
			// One stored anyway at a pruned position (no post at all) is
			// not used.
			if _, err := f.Store.DB().ExecContext(ctx, `INSERT INTO mapping_keyword_matches (key, position, ids)
				SELECT key, 1, ''::bytea FROM (VALUES ($1), ($2)) k(key)`, f.Engine.SharedMatchKey("revops", 1), f.Engine.SharedMatchKey("pipeline hygiene", 1)); err != nil {
				t.Fatal(err)
			}
			thirdStore := storetest.OpenURL(t, f.URL, f.Now)
			third := mapping.NewEngine(thirdStore.MappingPool())
			if _, _, err := third.SocialMapping(ctx, q, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			if third.IndexAsks() == 0 {
				t.Error("a process used entries stored at a position the log was pruned past")
			}
			checkOracle(t, thirdStore, third, "stored entries pruned past")
		})
	}
}

// A process warms the matches of its topics' keywords, so that a query
// over them does not ask the index.
func TestWarmKeywordMatches(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			f.Engine.ForgetKeywordMatches()
			if asked, err := f.Engine.WarmKeywordMatches(ctx); err != nil || asked != 3 {
				t.Fatalf("asked about %d keywords, %v; want the topics' 3", asked, err)
			}
			if entries := f.Engine.KeywordMatchesHeld().Entries; entries != 3 {
				t.Errorf("%d entries held, want 3", entries)
			}
			asked := 0
			f.Engine.AfterMatchFill(func() { asked++ })
			q := mapping.Query{Keywords: []string{" RevOps", "pipeline hygiene"}, Days: 30, Strength: 1, Page: 1, PageSize: 10}
			if _, total, err := f.Engine.SocialMapping(ctx, q, mapNow, noLimit); err != nil || total == 0 {
				t.Fatalf("%d people, %v", total, err)
			}
			if asked != 0 {
				t.Errorf("the index was asked %d times over the topics' keywords", asked)
			}
			checkOracle(t, f.Store, f.Engine, "warmed")

			// The next warm-up (each tick of trawl serve) asks only about a
			// topic created since.
			if asked, err := f.Engine.WarmKeywordMatches(ctx); err != nil || asked != 0 {
				t.Fatalf("warmed again: asked about %d keywords, %v; want none", asked, err)
			}
			// Creating a topic wakes the warm-up at once.
			select {
			case <-f.Store.TopicCreated():
			default:
			}
			playbooks := &topic.Topic{AccountID: f.Account.ID, Name: "playbooks", Definition: topic.Definition{Keywords: []string{"revops", "Playbook"},
				TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
			if err := f.Store.CreateTopic(ctx, playbooks, 0); err != nil {
				t.Fatal(err)
			}
			select {
			case <-f.Store.TopicCreated():
			default:
				t.Fatal("creating a topic did not wake the warm-up of its keywords")
			}
			if asked, err := f.Engine.WarmKeywordMatches(ctx); err != nil || asked != 1 {
				t.Fatalf("after a new topic: asked about %d keywords, %v; want its new one", asked, err)
			}
			asked = 0
			q = mapping.Query{Keywords: []string{"playbook"}, Days: 30, Strength: 1, Page: 1, PageSize: 10}
			if _, total, err := f.Engine.SocialMapping(ctx, q, mapNow, noLimit); err != nil || total == 0 {
				t.Fatalf("%d people, %v", total, err)
			}
			if asked != 0 {
				t.Errorf("the index was asked %d times over the new topic's keyword", asked)
			}
		})
	}
}

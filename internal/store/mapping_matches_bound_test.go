package store_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// A thousand distinct hostile queries (ten of the longest keywords a query
// may ask about, words no post has) leave the
// keyword matches within their budget and the heap where it was: each such
// query once grew the process for good, its entries matching nothing and
// so never evicted (issue 33).
func TestKeywordMatchesBoundedUnderHostileQueries(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			const budget = 256 << 10
			f.s.SetKeywordMatchBudget(budget)
			rng := rand.New(rand.NewPCG(33, 33))
			word := func() string {
				b := make([]byte, mapping.MaxKeywordLength)
				for i := range b {
					b[i] = 'a' + byte(rng.IntN(26))
				}
				return string(b)
			}
			ask := func(n int) {
				t.Helper()
				for i := range n {
					q := mapping.Query{Days: 30, Strength: 1, Page: 1, PageSize: 10}
					for range mapping.MaxKeywords {
						q.Keywords = append(q.Keywords, word())
					}
					var err error
					if i%2 == 0 {
						_, _, err = f.s.SocialMapping(ctx, q, mapNow, noLimit)
					} else {
						_, _, err = f.s.DiscoverCreators(ctx, q, mapNow, noLimit)
					}
					if err != nil {
						t.Fatal(err)
					}
					if held := f.s.KeywordMatchesHeld(); held.Bytes > budget || held.Entries == 0 {
						t.Fatalf("after %d queries: %d entries of %d bytes, budget %d", i+1, held.Entries, held.Bytes, budget)
					}
				}
			}
			// Warm: the copies loaded, the buffers and statements made,
			// the matches filled up to their budget.
			ask(100)
			// PostgreSQL asks each new keyword in a snapshot of its own
			// (13 ms a query here): a quarter as many keeps the test short,
			// the cache's code being the same on both engines.
			n := 1000
			if engine == store.Postgres {
				n = 250
			}
			before := heapInUse()
			ask(n)
			after := heapInUse()
			held := f.s.KeywordMatchesHeld()
			t.Logf("heap %d KiB before, %d KiB after; %d entries of %d bytes held", before>>10, after>>10, held.Entries, held.Bytes)
			// Each query makes ten entries of about 800 bytes: kept for
			// good (an unbounded budget), a thousand grew the heap by 8.3
			// MiB. A quarter of that is allowed.
			if growth := int64(after) - int64(before); growth > int64(n)*2<<10 {
				t.Errorf("the heap grew by %d KiB over %d hostile queries", growth>>10, n)
			}
		})
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

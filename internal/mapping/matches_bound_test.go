package mapping_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
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
			f.Engine.SetKeywordMatchBudget(budget)
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
						_, _, err = f.Engine.SocialMapping(ctx, q, mapNow, noLimit)
					} else {
						_, _, err = f.Engine.DiscoverCreators(ctx, q, mapNow, noLimit)
					}
					if err != nil {
						t.Fatal(err)
					}
					if held := f.Engine.KeywordMatchesHeld(); held.Bytes > budget || held.Entries == 0 {
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
			held := f.Engine.KeywordMatchesHeld()
			t.Logf("heap %d KiB before, %d KiB after; %d entries of %d bytes held", before>>10, after>>10, held.Entries, held.Bytes)
			// Each query makes ten entries of about 950 bytes: kept for
			// good (an unbounded budget), a thousand grew the heap by 9.0
			// MiB. About a quarter of that is allowed.
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

// On PostgreSQL the processes share their entries through a table, which
// hostile queries must not grow either: an entry that matched nothing is
// not stored (the index answers it in a probe), and pruning keeps the
// newest entries within a process's budget.
func TestSharedKeywordMatchesBounded(t *testing.T) {
	if !slices.Contains(storetest.Engines(), store.Postgres) {
		t.Skip("PostgreSQL only: set TRAWL_TEST_POSTGRES_URL")
	}
	ctx := context.Background()
	f := newMappingFixture(t, store.Postgres)
	q := mapping.Query{Keywords: []string{"revops", "zzzunmentioned"}, Days: 30, Strength: 1, Page: 1, PageSize: 10}
	if _, _, err := f.Engine.SocialMapping(ctx, q, mapNow, noLimit); err != nil {
		t.Fatal(err)
	}
	stored := func(key string) bool {
		var n int
		if err := f.Store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM mapping_keyword_matches WHERE key = $1`, key).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	if !stored(f.Engine.SharedMatchKey("revops", 1)) {
		t.Error("revops's entry was not shared")
	}
	if stored(f.Engine.SharedMatchKey("zzzunmentioned", 1)) {
		t.Error("an entry that matched nothing was shared")
	}

	// 100 entries of 1,000 bytes each past the real ones; a budget of 20
	// keeps the 20 newest.
	if _, err := f.Store.DB().ExecContext(ctx, `INSERT INTO mapping_keyword_matches (key, position, ids)
		SELECT 'hostile' || i, 1000000000 + i, decode(repeat('01', 1000 - length('hostile' || i)), 'hex') FROM generate_series(1, 100) i`); err != nil {
		t.Fatal(err)
	}
	f.Engine.SetKeywordMatchBudget(20 * 1000)
	if _, err := f.Store.PruneMappingLog(ctx, f.Engine.KeywordMatchesHeld().Budget); err != nil {
		t.Fatal(err)
	}
	var (
		n, bytes int
		oldest   int64
	)
	if err := f.Store.DB().QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(octet_length(key) + octet_length(ids)), 0), COALESCE(MIN(position), 0)
		FROM mapping_keyword_matches`).Scan(&n, &bytes, &oldest); err != nil {
		t.Fatal(err)
	}
	if n != 20 || bytes > 20*1000 || oldest != 1000000000+81 {
		t.Errorf("after pruning: %d entries of %d bytes, the oldest at %d; want the 20 newest", n, bytes, oldest)
	}
}

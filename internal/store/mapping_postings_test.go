package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// On PostgreSQL a process reads the keyword matches it misses from the
// posting lists, not from GIN, once every block is built; posts written
// since (by plain SQL: texts changed, a post stored past the last block,
// one deleted) are decided by their text; blocks whose posts changed are
// built again; a log pruned past the blocks sends lookups back to GIN
// until they are built again. Every answer is the oracle's. SQLite packs
// nothing.
func TestKeywordPostings(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			// Blocks of two post ids: the fixture's 19 posts fill ten, more
			// than one pack builds. A block is built again after two
			// changes.
			f.Store.SetKeywordPostings(2, 2)
			if engine == store.Postgres {
				// The blocks' position is past the fixture's writes
				// (another test's transaction may hold it back).
				awaitRowsPrunable(t, f.Store.DB(), "mapping_posts_log")
			}
			built, err := f.Store.PackKeywordPostings(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if engine == store.SQLite {
				if built != 0 {
					t.Errorf("SQLite built %d blocks, want none", built)
				}
				return
			}
			// Another process, which has asked nothing.
			fresh := func(state string, fromLists bool) {
				t.Helper()
				ps := storetest.OpenURL(t, f.URL, f.Now)
				p := mapping.NewEngine(ps.MappingPool())
				checkOracle(t, ps, p, state)
				if fromLists && (p.IndexAsks() != 0 || p.PostingReads() == 0) {
					t.Errorf("%s: asked the index %d times and read the lists %d times, want only the lists", state, p.IndexAsks(), p.PostingReads())
				}
				if !fromLists && (p.IndexAsks() == 0 || p.PostingReads() != 0) {
					t.Errorf("%s: asked the index %d times and read the lists %d times, want only the index", state, p.IndexAsks(), p.PostingReads())
				}
			}
			if built != 8 {
				t.Fatalf("built %d blocks, want 8 (postingsBlocksPerPack)", built)
			}
			fresh("some blocks built", false)
			if more, err := f.Store.PackKeywordPostings(ctx); err != nil || more != 2 {
				t.Fatalf("built %d more blocks, %v; want 2", more, err)
			}
			held, err := f.Store.KeywordPostingsHeld(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if held.Blocks != 10 || held.Posts != len(fxPosts) || held.Bytes == 0 {
				t.Fatalf("the blocks hold %+v, want 10 holding the %d posts", held, len(fxPosts))
			}
			if err := f.Store.ForgetSharedKeywordMatches(ctx); err != nil {
				t.Fatal(err)
			}
			fresh("read from the posting lists", true)

			// Written behind the writers' back after the blocks were built.
			db := f.Store.DB()
			exec := func(query string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, query, args...); err != nil {
					t.Fatalf("%s: %v", query, err)
				}
			}
			changed := map[int64]bool{} // the blocks of the posts changed
			for _, key := range []string{"P1", "P7", "P8"} {
				var id int64
				if err := db.QueryRowContext(ctx, `SELECT id FROM mapping_posts WHERE urn = $1`, fxPostURN(key)).Scan(&id); err != nil {
					t.Fatal(err)
				}
				changed[id/2] = true
			}
			changeMatchedTexts(ctx, t, f.Store, engine)
			exec(`INSERT INTO pronet_posts (urn, posted_at, record, first_seen_at, first_linked_at) VALUES ($1, $2, $3, $2, $2)`,
				fxPostURN("F9")+"0", mapNow.Add(-time.Hour).UnixMilli(),
				fmt.Sprintf(`{"text": "revops revops revops, pipeline hygiene at scale", "author": {"urn": %q}}`, fxPersonURN("C3")))
			exec(`INSERT INTO pronet_engagements (id, post_urn, person_urn, type, engaged_at, first_seen_at, discovery_interval)
			      VALUES ($1, $2, $3, 'like', $4, $4, 'initial')`, ident.New(), fxPostURN("F9")+"0", fxPersonURN("U4"), mapNow.Add(-time.Hour).UnixMilli())
			for _, del := range []string{`DELETE FROM topic_engagements WHERE post_urn = $1`, `DELETE FROM topic_posts WHERE post_urn = $1`,
				`DELETE FROM pronet_engagements WHERE post_urn = $1`, `DELETE FROM pronet_posts WHERE urn = $1`} {
				exec(del, fxPostURN("P1"))
			}
			fresh("written since the blocks were built", true)

			// Three changes (two texts, a deleted post): a block with two
			// is built again, then the one with the most while more than
			// two are left, and the new post's block; the other changed
			// blocks keep their position, the rest move on.
			positions := func() map[int64]int64 {
				t.Helper()
				rows, err := db.QueryContext(ctx, `SELECT block, position FROM mapping_posting_blocks`)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				out := map[int64]int64{}
				for rows.Next() {
					var block, pos int64
					if err := rows.Scan(&block, &pos); err != nil {
						t.Fatal(err)
					}
					out[block] = pos
				}
				return out
			}
			before := positions()
			// The plan's position is past the changes (another test's
			// transaction may hold it back).
			awaitRowsPrunable(t, db, "mapping_posts_log")
			if built, err = f.Store.PackKeywordPostings(ctx); err != nil || built != 2 {
				t.Errorf("built %d blocks again, %v; want 2", built, err)
			}
			var kept []int64
			after := positions()
			for block, pos := range after {
				if pos == before[block] {
					kept = append(kept, block)
				}
			}
			slices.Sort(kept)
			if len(after) != len(before)+1 || len(kept) == 0 || slices.ContainsFunc(kept, func(b int64) bool { return !changed[b] }) {
				t.Errorf("blocks %v of %d kept their position, want some of those changed (%v) of %d", kept, len(after), changed, len(before)+1)
			}
			fresh("blocks built again", true)

			// Pruning past every block: the index answers until they are
			// built again, all of them.
			exec(`INSERT INTO mapping_posts_log (id) SELECT -1 FROM generate_series(1, 100050)`)
			awaitRowsPrunable(t, db, "mapping_posts_log")
			if _, err := f.Store.PruneMappingLog(ctx, f.Engine.KeywordMatchesHeld().Budget); err != nil {
				t.Fatal(err)
			}
			fresh("log pruned past the blocks", false)
			if held, err = f.Store.KeywordPostingsHeld(ctx); err != nil {
				t.Fatal(err)
			}
			for built = 0; ; {
				n, err := f.Store.PackKeywordPostings(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
				built += n
			}
			if built != held.Blocks {
				t.Errorf("built %d blocks after pruning, want all %d", built, held.Blocks)
			}
			if err := f.Store.ForgetSharedKeywordMatches(ctx); err != nil {
				t.Fatal(err)
			}
			fresh("built again after pruning", true)
		})
	}
}

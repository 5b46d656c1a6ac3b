package mapping_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// Social mapping answers from this process's copies of the folded people
// and of the packed engagements. Each copy follows every change of its
// table, including changes whose log rows pruning deleted before the copy
// saw them.
func TestMappingCopiesAcrossPruning(t *testing.T) {
	type copied struct {
		name, log string
		// change makes the n-th change (1, 2) and returns the SQL that
		// counts its rows in the log.
		change func(t *testing.T, f *mappingFixture, n int) (logged string, args []any)
	}
	cases := []copied{{
		name: "folded people", log: "mapping_people_log",
		change: func(t *testing.T, f *mappingFixture, n int) (string, []any) {
			set := `company_size = '10001+', country = 'DE', followers = 5`
			if n == 2 {
				set = `company_size = '51-200', country = 'US', job_title = 'VP RevOps'`
			}
			if _, err := f.Store.DB().ExecContext(context.Background(), `UPDATE pronet_people SET `+set+` WHERE urn = $1`, fxPersonURN("U2")); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Store.PrecomputeMapping(context.Background()); err != nil { // folds U2 again
				t.Fatal(err)
			}
			return `SELECT COUNT(*) FROM mapping_people_log l JOIN pronet_people p ON p.id = l.id WHERE p.urn = $1`, []any{fxPersonURN("U2")}
		},
	}, {
		name: "packed engagements", log: "mapping_engagers_log",
		change: func(t *testing.T, f *mappingFixture, n int) (string, []any) {
			e := fxEngagement{Person: "U4", Post: "P3", Kind: "like", At: mapNow.Add(-15 * time.Minute)}
			if n == 2 {
				e = fxEngagement{Person: "U7", Post: "P5", Kind: "comment", At: mapNow.Add(-3 * time.Minute)}
			}
			f.Engage(t, e) // the hydration packs the post's list again
			return `SELECT COUNT(*) FROM mapping_engagers_log l JOIN mapping_posts m ON m.id = l.id WHERE m.urn = $1`, []any{fxPostURN(e.Post)}
		},
	}, {
		name: "post authors", log: "mapping_posts_log",
		change: func(t *testing.T, f *mappingFixture, n int) (string, []any) {
			// An author's person id changes: the copy must find their
			// posts' author again.
			author := fxPersonURN("C1")
			if n == 2 {
				author = fxPersonURN("C2")
			}
			if _, err := f.Store.DB().ExecContext(context.Background(), `UPDATE pronet_people SET id = id + 1000 WHERE urn = $1`, author); err != nil {
				t.Fatal(err)
			}
			return `SELECT COUNT(*) FROM mapping_posts_log l JOIN mapping_posts m ON m.id = l.id WHERE m.author_urn = $1`, []any{author}
		},
	}, {
		name: "keyword matches", log: "mapping_posts_log",
		change: func(t *testing.T, f *mappingFixture, n int) (string, []any) {
			// Posts' text changes: the entries must decide them again.
			texts := map[string]string{"P7": "nothing to see"}
			if n == 2 {
				texts = map[string]string{"P8": "RevOps, #revops and sales ops: revops", "P1": "cold email only"}
			}
			var urns []any
			for post, text := range texts {
				if _, err := f.Store.DB().ExecContext(context.Background(), setPostText(f.Store.Dialect()), text, fxPostURN(post)); err != nil {
					t.Fatal(err)
				}
				urns = append(urns, fxPostURN(post))
			}
			return `SELECT COUNT(*) FROM mapping_posts_log l JOIN mapping_posts m ON m.id = l.id WHERE m.urn = $1`, urns[:1]
		},
	}}
	for _, engine := range storetest.Engines() {
		for _, c := range cases {
			t.Run(string(engine)+"/"+c.name, func(t *testing.T) {
				ctx := context.Background()
				f := newMappingFixture(t, engine)
				db := f.Store.DB()
				checkOracle(t, f.Store, f.Engine, "collected") // the copies are loaded

				// A change; pruning then deletes its log rows (and more),
				// as if this process had been idle through 100,000 writes.
				logged, args := c.change(t, f, 1)
				fill := `INSERT INTO ` + c.log + ` (id) SELECT -1 FROM generate_series(1, 100050)`
				if engine == store.SQLite {
					fill = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100050)
					        INSERT INTO ` + c.log + ` (id) SELECT -1 FROM n`
				}
				if _, err := db.ExecContext(ctx, fill); err != nil {
					t.Fatal(err)
				}
				if engine == store.Postgres {
					awaitRowsPrunable(t, db, c.log)
				}
				pruned, err := f.Store.PruneMappingLog(ctx, f.Engine.KeywordMatchesHeld().Budget)
				if err != nil {
					t.Fatal(err)
				}
				var left, stillLogged int
				if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+c.log).Scan(&left); err != nil {
					t.Fatal(err)
				}
				if pruned == 0 || left != 100_000 {
					t.Fatalf("pruned %d rows, %d left; want the newest 100000 kept", pruned, left)
				}
				if err := db.QueryRowContext(ctx, logged, args...).Scan(&stillLogged); err != nil {
					t.Fatal(err)
				}
				if stillLogged != 0 {
					t.Fatalf("the change is still logged (%d rows): the test would not test reading the table again", stillLogged)
				}
				checkOracle(t, f.Store, f.Engine, "changed, log pruned")

				// And again incrementally, after the copy caught up.
				c.change(t, f, 2)
				checkOracle(t, f.Store, f.Engine, "changed again")
				if again, err := f.Store.PruneMappingLog(ctx, f.Engine.KeywordMatchesHeld().Budget); err != nil || again != 2 {
					t.Errorf("pruned %d rows, %v; want the 2 over the kept number (the row unset, set again)", again, err)
				}
			})
		}
	}
}

// Creator discovery's copy of the posts' authors is not told of a person
// stored after their posts (hydration would pay a lookup per person): it
// marks posts whose author was no person, and each query looks those up.
func TestCreatorStoredAfterTheirPosts(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			checkOracle(t, f.Store, f.Engine, "collected") // the copies are loaded
			// P9's author, a company page, is stored as a person by plain SQL.
			insert := `INSERT INTO pronet_people (urn, full_name, first_seen_at) VALUES ($1, 'Acme', 0)`
			if engine == store.SQLite {
				insert = `INSERT INTO pronet_people (id, urn, full_name, first_seen_at) VALUES ((SELECT MAX(id) + 1 FROM pronet_people), $1, 'Acme', 0)`
			}
			if _, err := f.Store.DB().ExecContext(ctx, insert, "urn:li:company:42"); err != nil {
				t.Fatal(err)
			}
			checkOracle(t, f.Store, f.Engine, "author stored after the post")
			q := mapping.Query{Keywords: []string{"revops"}, Days: 7, Strength: 1, Page: 1, PageSize: 50}
			cs, _, err := f.Engine.DiscoverCreators(ctx, q, mapNow, noLimit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(cs, func(c mapping.Creator) bool { return c.Person.URN == "urn:li:company:42" }) {
				t.Errorf("creators %v: the author stored after their post is missing", creatorKeys(cs))
			}
		})
	}
}

// TestMappingIndexNeverStale: whatever writes the pool, and whether the
// precomputation is there, missing or rebuilt, social mapping and creator
// discovery answer exactly what a brute-force reading of the pool tables
// answers. Writes by plain SQL (no indexer called) stand for any writer
// that does not know about the precomputation.
func TestMappingIndexNeverStale(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			db := f.Store.DB()
			exec := func(query string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, query, args...); err != nil {
					t.Fatalf("%s: %v", query, err)
				}
			}
			setText := setPostText(engine)
			setReactions := `UPDATE pronet_posts SET record = json_set(record, '$.totalReactionCount', $1) WHERE urn = $2`
			if engine == store.Postgres {
				setReactions = `UPDATE pronet_posts SET record = jsonb_set(record, '{totalReactionCount}', to_jsonb($1::bigint)) WHERE urn = $2`
			}
			checkOracle(t, f.Store, f.Engine, "collected")

			// A post's text changes: P7 no longer mentions revops, P8 now
			// does twice, with a long word and a phrase twice.
			exec(setText, "nothing to see", fxPostURN("P7"))
			exec(setReactions, 77, fxPostURN("P2"))
			exec(setText, "RevOps and #revops: pipeline hygiene, pipeline hygiene "+strings.Repeat("x", 300), fxPostURN("P8"))
			// Engagements written without packing: on P8 (which had none),
			// on P1, and one moved out of the window and one into it.
			for i, e := range []struct{ person, post, kind string }{{"U3", "P8", "comment"}, {"U7", "P8", "like"}, {"U10", "P1", "like"}} {
				exec(`INSERT INTO pronet_engagements (id, post_urn, person_urn, type, engaged_at, first_seen_at, discovery_interval)
				      VALUES ($1, $2, $3, $4, $5, $5, 'initial')`, ident.New(), fxPostURN(e.post), fxPersonURN(e.person), e.kind,
					mapNow.Add(-time.Duration(i+1)*time.Minute).UnixMilli())
			}
			exec(`UPDATE pronet_engagements SET engaged_at = $1 WHERE person_urn = $2 AND post_urn = $3`,
				mapNow.Add(-20*day).UnixMilli(), fxPersonURN("U2"), fxPostURN("P4"))
			exec(`UPDATE pronet_engagements SET engaged_at = $1 WHERE person_urn = $2 AND post_urn = $3`,
				mapNow.Add(-time.Second).UnixMilli(), fxPersonURN("U5"), fxPostURN("P1"))
			// Profiles change behind the folded columns' back, one to
			// non-ASCII values.
			exec(`UPDATE pronet_people SET job_title = 'Geschäftsführer Vertrieb', industry = 'ÄRZTE', company_domain = 'MÜNCHEN.example.de',
			      country = 'de' WHERE urn = $1`, fxPersonURN("U1"))
			exec(`UPDATE pronet_people SET followers = 999999, company_size = '10001+' WHERE urn = $1`, fxPersonURN("U7"))
			exec(`UPDATE pronet_people SET job_title = '' WHERE urn = $1`, fxPersonURN("U6"))
			// C4's profile shows no title: the headline stands in.
			exec(`UPDATE pronet_people SET headline = 'Head of Sales, Revenue Team' WHERE urn = $1`, fxPersonURN("C4"))
			// A post stored without its index, with engagements.
			exec(`INSERT INTO pronet_posts (urn, posted_at, record, first_seen_at, first_linked_at) VALUES ($1, $2, $3, $2, $2)`,
				fxPostURN("F9")+"0", mapNow.Add(-time.Hour).UnixMilli(),
				fmt.Sprintf(`{"text": "revops revops revops at scale", "author": {"urn": %q}}`, fxPersonURN("C3")))
			exec(`INSERT INTO pronet_engagements (id, post_urn, person_urn, type, engaged_at, first_seen_at, discovery_interval)
			      VALUES ($1, $2, $3, 'like', $4, $4, 'initial')`, ident.New(), fxPostURN("F9")+"0", fxPersonURN("U4"), mapNow.Add(-time.Hour).UnixMilli())
			checkOracle(t, f.Store, f.Engine, "written by SQL")

			done, err := f.Store.PrecomputeMapping(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The people: the four changed and U8, whose profile was never read.
			if done.Posts != 3 || done.Packed == 0 || done.People != 5 {
				t.Errorf("precomputed %+v, want 3 posts, some packed lists, 5 people", done)
			}
			checkOracle(t, f.Store, f.Engine, "precomputed again")

			// Everything precomputed is gone; then rebuilt.
			exec(`DELETE FROM mapping_engagers`)
			exec(`DELETE FROM mapping_people`)
			if engine == store.Postgres {
				exec(`UPDATE mapping_posts SET pending = TRUE, terms = NULL`)
			} else {
				exec(`INSERT INTO mapping_terms (mapping_terms) VALUES ('delete-all')`)
				exec(`UPDATE mapping_posts SET pending = 1`)
			}
			checkOracle(t, f.Store, f.Engine, "nothing precomputed")
			// Keyword matches asked afresh: every post is read by its text.
			f.Engine.ForgetKeywordMatches()
			checkOracle(t, f.Store, f.Engine, "nothing precomputed, matches asked afresh")
			if done, err = f.Store.PrecomputeMapping(ctx); err != nil {
				t.Fatal(err)
			}
			if done.Posts != len(fxPosts)+1 {
				t.Errorf("indexed %d posts, want %d", done.Posts, len(fxPosts)+1)
			}
			checkOracle(t, f.Store, f.Engine, "rebuilt")
			if again, err := f.Store.PrecomputeMapping(ctx); err != nil || again != (store.MappingPrecomputed{}) {
				t.Errorf("precomputed again: %+v, %v; want nothing", again, err)
			}
		})
	}
}

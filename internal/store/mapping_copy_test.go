package store_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

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
			if _, err := f.s.DB().ExecContext(context.Background(), `UPDATE pronet_people SET `+set+` WHERE urn = $1`, fxPersonURN("U2")); err != nil {
				t.Fatal(err)
			}
			if _, err := f.s.PrecomputeMapping(context.Background()); err != nil { // folds U2 again
				t.Fatal(err)
			}
			return `SELECT COUNT(*) FROM mapping_people_log l JOIN pronet_people p ON p.id = l.id WHERE p.urn = $1`, []any{fxPersonURN("U2")}
		},
	}, {
		name: "packed engagements", log: "mapping_engagers_log",
		change: func(t *testing.T, f *mappingFixture, n int) (string, []any) {
			e := fxEngagement{"U4", "P3", "like", mapNow.Add(-15 * time.Minute)}
			if n == 2 {
				e = fxEngagement{"U7", "P5", "comment", mapNow.Add(-3 * time.Minute)}
			}
			f.engage(t, e) // the hydration packs the post's list again
			return `SELECT COUNT(*) FROM mapping_engagers_log l JOIN mapping_posts m ON m.id = l.id WHERE m.urn = $1`, []any{fxPostURN(e.post)}
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
			if _, err := f.s.DB().ExecContext(context.Background(), `UPDATE pronet_people SET id = id + 1000 WHERE urn = $1`, author); err != nil {
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
				if _, err := f.s.DB().ExecContext(context.Background(), setPostText(f.s.Dialect()), text, fxPostURN(post)); err != nil {
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
				db := f.s.DB()
				checkOracle(t, f.s, "collected") // the copies are loaded

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
				pruned, err := f.s.PruneMappingLog(ctx)
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
				checkOracle(t, f.s, "changed, log pruned")

				// And again incrementally, after the copy caught up.
				c.change(t, f, 2)
				checkOracle(t, f.s, "changed again")
				if again, err := f.s.PruneMappingLog(ctx); err != nil || again != 2 {
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
			checkOracle(t, f.s, "collected") // the copies are loaded
			// P9's author, a company page, is stored as a person by plain SQL.
			insert := `INSERT INTO pronet_people (urn, full_name, first_seen_at) VALUES ($1, 'Acme', 0)`
			if engine == store.SQLite {
				insert = `INSERT INTO pronet_people (id, urn, full_name, first_seen_at) VALUES ((SELECT MAX(id) + 1 FROM pronet_people), $1, 'Acme', 0)`
			}
			if _, err := f.s.DB().ExecContext(ctx, insert, "urn:li:company:42"); err != nil {
				t.Fatal(err)
			}
			checkOracle(t, f.s, "author stored after the post")
			q := mapping.Query{Keywords: []string{"revops"}, Days: 7, Strength: 1, Page: 1, PageSize: 50}
			cs, _, err := f.s.DiscoverCreators(ctx, q, mapNow, noLimit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(cs, func(c store.Creator) bool { return c.Person.URN == "urn:li:company:42" }) {
				t.Errorf("creators %v: the author stored after their post is missing", creatorKeys(cs))
			}
		})
	}
}

// awaitRowsPrunable waits until every transaction that wrote the log has
// ended before every running one began: PostgreSQL's pruning spares rows of
// newer transactions (those a running snapshot may not have seen), and other
// tests, or anything else using the database, may have one running.
func awaitRowsPrunable(t *testing.T, db *sql.DB, log string) {
	t.Helper()
	for range 1000 {
		var prunable bool
		if err := db.QueryRow(`SELECT pg_snapshot_xmin(pg_current_snapshot()) > (SELECT MAX(xid) FROM ` + log + `)`).
			Scan(&prunable); err != nil {
			t.Fatal(err)
		}
		if prunable {
			return
		}
		time.Sleep(10 * time.Millisecond) // another process's transaction, not the service's clock
	}
	t.Fatalf("%s: a transaction older than the log's rows is still running", log)
}

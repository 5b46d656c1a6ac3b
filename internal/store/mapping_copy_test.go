package store_test

import (
	"context"
	"testing"
	"time"

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

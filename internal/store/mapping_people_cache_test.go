package store_test

import (
	"context"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// Social mapping filters on this process's copy of the folded people. The
// copy follows every profile change, including changes whose log rows
// pruning deleted before the copy saw them.
func TestFoldedPeopleCopyAcrossPruning(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			db := f.s.DB()
			exec := func(query string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, query, args...); err != nil {
					t.Fatalf("%s: %v", query, err)
				}
			}
			checkOracle(t, f.s, "collected") // the copy is loaded

			// A profile changes; pruning then deletes its log row (and
			// more), as if this process had been idle through 100,000
			// profile reads.
			exec(`UPDATE pronet_people SET company_size = '10001+', country = 'DE', followers = 5 WHERE urn = $1`, fxPersonURN("U2"))
			if _, err := f.s.PrecomputeMapping(ctx); err != nil { // folds U2 again
				t.Fatal(err)
			}
			fill := `INSERT INTO mapping_people_log (id) SELECT -1 FROM generate_series(1, 100050)`
			if engine == store.SQLite {
				fill = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100050)
				        INSERT INTO mapping_people_log (id) SELECT -1 FROM n`
			}
			exec(fill)
			pruned, err := f.s.PruneMappingLog(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var left int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM mapping_people_log`).Scan(&left); err != nil {
				t.Fatal(err)
			}
			if pruned == 0 || left != 100_000 {
				t.Fatalf("pruned %d rows, %d left; want the newest 100000 kept", pruned, left)
			}
			var u2 int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM mapping_people_log l JOIN pronet_people p ON p.id = l.id
			                                    WHERE p.urn = $1`, fxPersonURN("U2")).Scan(&u2); err != nil {
				t.Fatal(err)
			}
			if u2 != 0 {
				t.Fatalf("U2's change is still logged (%d rows): the test would not test reading the table again", u2)
			}
			checkOracle(t, f.s, "changed, log pruned")

			// And again incrementally, after the copy caught up.
			exec(`UPDATE pronet_people SET company_size = '51-200', country = 'US', job_title = 'VP RevOps' WHERE urn = $1`, fxPersonURN("U2"))
			if _, err := f.s.PrecomputeMapping(ctx); err != nil {
				t.Fatal(err)
			}
			checkOracle(t, f.s, "changed again")
			if again, err := f.s.PruneMappingLog(ctx); err != nil || again != 2 {
				t.Errorf("pruned %d rows, %v; want the 2 over the kept number (U2 unfolded, folded)", again, err)
			}
		})
	}
}

package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// TestBatchInsert writes row counts around the chunk sizes twice: every row
// is written and returned once, and on SQLite the second round runs on
// statements prepared after the first.
func TestBatchInsert(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s := storetest.Open(t, engine, nil)
			if _, err := s.DB().ExecContext(ctx, `CREATE TABLE batch_rows (round INTEGER NOT NULL, n INTEGER NOT NULL, i INTEGER NOT NULL, label TEXT NOT NULL, PRIMARY KEY (round, n, i))`); err != nil {
				t.Fatal(err)
			}
			counts := []int{1, 3, 255, 256, 257, 600}
			for round := range 2 {
				for _, n := range counts {
					var returned []int
					err := s.BatchInsert(ctx, `INSERT INTO batch_rows (round, n, i, label) VALUES `, `RETURNING i`, 4, n,
						func(i int) []any { return []any{round, n, i, fmt.Sprint("row ", i)} },
						func(rows *sql.Rows) error {
							var i int
							returned = append(returned, i)
							return rows.Scan(&returned[len(returned)-1])
						})
					if err != nil {
						t.Fatalf("round %d, %d rows: %v", round, n, err)
					}
					if len(returned) != n {
						t.Fatalf("round %d, %d rows: %d returned", round, n, len(returned))
					}
					var count, sum int
					var labels int
					if err := s.DB().QueryRowContext(ctx,
						`SELECT COUNT(*), COALESCE(SUM(i), 0), COUNT(DISTINCT label) FROM batch_rows WHERE round = $1 AND n = $2`, round, n).
						Scan(&count, &sum, &labels); err != nil {
						t.Fatal(err)
					}
					if count != n || sum != n*(n-1)/2 || labels != n {
						t.Fatalf("round %d, %d rows: stored %d rows (sum of i %d, %d labels)", round, n, count, sum, labels)
					}
				}
			}
			if engine == store.SQLite && s.PreparedBatches() == 0 {
				t.Fatal("no statement was kept prepared")
			}
		})
	}
}

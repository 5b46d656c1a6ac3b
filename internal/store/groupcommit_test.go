package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestGroupCommitIsolatesFailures: writes folded into one transaction
// each commit or fail on their own. One caller's error reaches that caller
// alone and leaves nothing of its write; every other write commits once.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "g.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE g (n INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	const writers, failing = 200, 13
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			errs[i] = s.inGroupTx(ctx, func(tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO g (n) VALUES ($1)`, i); err != nil {
					return err
				}
				if i%failing == 0 {
					return fmt.Errorf("writer %d refuses", i)
				}
				return nil
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (i%failing == 0) != (err != nil) {
			t.Errorf("writer %d: error %v", i, err)
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT n FROM g`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[int]bool{}
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n%failing == 0 || seen[n] {
			t.Errorf("row %d stored (failing or twice)", n)
		}
		seen[n] = true
	}
	if want := writers - (writers+failing-1)/failing; len(seen) != want {
		t.Errorf("%d rows stored, want %d", len(seen), want)
	}
	if s.group.leading || len(s.group.queue) > 0 {
		t.Errorf("group left leading=%v with %d queued", s.group.leading, len(s.group.queue))
	}
	if !errors.Is(rows.Err(), nil) {
		t.Fatal(rows.Err())
	}
}

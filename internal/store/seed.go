package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
)

// SeedResults bulk-loads items as results of a search, for benchmarks and
// load tests that need millions of stored results in little time (see
// bench/resultspage). Collection never calls it: unlike SaveRun it writes no
// outbox events and leaves the schedule and watermark alone. Post ids
// already stored are skipped; the new ones are added to the search's
// total_results, which is returned. Items without a collection time get at.
func (s *Store) SeedResults(ctx context.Context, searchID string, at time.Time, items []source.Item) (int64, error) {
	var total int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		inserted, err := insertResults(ctx, tx, s.dialect, search.Run{SearchID: searchID, At: at, Items: items})
		if err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx,
			`UPDATE searches SET total_results = total_results + $2 WHERE id = $1 RETURNING total_results`,
			searchID, len(inserted)).Scan(&total)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: seed results of %s: %w", searchID, err)
	}
	return total, nil
}

// ResultCursorAfter returns the cursor Results hands out after the first n
// (n >= 1) results of the search, newest first, without reading the n
// results: a benchmark's quick way to a deep page. ErrNotFound when the
// search has fewer than n results.
func (s *Store) ResultCursorAfter(ctx context.Context, searchID string, n int) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("store: cursor after %d results: want at least 1", n)
	}
	var (
		at int64
		id string
	)
	err := s.read.QueryRowContext(ctx,
		`SELECT published_at, post_id FROM search_results WHERE search_id = $1
		  ORDER BY published_at DESC, post_id DESC LIMIT 1 OFFSET $2`, searchID, n-1).Scan(&at, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: cursor after %d results of %s: %w", n, searchID, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: cursor after %d results of %s: %w", n, searchID, err)
	}
	return encodeCursor(at, id), nil
}

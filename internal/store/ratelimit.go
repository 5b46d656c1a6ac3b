package store

import (
	"context"
	"fmt"
	"time"
)

// HitRateLimit counts one request of a key in the fixed window starting at
// windowStart and returns the window's count including this request. The
// counter lives in the database so that every process of a deployment
// shares it.
func (s *Store) HitRateLimit(ctx context.Context, keyID string, windowStart time.Time) (int64, error) {
	var hits int64
	err := s.db.QueryRowContext(ctx,
		`INSERT INTO rate_windows (key_id, window_start, hits) VALUES ($1, $2, 1)
		 ON CONFLICT (key_id, window_start) DO UPDATE SET hits = rate_windows.hits + 1
		 RETURNING hits`,
		keyID, ms(windowStart)).Scan(&hits)
	if err != nil {
		return 0, fmt.Errorf("store: rate limit: %w", err)
	}
	return hits, nil
}

// PruneRateWindows deletes windows that started before cutoff.
func (s *Store) PruneRateWindows(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM rate_windows WHERE window_start < $1`, ms(cutoff))
	if err != nil {
		return 0, fmt.Errorf("store: prune rate windows: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/search"
)

// SeedSearch stores a paused search that is never due, for benchmarks and
// tests that fill it with SeedResults while a server runs (bench/csvexport,
// the results export tests): nothing collects into it, so its results are
// exactly the seeded ones. Its kind may be any platform's. It charges
// nothing.
func (s *Store) SeedSearch(ctx context.Context, sr *search.Search) error {
	def, err := json.Marshal(sr.Definition)
	if err != nil {
		return fmt.Errorf("store: seed search: %w", err)
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	sr.ID, sr.Status, sr.CreatedAt, sr.UpdatedAt, sr.NextRunAt = ident.New(), search.StatusPaused, now, now, nil
	if _, err := s.db.ExecContext(ctx,
		`INSERT INTO searches (id, account_id, name, kind, status, definition, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
		sr.ID, sr.AccountID, sr.Name, string(sr.Kind), string(sr.Status), string(def), ms(now)); err != nil {
		return fmt.Errorf("store: seed search: %w", err)
	}
	return nil
}

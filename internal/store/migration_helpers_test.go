package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// storeAt opens a fresh database of engine migrated up to version only, for a test of a later
// migration over rows stored before it; it returns the store and the database's URL (to open it
// again, migrated to the end).
func storeAt(t *testing.T, engine store.Dialect, version int64, now func() time.Time) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	url := storetest.DatabaseURL(t, engine)
	s, err := store.Open(ctx, url, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.MigrateUpTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	return s, url
}

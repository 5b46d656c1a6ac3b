// Package storetest gives tests a fresh, migrated database on every engine
// under test: SQLite always, PostgreSQL when TRAWL_TEST_POSTGRES_URL is set.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver for schema set-up

	"github.com/trawlhq/trawl/internal/store"
)

// PostgresEnv names the variable that enables the PostgreSQL runs.
const PostgresEnv = "TRAWL_TEST_POSTGRES_URL"

// SQLiteSynchronousEnv, when set (normal or full), is the synchronous
// parameter of the SQLite databases made here, so that a benchmark can be
// run under both and compared; unset, they run on the store's default.
const SQLiteSynchronousEnv = "TRAWL_TEST_SQLITE_SYNCHRONOUS"

// Engines lists the engines the suite runs on here.
func Engines() []store.Dialect {
	if os.Getenv(PostgresEnv) != "" {
		return []store.Dialect{store.SQLite, store.Postgres}
	}
	return []store.Dialect{store.SQLite}
}

// DatabaseURL returns the URL of a new empty database of the engine that is
// dropped when the test ends: a file in a temporary folder for SQLite, a
// schema of its own (through search_path) for PostgreSQL.
func DatabaseURL(t testing.TB, engine store.Dialect) string {
	t.Helper()
	if engine == store.SQLite {
		u := "sqlite://" + filepath.Join(t.TempDir(), "trawl.db")
		if v := os.Getenv(SQLiteSynchronousEnv); v != "" {
			u += "?synchronous=" + url.QueryEscape(v)
		}
		return u
	}
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip(PostgresEnv + " is not set")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "trawl_test_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("storetest: open postgres: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`)
		admin.Close()
	})
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("storetest: create schema: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("storetest: parse %s: %v", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open returns a migrated store on a fresh database of the engine, with the
// given clock (time.Now when nil), closed when the test ends.
func Open(t testing.TB, engine store.Dialect, now func() time.Time) *store.Store {
	t.Helper()
	return OpenURL(t, DatabaseURL(t, engine), now)
}

// OpenURL returns a migrated store on the database at databaseURL (from
// DatabaseURL), closed when the test ends: another process's view of a
// database that a store of Open's uses.
func OpenURL(t testing.TB, databaseURL string, now func() time.Time) *store.Store {
	t.Helper()
	if now == nil {
		now = time.Now
	}
	ctx := context.Background()
	s, err := store.Open(ctx, databaseURL, now)
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatalf("storetest: migrate: %v", err)
	}
	return s
}

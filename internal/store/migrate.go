package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed migrations
var migrations embed.FS

// migrationLockID is the PostgreSQL advisory lock that serialises migrations
// when several processes start at once.
const migrationLockID = 0x7472_6177_6c00 // "trawl\0"

// Migrate brings the application schema and River's schema up to date. On
// PostgreSQL it holds an advisory lock for the whole run, so concurrent
// starts apply each migration exactly once.
func (s *Store) Migrate(ctx context.Context, log *slog.Logger) error {
	if s.dialect == Postgres {
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err != nil {
			return fmt.Errorf("store: migrate: take lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLockID) //nolint:errcheck // released with the session anyway
	} else {
		// Several processes may share one SQLite file (a `trawl migrate` beside
		// a running server); a lock file beside the database serialises them.
		unlock, err := lockFile(s.path + lockSuffix)
		if err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
		defer unlock()
	}
	if err := s.migrateApp(ctx, log); err != nil {
		return err
	}
	if err := s.migrateRiver(ctx, log); err != nil {
		return err
	}
	return nil
}

func (s *Store) migrateApp(ctx context.Context, log *slog.Logger) error {
	dir, dialect := "migrations/sqlite", goose.DialectSQLite3
	if s.dialect == Postgres {
		dir, dialect = "migrations/postgres", goose.DialectPostgres
	}
	fsys, err := fs.Sub(migrations, dir)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	p, err := goose.NewProvider(dialect, s.db, fsys, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("store: apply migrations: %w", err)
	}
	for _, r := range results {
		log.Info("applied migration", "source", r.Source.Path, "duration_ms", r.Duration.Milliseconds())
	}
	// Posts whose keyword index SQL could not make (migration 00010 cuts
	// text in Go); none pending is one probe of a partial index.
	start := time.Now()
	n, err := s.IndexPendingPosts(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	if n > 0 {
		log.Info("indexed posts for social mapping", "posts", n, "duration_ms", time.Since(start).Milliseconds())
	}
	return nil
}

func (s *Store) migrateRiver(ctx context.Context, log *slog.Logger) error {
	var (
		res *rivermigrate.MigrateResult
		err error
	)
	if s.dialect == Postgres {
		res, err = runRiverMigrations(ctx, riverpgxv5.New(s.pool))
	} else {
		res, err = runRiverMigrations(ctx, riversqlite.New(s.db))
	}
	if err != nil {
		return fmt.Errorf("store: apply river migrations: %w", err)
	}
	for _, v := range res.Versions {
		log.Info("applied river migration", "version", v.Version)
	}
	return nil
}

func runRiverMigrations[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) (*rivermigrate.MigrateResult, error) {
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		return nil, err
	}
	return m.Migrate(ctx, rivermigrate.DirectionUp, nil)
}

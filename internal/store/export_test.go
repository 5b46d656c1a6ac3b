package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
)

// MigrateUpTo applies the application migrations up to version only, for
// tests of a migration over rows stored before it.
func (s *Store) MigrateUpTo(ctx context.Context, version int64) error {
	dir, dialect := "migrations/sqlite", goose.DialectSQLite3
	if s.dialect == Postgres {
		dir, dialect = "migrations/postgres", goose.DialectPostgres
	}
	fsys, err := fs.Sub(migrations, dir)
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(dialect, s.db, fsys, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("migrate up to %d: %w", version, err)
	}
	return nil
}

// BatchInsert runs batchInsert in a transaction of its own.
func (s *Store) BatchInsert(ctx context.Context, head, suffix string, ncols, n int,
	row func(i int) []any, scan func(*sql.Rows) error) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return s.batchInsert(ctx, tx, head, suffix, ncols, n, row, scan) })
}

// PreparedBatches is how many batchInsert statements are kept prepared.
func (s *Store) PreparedBatches() int {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	return len(s.stmts.ready)
}

// SetKeywordPostings sets the posting lists' block size and how many of a
// block's posts may change before it is built again.
func (s *Store) SetKeywordPostings(blockSize int64, rebuildAfter int) {
	s.postings = postingsKnobs{blockSize: blockSize, rebuildAfter: rebuildAfter}
}

// Crash lets the SQLite owner lock go as a killed process's does, handing
// nothing back.
func (s *Store) Crash() { s.dropOwnerLock() }

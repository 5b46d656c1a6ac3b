package store

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCacheSize bounds the statements kept prepared: batchInsert's texts
// are a few per kind of row (one per chunk size), a few dozen in all, and
// the workflow engine's queries a handful.
const stmtCacheSize = 256

// stmtCache keeps statements prepared on SQLite: batchInsert's and the
// queries every workflow execution runs (execTx, readRow). The driver
// parses every text it is given anew; parsing a multi-row INSERT of a few
// thousand parameters cost a seventh of a post's hydration, and parsing a
// webhook execution's statements a fifth of its time. A statement can only
// be prepared while no transaction holds the writer's one connection, so a
// text first met inside a transaction runs as text and is marked wanted;
// the next transaction prepares what is wanted before it begins
// (Store.inTx). PostgreSQL's driver caches statements by text itself.
type stmtCache struct {
	mu     sync.Mutex
	ready  map[string]*sql.Stmt
	wanted map[string]bool
}

// get returns the prepared statement of text, or nil after marking it
// wanted.
func (c *stmtCache) get(text string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.ready[text]; st != nil {
		return st
	}
	if len(c.ready)+len(c.wanted) < stmtCacheSize {
		if c.wanted == nil {
			c.wanted = map[string]bool{}
		}
		c.wanted[text] = true
	}
	return nil
}

// prepareWanted prepares the wanted statements on db. It must be called
// outside any transaction of db; the lock is not held while preparing, so
// a transaction of another goroutine asking for statements never waits
// for a preparation that waits for its connection.
func (c *stmtCache) prepareWanted(ctx context.Context, db *sql.DB) {
	c.mu.Lock()
	texts := make([]string, 0, len(c.wanted))
	for text := range c.wanted {
		texts = append(texts, text)
	}
	clear(c.wanted)
	c.mu.Unlock()
	if len(texts) == 0 {
		return
	}
	prepared := make(map[string]*sql.Stmt, len(texts))
	for _, text := range texts {
		// A text that fails to prepare (a table not migrated yet) runs as
		// text; it is wanted again the next time it runs.
		if st, err := db.PrepareContext(ctx, text); err == nil {
			prepared[text] = st
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready == nil {
		c.ready = map[string]*sql.Stmt{}
	}
	for text, st := range prepared {
		if c.ready[text] != nil {
			st.Close() // another goroutine prepared it meanwhile
			continue
		}
		c.ready[text] = st
	}
}

// prepared returns text's statement, preparing it on db at once when the
// cache has none: for the reader pool, which no transaction of ours holds.
// It is nil when preparing fails (a table not migrated yet).
func (c *stmtCache) prepared(ctx context.Context, db *sql.DB, text string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.ready[text]; st != nil {
		return st
	}
	if len(c.ready) >= stmtCacheSize {
		return nil
	}
	st, err := db.PrepareContext(ctx, text)
	if err != nil {
		return nil
	}
	if c.ready == nil {
		c.ready = map[string]*sql.Stmt{}
	}
	c.ready[text] = st
	return st
}

// execTx runs text in tx, through its prepared statement once the cache
// holds one (SQLite; PostgreSQL's driver caches statements by text).
func (s *Store) execTx(ctx context.Context, tx *sql.Tx, text string, args ...any) (sql.Result, error) {
	if st := s.stmtIn(ctx, tx, text); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, text, args...)
}

// queryTx is execTx for a statement that returns rows.
func (s *Store) queryTx(ctx context.Context, tx *sql.Tx, text string, args ...any) (*sql.Rows, error) {
	if st := s.stmtIn(ctx, tx, text); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, text, args...)
}

// queryRowTx is execTx for a statement that returns one row.
func (s *Store) queryRowTx(ctx context.Context, tx *sql.Tx, text string, args ...any) *sql.Row {
	if st := s.stmtIn(ctx, tx, text); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, text, args...)
}

// stmtIn is text's prepared statement bound to tx, nil while the cache has
// none (it is then prepared before the next transaction) or on PostgreSQL.
func (s *Store) stmtIn(ctx context.Context, tx *sql.Tx, text string) *sql.Stmt {
	if s.dialect != SQLite {
		return nil
	}
	if st := s.stmts.get(text); st != nil {
		return tx.StmtContext(ctx, st)
	}
	return nil
}

// readRow runs a one-row read on the reader pool, through a statement
// prepared there once (SQLite).
func (s *Store) readRow(ctx context.Context, text string, args ...any) *sql.Row {
	if s.dialect == SQLite {
		if st := s.readStmts.prepared(ctx, s.read, text); st != nil {
			return st.QueryRowContext(ctx, args...)
		}
	}
	return s.read.QueryRowContext(ctx, text, args...)
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.ready {
		st.Close()
	}
	c.ready = nil
}

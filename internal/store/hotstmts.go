package store

import (
	"context"
	"database/sql"
	"sync"
)

// hotStmts are prepared statements of the queries every workflow
// execution runs. The SQLite driver parses each statement it is given
// anew, and for a webhook execution the parsing took a fifth of the time.
// A statement prepared on the writer's one connection is found there by
// every later transaction (Tx.StmtContext); on the reader pool each
// connection prepares it once. PostgreSQL's driver caches statements
// itself, so there the queries run as text.
type hotStmts struct {
	insertExecution, saveStep, renew, finish *sql.Stmt
	webhookWorkflow                          *sql.Stmt
}

type hotCache struct {
	mu    sync.Mutex
	stmts *hotStmts
}

// hot returns the prepared statements, preparing them on first use; on
// PostgreSQL, or when preparing failed, they are nil and the text runs.
// It must not be called inside a transaction: preparing needs the
// writer's one connection.
func (s *Store) hot(ctx context.Context) *hotStmts {
	if s.dialect != SQLite {
		return &hotStmts{}
	}
	s.hotStmts.mu.Lock()
	defer s.hotStmts.mu.Unlock()
	if s.hotStmts.stmts != nil {
		return s.hotStmts.stmts
	}
	var h hotStmts
	for _, p := range []struct {
		db   *sql.DB
		dst  **sql.Stmt
		text string
	}{
		{s.db, &h.insertExecution, insertExecutionSQL},
		{s.db, &h.saveStep, saveStepSQL},
		{s.db, &h.renew, renewSQL},
		{s.db, &h.finish, finishExecutionSQL},
		{s.read, &h.webhookWorkflow, webhookWorkflowSQL},
	} {
		st, err := p.db.PrepareContext(ctx, p.text)
		if err != nil {
			// Before migrations the tables are missing: try again later.
			h.close()
			return &hotStmts{}
		}
		*p.dst = st
	}
	s.hotStmts.stmts = &h
	return &h
}

// execIn runs text in tx, through st when it is prepared.
func execIn(ctx context.Context, tx *sql.Tx, st *sql.Stmt, text string, args ...any) (sql.Result, error) {
	if st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, text, args...)
}

func (h *hotStmts) close() {
	for _, st := range []*sql.Stmt{h.insertExecution, h.saveStep, h.renew, h.finish, h.webhookWorkflow} {
		if st != nil {
			st.Close()
		}
	}
}

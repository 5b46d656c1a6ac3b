package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
)

// JobTx is a store transaction that River jobs can be inserted into, so that
// a job exists exactly when the rows that call for it do. SQL is the
// transaction; Pgx is the same transaction seen through pgx on PostgreSQL
// (River's pgx driver takes a pgx.Tx), nil on SQLite.
type JobTx struct {
	SQL *sql.Tx
	Pgx pgx.Tx
}

// JobInserter inserts River jobs inside a store transaction; the jobs
// runner implements it.
type JobInserter interface {
	InsertTx(ctx context.Context, tx JobTx, args river.JobArgs, opts *river.InsertOpts) error
}

// SetJobInserter lets the store enqueue the work a write calls for (a new
// search's first run, a resumed search's run) in the transaction of that
// write. It is set once while the process is assembled, before any request is
// served; without it the periodic tick finds the work instead.
func (s *Store) SetJobInserter(ji JobInserter) { s.jobs = ji }

// SetEventHook sets fn to be called after each commit that wrote outbox
// events (new search results, new topic engagements), so that workflows
// fire on them at once. Set once while the process is assembled; without
// it the tick finds the events.
func (s *Store) SetEventHook(fn func()) { s.eventHook = fn }

// eventsWritten calls the event hook, if any.
func (s *Store) eventsWritten() {
	if s.eventHook != nil {
		s.eventHook()
	}
}

// inJobTx runs fn in a transaction that jobs can be inserted into. On
// PostgreSQL it pins one pooled connection, opens the transaction on it
// through database/sql and hands River the same connection through pgx:
// statements on either run in the one transaction.
func (s *Store) inJobTx(ctx context.Context, fn func(tx JobTx) error) error {
	if s.dialect != Postgres {
		return s.inTx(ctx, func(tx *sql.Tx) error { return fn(JobTx{SQL: tx}) })
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("get connection: %w", err)
	}
	defer conn.Close()
	var pc *pgx.Conn
	if err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		pc = c.Conn()
		return nil
	}); err != nil {
		return fmt.Errorf("get pgx connection: %w", err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(JobTx{SQL: tx, Pgx: connTx{pc}}); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// enqueueTx inserts a job in tx when the store has a job inserter.
func (s *Store) enqueueTx(ctx context.Context, tx JobTx, args river.JobArgs) error {
	if s.jobs == nil {
		return nil
	}
	return s.jobs.InsertTx(ctx, tx, args, nil)
}

// connTx is a pgx.Tx over a connection whose transaction database/sql
// opened and will end: only statements go through it.
type connTx struct{ c *pgx.Conn }

var errConnTxEnd = errors.New("store: the transaction is begun and ended by the store, not through pgx")

func (t connTx) Begin(context.Context) (pgx.Tx, error) { return nil, errConnTxEnd }
func (t connTx) Commit(context.Context) error          { return errConnTxEnd }
func (t connTx) Rollback(context.Context) error        { return errConnTxEnd }
func (t connTx) CopyFrom(ctx context.Context, name pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return t.c.CopyFrom(ctx, name, cols, src)
}
func (t connTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.c.SendBatch(ctx, b)
}
func (t connTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }
func (t connTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.c.Prepare(ctx, name, sql)
}
func (t connTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.c.Exec(ctx, sql, args...)
}
func (t connTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.c.Query(ctx, sql, args...)
}
func (t connTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.c.QueryRow(ctx, sql, args...)
}
func (t connTx) Conn() *pgx.Conn { return t.c }

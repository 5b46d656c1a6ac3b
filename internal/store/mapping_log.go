package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/trawlhq/trawl/internal/mapping"
)

// Social mapping's logs: triggers log every write of the tables the
// mapping engine copies into each process (migrations 00013, 00014, 00020,
// 00022), so that a copy is brought up to date by the rows logged after
// its position (mapping.Snapshot.Position). Each log has a pruned marker,
// its name with "_pruned".
const (
	peopleLog   = "mapping_people_log"
	engagersLog = "mapping_engagers_log"
	postsLog    = "mapping_posts_log"
)

// logTable is the table of one of mapping's logs.
func logTable(log mapping.Log) string {
	switch log {
	case mapping.PeopleLog:
		return peopleLog
	case mapping.EngagersLog:
		return engagersLog
	default:
		return postsLog
	}
}

// snapshot begins a read-only transaction that reads one snapshot.
func (s *Store) snapshot(ctx context.Context) (*sql.Tx, error) {
	// SQLite's WAL gives one snapshot from the first read on, and takes
	// no isolation level.
	opts := &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	if s.dialect == SQLite {
		opts.Isolation = sql.LevelDefault
	}
	return s.read.BeginTx(ctx, opts)
}

// logPosition is where tx's snapshot stands in a log: on SQLite the last
// seq it sees, on PostgreSQL the xmin of its snapshot (every transaction
// below it had ended, so its rows are seen); and how far pruning went.
func (s *Store) logPosition(ctx context.Context, tx *sql.Tx, log string) (pos, pruned uint64, err error) {
	if s.dialect == Postgres {
		var xmin, upto string
		if err := tx.QueryRowContext(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text, upto::text FROM `+log+`_pruned`).
			Scan(&xmin, &upto); err != nil {
			return 0, 0, fmt.Errorf("log position: %w", err)
		}
		if pos, err = strconv.ParseUint(xmin, 10, 64); err == nil {
			pruned, err = strconv.ParseUint(upto, 10, 64)
		}
		if err != nil {
			return 0, 0, fmt.Errorf("log position: %w", err)
		}
		return pos, pruned, nil
	}
	if err := tx.QueryRowContext(ctx,
		`SELECT COALESCE((SELECT MAX(seq) FROM `+log+`), 0), upto FROM `+log+`_pruned`).Scan(&pos, &pruned); err != nil {
		return 0, 0, fmt.Errorf("log position: %w", err)
	}
	return pos, pruned, nil
}

// prunedPast reports whether pruning deleted rows not applied by a reader
// at pos: on SQLite those after seq pos, on PostgreSQL those of
// transactions from xid pos on.
func (s *Store) prunedPast(pruned, pos uint64) bool {
	if s.dialect == Postgres {
		return pruned >= pos
	}
	return pruned > pos
}

// changedSince is a subquery of the ids a log names after position pos
// (logPosition), with its arguments.
func (s *Store) changedSince(log string, pos uint64) (string, []any) {
	if s.dialect == Postgres {
		// Transactions at or above the xmin may have committed since.
		return `SELECT DISTINCT id FROM ` + log + ` WHERE xid >= $1::text::xid8`, []any{strconv.FormatUint(pos, 10)}
	}
	return `SELECT DISTINCT id FROM ` + log + ` WHERE seq > $1`, []any{int64(pos)}
}

// mappingLogKept is how many of the newest rows of each log pruning keeps:
// a process that falls further behind between two social mapping queries
// reads the table whole again.
const mappingLogKept = 100_000

// PruneMappingLog deletes all but the newest rows of social mapping's logs
// and records how far it deleted (a process's copy behind that point reads
// its table whole again), then the keyword matches the processes share
// that it was pruned past, and the oldest of them while they weigh more
// than sharedBudget bytes (a process's budget of keyword matches:
// mapping.Engine.KeywordMatchesHeld). It returns how many log rows it
// deleted.
func (s *Store) PruneMappingLog(ctx context.Context, sharedBudget int) (int64, error) {
	var total int64
	for _, log := range []string{peopleLog, engagersLog, postsLog} {
		n, err := s.pruneLog(ctx, log)
		if err != nil {
			return total, fmt.Errorf("store: prune %s: %w", log, err)
		}
		total += n
	}
	return total, s.pruneSharedMatches(ctx, sharedBudget)
}

func (s *Store) pruneLog(ctx context.Context, log string) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if s.dialect == Postgres {
			// Only rows of transactions below every running one's: their
			// largest id, recorded, tells which copies may have missed one.
			return tx.QueryRowContext(ctx,
				`WITH gone AS (
				   DELETE FROM `+log+`
				    WHERE seq <= (SELECT MAX(seq) FROM `+log+`) - $1
				      AND xid < pg_snapshot_xmin(pg_current_snapshot())
				   RETURNING xid),
				 marked AS (
				   UPDATE `+log+`_pruned SET upto = (SELECT MAX(xid) FROM gone)
				    WHERE upto < (SELECT MAX(xid) FROM gone))
				 SELECT COUNT(*) FROM gone`, mappingLogKept).Scan(&n)
		}
		var upto sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(seq) - $1 FROM `+log, mappingLogKept).Scan(&upto); err != nil {
			return err
		}
		if !upto.Valid || upto.Int64 <= 0 {
			return nil
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM `+log+` WHERE seq <= $1`, upto.Int64)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE `+log+`_pruned SET upto = $1 WHERE upto < $1`, upto.Int64)
		return err
	})
	return n, err
}

// pruneSharedMatches deletes the stored keyword matches that the log was
// pruned past, then the oldest (by position) while they weigh more than a
// process's budget of keyword matches (0: mapping's default): no process
// could hold more of them.
func (s *Store) pruneSharedMatches(ctx context.Context, budget int) error {
	if !s.sharesMatches() {
		return nil
	}
	if _, err := s.db.ExecContext(ctx,
		`DELETE FROM mapping_keyword_matches WHERE position <= (SELECT upto::text::bigint FROM mapping_posts_log_pruned)`); err != nil {
		return fmt.Errorf("store: prune shared keyword matches: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM mapping_keyword_matches WHERE key IN (
		SELECT key FROM (SELECT key, SUM(octet_length(key) + octet_length(ids)) OVER (ORDER BY position DESC, key) AS upto
		  FROM mapping_keyword_matches) newest WHERE upto > $1)`, cmp.Or(budget, mapping.DefaultKeywordMatchBytes)); err != nil {
		return fmt.Errorf("store: prune shared keyword matches: %w", err)
	}
	return nil
}

// ForgetSharedKeywordMatches deletes the keyword matches the processes
// share, so that the next query that misses one asks the keyword index
// (bench/mapping times such first calls); nothing on SQLite.
func (s *Store) ForgetSharedKeywordMatches(ctx context.Context) error {
	if !s.sharesMatches() {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM mapping_keyword_matches`); err != nil {
		return fmt.Errorf("store: forget shared keyword matches: %w", err)
	}
	return nil
}

// sharesMatches reports whether the processes share keyword matches
// through the database (mapping.Pool.SharesMatches): on PostgreSQL, where
// several processes serve the API. SQLite's one writer would make every
// first call over a keyword wait for collection's commits, for an index
// that answers in 14-91 ms.
func (s *Store) sharesMatches() bool { return s.dialect == Postgres }

// TopicCreated is signalled when this process creates a topic: warming
// its keywords then (mapping.Engine.WarmKeywordMatches) rather than at the
// next tick makes the first query over them a kept one.
func (s *Store) TopicCreated() <-chan struct{} { return s.topicCreated }

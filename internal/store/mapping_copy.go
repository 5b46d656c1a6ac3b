package store

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strconv"
	"sync"
)

// copyState is what social mapping's in-memory copies of a table share:
// the copy of folded people (mapping_people), of packed engagements
// (mapping_engagers) and of the posts' authors (mapping_posts). Each
// table's writes are logged by triggers (migrations 00013, 00014, 00020); a copy is never stale, because each use first
// applies what its log recorded since the copy's position, and reads the
// whole table again when pruning went past that position.
type copyState struct {
	// refresh lets one caller at a time read the log and apply it.
	refresh sync.Mutex
	// mu guards the copy: refreshes write it, queries read it.
	mu     sync.RWMutex
	loaded bool
	// pos is the last log seq applied (SQLite) or the xmin of the snapshot
	// the copy was last refreshed under (PostgreSQL).
	pos uint64
}

// The logs of the copied tables; each has a pruned marker, its name with
// "_pruned".
const (
	peopleLog   = "mapping_people_log"
	engagersLog = "mapping_engagers_log"
	postsLog    = "mapping_posts_log"
)

// syncCopy brings a copy up to date and returns with it read-locked: the
// caller calls c.mu.RUnlock when done with it. In one read snapshot it
// reads the log's position, then read reads the rows: the whole table when
// changed is "", else those whose ids the subquery changed (with args)
// selects. The function read returns is applied under the write lock.
func (s *Store) syncCopy(ctx context.Context, c *copyState, log string,
	read func(tx *sql.Tx, changed string, args []any) (apply func(whole bool), err error)) error {
	c.refresh.Lock()
	defer c.refresh.Unlock()
	tx, err := s.snapshot(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	pos, pruned, err := s.logPosition(ctx, tx, log)
	if err != nil {
		return err
	}
	c.mu.RLock()
	whole := !c.loaded || s.prunedPast(pruned, c.pos)
	from := c.pos
	c.mu.RUnlock()

	changed, args := "", []any(nil)
	if !whole {
		changed, args = s.changedSince(log, from)
	}
	apply, err := read(tx, changed, args)
	if err != nil {
		return err
	}
	c.mu.Lock()
	apply(whole)
	c.loaded, c.pos = true, pos
	c.mu.Unlock()
	c.mu.RLock()
	return nil
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

// rowChunks collects the rows a copy read, in chunks: a whole table is
// millions of rows, and one slice would be copied over at each growth.
type rowChunks[T any] [][]T

func (c *rowChunks[T]) add(v T) {
	if n := len(*c); n == 0 || len((*c)[n-1]) == cap((*c)[n-1]) {
		*c = append(*c, make([]T, 0, 1<<14))
	}
	last := &(*c)[len(*c)-1]
	*last = append(*last, v)
}

// all yields the rows in the order they were added.
func (c rowChunks[T]) all() iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, chunk := range c {
			for _, v := range chunk {
				if !yield(v) {
					return
				}
			}
		}
	}
}

// readChunks runs query in tx and collects its rows, each read by scan.
func readChunks[T any](ctx context.Context, tx *sql.Tx, query string, args []any, scan func(rows *sql.Rows, r *T) error) (rowChunks[T], error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var read rowChunks[T]
	for rows.Next() {
		var r T
		if err := scan(rows, &r); err != nil {
			return nil, err
		}
		read.add(r)
	}
	return read, rows.Err()
}

// maxID is the largest id fn gives of the rows (-1 with none), to size a
// copy once before applying them.
func maxID[T any](rows rowChunks[T], fn func(T) int64) int64 {
	n := int64(-1)
	for r := range rows.all() {
		n = max(n, fn(r))
	}
	return n
}

// mappingLogKept is how many of the newest rows of each log pruning keeps:
// a process that falls further behind between two social mapping queries
// reads the table whole again.
const mappingLogKept = 100_000

// PruneMappingLog deletes all but the newest rows of social mapping's logs
// and records how far it deleted (see copyState). It returns how many rows
// it deleted.
func (s *Store) PruneMappingLog(ctx context.Context) (int64, error) {
	var total int64
	for _, log := range []string{peopleLog, engagersLog, postsLog} {
		n, err := s.pruneLog(ctx, log)
		if err != nil {
			return total, fmt.Errorf("store: prune %s: %w", log, err)
		}
		total += n
	}
	return total, s.pruneSharedMatches(ctx)
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

// LoadMappingCopies reads social mapping's in-memory copies (folded people,
// packed engagements, posts' authors), so that the first query after start-up does not
// wait for them: at a million people and ten million engagements that
// takes a few seconds.
func (s *Store) LoadMappingCopies(ctx context.Context) error {
	people, err := s.foldedCopy(ctx)
	if err != nil {
		return fmt.Errorf("store: load mapping copies: %w", err)
	}
	n := len(people.flags)
	people.mu.RUnlock()
	s.warmPersonBuffers(n)
	packed, err := s.engagersCopy(ctx)
	if err != nil {
		return fmt.Errorf("store: load mapping copies: %w", err)
	}
	packed.mu.RUnlock()
	authors, err := s.authorsCopy(ctx)
	if err != nil {
		return fmt.Errorf("store: load mapping copies: %w", err)
	}
	authors.mu.RUnlock()
	return nil
}

// warmPersonBuffers keeps, for people people, the per-person buffers of the
// two halves a social mapping query reads side by side, written once: the
// first queries after start-up would otherwise fault in their megabytes
// (about 14 µs a page here), 10-25 ms on the reference pool. A list starts
// with room for an eighth of the people.
func (s *Store) warmPersonBuffers(people int) {
	for range 2 {
		at := make([]int32, people+people/4)
		list := make([]engagerHit, people/8)
		for i := 0; i < len(at); i += 1024 { // a 4 KiB page
			at[i] = 0
		}
		for i := 0; i < len(list); i += 128 {
			list[i] = engagerHit{}
		}
		list = list[:0]
		s.personSlots.put(&at)
		s.hitLists.put(&list)
	}
}

package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// On PostgreSQL, where several processes serve the API and a first call
// over a keyword costs the GIN index and a heap visit per matching post
// (0.1-0.4 s for a typical one), the processes share what they asked:
// each entry filled from the index is stored in mapping_keyword_matches
// with the log position of the snapshot it was read in, and a process
// missing an entry loads it from there, deciding the posts logged since
// as it decides them for its own entries. A stored entry whose log was
// pruned past its position is of no use, and pruning deletes it. SQLite's
// one writer would make every first call wait for collection's commits,
// for an index that answers in 14-91 ms: nothing is shared there.

// sharesMatches reports whether the entries are shared through the
// database.
func (s *Store) sharesMatches() bool { return s.dialect == Postgres }

// loadSharedMatches puts in fills the entries other processes stored for
// queries, brought up to tx's snapshot (pruned is how far the log was
// pruned in it), and returns the queries still to ask the index. The posts
// logged since the oldest entry's position are read once and decided for
// every entry: deciding a post logged before an entry's own position again
// changes nothing.
func (s *Store) loadSharedMatches(ctx context.Context, tx *sql.Tx, queries []indexQuery, pruned uint64, fills map[string]*matchEntry) ([]indexQuery, error) {
	type stored struct {
		position int64
		packed   []byte
	}
	// One statement for all of them: a lookup's keywords are asked at once.
	keys := make([]string, len(queries))
	for i, q := range queries {
		keys[i] = sharedKey(q)
	}
	rows, err := tx.QueryContext(ctx, `SELECT key, position, ids FROM mapping_keyword_matches WHERE key = ANY($1)`, keys)
	if err != nil {
		return nil, fmt.Errorf("shared keyword matches: %w", err)
	}
	found := map[string]stored{}
	for rows.Next() {
		var (
			key string
			e   stored
		)
		if err := rows.Scan(&key, &e.position, &e.packed); err != nil {
			rows.Close()
			return nil, fmt.Errorf("shared keyword matches: %w", err)
		}
		found[key] = e
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("shared keyword matches: %w", err)
	}
	var (
		ask    []indexQuery
		loaded []*matchEntry
		oldest uint64
	)
	for i, q := range queries {
		e, ok := found[keys[i]]
		if !ok {
			ask = append(ask, q)
			continue
		}
		ids, ok := unpackIDs(e.packed)
		if !ok || e.position < 0 || s.prunedPast(pruned, uint64(e.position)) {
			ask = append(ask, q)
			continue
		}
		if len(loaded) == 0 || uint64(e.position) < oldest {
			oldest = uint64(e.position)
		}
		loaded = append(loaded, &matchEntry{query: q, ids: ids})
	}
	if len(loaded) == 0 {
		return ask, nil
	}
	changed, args := s.changedSince(postsLog, oldest)
	more, err := s.catchUp(ctx, tx, loaded, changed, args, fills)
	return append(ask, more...), err
}

// shareMatches stores entries filled from the index in a snapshot at log
// position pos, in place of older ones. An entry that matched nothing is
// not stored: GIN answers it in one probe of its index, and a stream of
// keywords no post mentions would otherwise fill the table.
func (s *Store) shareMatches(ctx context.Context, fills map[string]*matchEntry, pos uint64) error {
	for _, e := range fills {
		if len(e.ids) == 0 {
			continue
		}
		if _, err := s.db.ExecContext(ctx,
			`INSERT INTO mapping_keyword_matches (key, position, ids) VALUES ($1, $2, $3)
			 ON CONFLICT (key) DO UPDATE SET position = excluded.position, ids = excluded.ids
			  WHERE mapping_keyword_matches.position < excluded.position`,
			sharedKey(e.query), int64(pos), packIDs(e.ids)); err != nil {
			return fmt.Errorf("share keyword matches: %w", err)
		}
	}
	return nil
}

// pruneSharedMatches deletes the stored entries that the log was pruned
// past, then the oldest (by position) while they weigh more than a
// process's budget of keyword matches: no process could hold more of them.
func (s *Store) pruneSharedMatches(ctx context.Context) error {
	if !s.sharesMatches() {
		return nil
	}
	if _, err := s.db.ExecContext(ctx,
		`DELETE FROM mapping_keyword_matches WHERE position <= (SELECT upto::text::bigint FROM mapping_posts_log_pruned)`); err != nil {
		return fmt.Errorf("store: prune shared keyword matches: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM mapping_keyword_matches WHERE key IN (
		SELECT key FROM (SELECT key, SUM(octet_length(key) + octet_length(ids)) OVER (ORDER BY position DESC, key) AS upto
		  FROM mapping_keyword_matches) newest WHERE upto > $1)`, s.KeywordMatchesHeld().Budget); err != nil {
		return fmt.Errorf("store: prune shared keyword matches: %w", err)
	}
	return nil
}

// ForgetSharedKeywordMatches deletes the entries the processes share, so
// that the next query that misses one asks the keyword index (bench/mapping
// times such first calls); nothing on SQLite.
func (s *Store) ForgetSharedKeywordMatches(ctx context.Context) error {
	if !s.sharesMatches() {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM mapping_keyword_matches`); err != nil {
		return fmt.Errorf("store: forget shared keyword matches: %w", err)
	}
	return nil
}

// sharedKey names an entry in mapping_keyword_matches: its key holds a
// NUL, which PostgreSQL's text does not.
func sharedKey(q indexQuery) string {
	sum := sha256.Sum256([]byte(q.key()))
	return hex.EncodeToString(sum[:])
}

// packIDs writes ascending ids as the varint of each one's distance from
// the one before: two or three bytes per post on the reference pool.
func packIDs(ids []int64) []byte {
	out := make([]byte, 0, 3*len(ids))
	var last int64
	for _, id := range ids {
		out = binary.AppendUvarint(out, uint64(id-last))
		last = id
	}
	return out
}

// unpackIDs reads what packIDs wrote; false when it is not that.
func unpackIDs(b []byte) ([]int64, bool) {
	ids := make([]int64, 0, len(b)/2)
	var last int64
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, false
		}
		last += int64(d)
		ids = append(ids, last)
		b = b[n:]
	}
	return ids, true
}

package mapping

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// Where several processes serve the API (PostgreSQL: Pool.SharesMatches)
// and a first call over a keyword costs the GIN index and a heap visit per
// matching post (0.1-0.4 s for a typical one), the processes share what
// they asked: each entry filled from the index is stored in the pool
// (mapping_keyword_matches) with the log position of the snapshot it was
// read in, and a process missing an entry loads it from there, deciding
// the posts logged since as it decides them for its own entries. A stored
// entry whose log was pruned past its position is of no use, and pruning
// deletes it. SQLite's one writer would make every first call wait for
// collection's commits, for an index that answers in 14-91 ms: nothing is
// shared there.

// loadSharedMatches puts in fills the entries other processes stored for
// queries, brought up to snap (pruned is how far the log was pruned in
// it), and returns the queries still to ask the index. The posts logged
// since the oldest entry's position are read once and decided for every
// entry: deciding a post logged before an entry's own position again
// changes nothing.
func (e *Engine) loadSharedMatches(ctx context.Context, snap Snapshot, queries []indexQuery, pruned uint64, fills map[string]*matchEntry) ([]indexQuery, error) {
	// One read for all of them: a lookup's keywords are asked at once.
	keys := make([]string, len(queries))
	for i, q := range queries {
		keys[i] = sharedKey(q)
	}
	found, err := snap.SharedMatches(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("shared keyword matches: %w", err)
	}
	var (
		ask    []indexQuery
		loaded []*matchEntry
		oldest uint64
	)
	for i, q := range queries {
		m, ok := found[keys[i]]
		if !ok {
			ask = append(ask, q)
			continue
		}
		ids, ok := unpackIDs(m.Packed)
		if !ok || m.Position < 0 || e.pool.PrunedPast(pruned, uint64(m.Position)) {
			ask = append(ask, q)
			continue
		}
		if len(loaded) == 0 || uint64(m.Position) < oldest {
			oldest = uint64(m.Position)
		}
		loaded = append(loaded, &matchEntry{query: q, ids: ids})
	}
	if len(loaded) == 0 {
		return ask, nil
	}
	texts, err := snap.ChangedPosts(ctx, oldest, maxChangedPosts+1)
	if err != nil {
		return nil, fmt.Errorf("changed posts: %w", err)
	}
	more := catchUp(loaded, texts, fills)
	return append(ask, more...), nil
}

// shareMatches stores entries filled from the index in a snapshot at log
// position pos, in place of older ones. An entry that matched nothing is
// not stored: GIN answers it in one probe of its index, and a stream of
// keywords no post mentions would otherwise fill the table.
func (e *Engine) shareMatches(ctx context.Context, fills map[string]*matchEntry, pos uint64) error {
	var shared []SharedMatch
	for _, m := range fills {
		if len(m.ids) == 0 {
			continue
		}
		shared = append(shared, SharedMatch{Key: sharedKey(m.query), Position: int64(pos), Packed: packIDs(m.ids)})
	}
	if len(shared) == 0 {
		return nil
	}
	if err := e.pool.ShareMatches(ctx, shared); err != nil {
		return fmt.Errorf("share keyword matches: %w", err)
	}
	return nil
}

// sharedKey names an entry among the shared ones: its key holds a NUL,
// which PostgreSQL's text does not.
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

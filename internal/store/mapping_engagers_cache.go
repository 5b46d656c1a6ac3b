package store

import (
	"context"
	"database/sql"
	"fmt"
)

// packedEngagers is this process's copy of mapping_engagers, each post's
// packed engagements, indexed by post id (mapping_posts ids are dense).
// A social mapping query reads the lists of its qualifying posts from it
// instead of a row per post: on the full benchmark pool those reads went
// to disk (past SQLite's memory map) and took most of a query's time. It
// takes about 16 bytes per engagement, and is kept exact through
// mapping_engagers_log (copyState).
type packedEngagers struct {
	copyState
	// lists holds each post's packed list (packEngagers); none when it
	// has none yet, and the pool tables are read for it.
	lists blobs
}

// packedRow is a mapping_engagers row as read; list is nil when the post
// has no row.
type packedRow struct {
	id   int64
	list []byte
}

// engagersCopy brings the copy up to date and returns it, read-locked: the
// caller calls mu.RUnlock when done with it.
func (s *Store) engagersCopy(ctx context.Context) (*packedEngagers, error) {
	c := &s.packed
	err := s.syncCopy(ctx, &c.copyState, engagersLog, func(tx *sql.Tx, changed string, args []any) (func(bool), error) {
		if changed == "" {
			// The whole table goes straight into a new buffer, swapped in
			// under the lock: queries do not wait for millions of puts.
			rows, err := tx.QueryContext(ctx, `SELECT post_id, engagers FROM mapping_engagers`)
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			var fresh blobs
			for rows.Next() {
				var (
					id   int64
					list sql.RawBytes
				)
				if err := rows.Scan(&id, &list); err != nil {
					return nil, err
				}
				if list == nil {
					list = sql.RawBytes{} // an empty list, not a missing one
				}
				fresh.put(id, list)
			}
			if err := rows.Err(); err != nil {
				return nil, err
			}
			return func(bool) { c.lists = fresh }, nil
		}
		read, err := readChunks(ctx, tx,
			`SELECT l.id, b.post_id IS NOT NULL, b.engagers FROM (`+changed+`) l LEFT JOIN mapping_engagers b ON b.post_id = l.id`, args,
			func(rows *sql.Rows, r *packedRow) error {
				var present bool
				if err := rows.Scan(&r.id, &present, &r.list); err != nil {
					return err
				}
				if present && r.list == nil {
					r.list = []byte{} // an empty list, not a missing one
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
		return func(bool) { c.apply(read) }, nil
	})
	if err != nil {
		return nil, fmt.Errorf("packed engagements: %w", err)
	}
	return c, nil
}

// apply writes rows into the copy (under mu).
func (c *packedEngagers) apply(rows rowChunks[packedRow]) {
	for r := range rows.all() {
		c.lists.put(r.id, r.list)
	}
}

// list returns the packed list of a post, nil when the copy has none.
func (c *packedEngagers) list(post int64) []byte { return c.lists.get(post) }

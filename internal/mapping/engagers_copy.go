package mapping

import (
	"bytes"
	"context"
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

// packedRow is a post's packed list as read; list is nil when the post has
// none.
type packedRow struct {
	id   int64
	list []byte
}

// engagersCopy brings the copy up to date and returns it, read-locked: the
// caller calls mu.RUnlock when done with it.
func (e *Engine) engagersCopy(ctx context.Context) (*packedEngagers, error) {
	c := &e.packed
	err := e.syncCopy(ctx, &c.copyState, EngagersLog, func(snap Snapshot, whole bool, from uint64) (func(bool), error) {
		if whole {
			// The whole table goes straight into a new buffer, swapped in
			// under the lock: queries do not wait for millions of puts.
			var fresh blobs
			err := snap.PackedEngagers(ctx, true, 0, func(id int64, list []byte) {
				if list == nil {
					list = []byte{} // an empty list, not a missing one
				}
				fresh.put(id, list)
			})
			if err != nil {
				return nil, err
			}
			return func(bool) { c.lists = fresh }, nil
		}
		var read rowChunks[packedRow]
		err := snap.PackedEngagers(ctx, false, from, func(id int64, list []byte) {
			read.add(packedRow{id: id, list: bytes.Clone(list)})
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

package mapping

import (
	"context"
	"iter"
	"sync"
)

// copyState is what the engine's in-memory copies of a table share: the
// copy of folded people (mapping_people), of packed engagements
// (mapping_engagers) and of the posts' authors (mapping_posts), and the
// keyword matches. Each table's writes are logged by triggers (migrations
// 00013, 00014, 00020); a copy is never stale, because each use first
// applies what its log recorded since the copy's position, and reads the
// whole table again when pruning went past that position.
type copyState struct {
	// refresh lets one caller at a time read the log and apply it.
	refresh sync.Mutex
	// mu guards the copy: refreshes write it, queries read it.
	mu     sync.RWMutex
	loaded bool
	// pos is the position in the log (Snapshot.Position) of the snapshot
	// the copy was last refreshed under.
	pos uint64
}

// syncCopy brings a copy up to date and returns with it read-locked: the
// caller calls c.mu.RUnlock when done with it. In one read snapshot it
// reads the log's position, then read reads the rows: the whole table when
// whole, else those the log names after position from. The function read
// returns is applied under the write lock.
func (e *Engine) syncCopy(ctx context.Context, c *copyState, log Log,
	read func(snap Snapshot, whole bool, from uint64) (apply func(whole bool), err error)) error {
	c.refresh.Lock()
	defer c.refresh.Unlock()
	snap, err := e.pool.Snapshot(ctx)
	if err != nil {
		return err
	}
	defer snap.Close()
	pos, pruned, err := snap.Position(ctx, log)
	if err != nil {
		return err
	}
	c.mu.RLock()
	whole := !c.loaded || e.pool.PrunedPast(pruned, c.pos)
	from := c.pos
	c.mu.RUnlock()

	apply, err := read(snap, whole, from)
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

// maxID is the largest id fn gives of the rows (-1 with none), to size a
// copy once before applying them.
func maxID[T any](rows rowChunks[T], fn func(T) int64) int64 {
	n := int64(-1)
	for r := range rows.all() {
		n = max(n, fn(r))
	}
	return n
}

package mapping

import (
	"context"
	"fmt"
)

// postAuthors is this process's copy of what creator discovery reads of
// each pool post: when it was published and its author's person id,
// indexed by post id (mapping_posts ids are dense). Read from the database,
// a row per qualifying post and a lookup per author were most of a query.
// It takes 16 bytes per post and is kept exact through mapping_posts_log
// (copyState), with one exception the log leaves out: a person stored after
// their posts. Posts whose author was no person when the copy read them
// are marked, and each query looks them up (authorsOfUnresolved).
type postAuthors struct {
	copyState
	posted []int64
	// author is the person id of the post's author; 0 when the copy has
	// no such post, UnresolvedAuthor when its author was no person (a company
	// page, or a member not stored as a person yet).
	author []int64
}

// authorsCopy brings the copy up to date and returns it, read-locked: the
// caller calls mu.RUnlock when done with it.
func (e *Engine) authorsCopy(ctx context.Context) (*postAuthors, error) {
	c := &e.authors
	err := e.syncCopy(ctx, &c.copyState, PostsLog, func(snap Snapshot, whole bool, from uint64) (func(bool), error) {
		var read rowChunks[AuthorRow]
		if err := snap.PostAuthors(ctx, whole, from, read.add); err != nil {
			return nil, err
		}
		return func(whole bool) {
			if whole {
				c.posted, c.author = nil, nil
			}
			c.apply(read)
		}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("post authors: %w", err)
	}
	return c, nil
}

// apply writes rows into the copy (under mu).
func (c *postAuthors) apply(rows rowChunks[AuthorRow]) {
	if n := maxID(rows, func(r AuthorRow) int64 { return r.ID }) + 1; n > int64(len(c.author)) {
		n = max(n, int64(len(c.author))*5/4) // room for the next posts
		c.posted = append(c.posted, make([]int64, n-int64(len(c.posted)))...)
		c.author = append(c.author, make([]int64, n-int64(len(c.author)))...)
	}
	for r := range rows.all() {
		if r.ID < 0 {
			continue
		}
		if !r.Present {
			c.posted[r.ID], c.author[r.ID] = 0, 0
			continue
		}
		c.posted[r.ID], c.author[r.ID] = r.Posted, r.Author
	}
}

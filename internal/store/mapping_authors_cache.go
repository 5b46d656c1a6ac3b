package store

import (
	"context"
	"database/sql"
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
	// no such post, unresolved when its author was no person (a company
	// page, or a member not stored as a person yet).
	author []int64
}

// unresolved marks a post whose author the copy found no person for (-1
// in the queries).
const unresolved = -1

// authorRow is a post as the copy reads it; present is false for a post
// that no longer exists.
type authorRow struct {
	id, posted, author int64
	present            bool
}

// authorsCopy brings the copy up to date and returns it, read-locked: the
// caller calls mu.RUnlock when done with it.
func (s *Store) authorsCopy(ctx context.Context) (*postAuthors, error) {
	c := &s.authors
	err := s.syncCopy(ctx, &c.copyState, postsLog, func(tx *sql.Tx, changed string, args []any) (func(bool), error) {
		// A post without an author is as good as none; one whose author
		// is no person is marked unresolved.
		const author = `CASE WHEN m.author_urn = '' THEN 0 ELSE COALESCE(p.id, -1) END`
		query := `SELECT m.id, TRUE, m.posted_at, ` + author + ` FROM mapping_posts m LEFT JOIN pronet_people p ON p.urn = m.author_urn`
		if changed != "" {
			query = `SELECT l.id, m.id IS NOT NULL, COALESCE(m.posted_at, 0), ` + author + `
			           FROM (` + changed + `) l LEFT JOIN mapping_posts m ON m.id = l.id LEFT JOIN pronet_people p ON p.urn = m.author_urn`
		}
		read, err := readChunks(ctx, tx, query, args, func(rows *sql.Rows, r *authorRow) error {
			return rows.Scan(&r.id, &r.present, &r.posted, &r.author)
		})
		if err != nil {
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
func (c *postAuthors) apply(rows rowChunks[authorRow]) {
	if n := maxID(rows, func(r authorRow) int64 { return r.id }) + 1; n > int64(len(c.author)) {
		n = max(n, int64(len(c.author))*5/4) // room for the next posts
		c.posted = append(c.posted, make([]int64, n-int64(len(c.posted)))...)
		c.author = append(c.author, make([]int64, n-int64(len(c.author)))...)
	}
	for r := range rows.all() {
		if r.id < 0 {
			continue
		}
		if !r.present {
			c.posted[r.id], c.author[r.id] = 0, 0
			continue
		}
		c.posted[r.id], c.author[r.id] = r.posted, r.author
	}
}

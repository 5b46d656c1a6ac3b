package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/trawlhq/trawl/internal/mapping"
)

// On PostgreSQL the keyword index is also kept as posting lists of our own
// (migration 00025, mapping.PostingsBuilder): GIN returns row locations,
// and each matching post then costs a visit to its heap page, 0.1-0.2 s
// for a typical keyword on two million posts however the table is laid
// out. Posts are packed in blocks of consecutive ids, each block as one
// list per word and hashtag, read whole by the lexemes a query needs (the
// mapping engine reads them: internal/mapping/matches_postings.go).
//
// A block says what its posts' text said in the snapshot it was built in
// (position: that snapshot's xmin in mapping_posts_log). The leader's tick
// (PackKeywordPostings) builds the blocks again as their posts change,
// before the log is pruned past them.
//
// SQLite's FTS5 index reads its own lists (14-91 ms for a first call on
// the full pool): nothing is packed there.

// PacksKeywordPostings reports whether this engine keeps the keyword
// posting lists (PostgreSQL).
func (s *Store) PacksKeywordPostings() bool { return s.dialect == Postgres }

// postingsBlockSize is how many consecutive post ids a block holds: a
// typical keyword's list is then read in one row per 65,536 posts (31 for
// the reference pool), and a block is built in about 6 s.
const postingsBlockSize = 1 << 16

// postingsRebuildAfter is how many of a block's posts may change before it
// is built again; so is the block with the most changes while all blocks'
// add up to more. A lookup decides that many by their text: 500 of them
// added 10-20 ms to a first call on the reference pool.
const postingsRebuildAfter = 200

// postingsBlocksPerPack bounds the blocks one PackKeywordPostings builds:
// the tick that runs it runs the other scans too.
const postingsBlocksPerPack = 8

func (s *Store) blockSize() int64 {
	return cmp.Or(s.postings.blockSize, postingsBlockSize)
}

func (s *Store) rebuildAfter() int {
	return cmp.Or(s.postings.rebuildAfter, postingsRebuildAfter)
}

// postingsKnobs, when set (tests), replace the posting lists' constants.
type postingsKnobs struct {
	blockSize    int64
	rebuildAfter int
}

// readPostingBlocks reads the blocks, by first id.
func readPostingBlocks(ctx context.Context, tx *sql.Tx) ([]mapping.PostingBlock, error) {
	rows, err := tx.QueryContext(ctx, `SELECT block, first_id, end_id, position, next_id FROM mapping_posting_blocks ORDER BY first_id`)
	if err != nil {
		return nil, fmt.Errorf("posting blocks: %w", err)
	}
	defer rows.Close()
	var out []mapping.PostingBlock
	for rows.Next() {
		var b mapping.PostingBlock
		if err := rows.Scan(&b.Block, &b.FirstID, &b.EndID, &b.Position, &b.NextID); err != nil {
			return nil, fmt.Errorf("posting blocks: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// PackKeywordPostings builds the blocks of posting lists that are missing,
// whose posts changed (postingsRebuildAfter), or that the log is about to
// be pruned past, at most postingsBlocksPerPack of them, and moves the
// position of the blocks none of whose posts changed up to the present. It
// returns how many blocks it built; nothing on SQLite. The leader's tick
// runs it before pruning the log.
func (s *Store) PackKeywordPostings(ctx context.Context) (int, error) {
	if !s.PacksKeywordPostings() {
		return 0, nil
	}
	build, err := s.planPostings(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: pack keyword postings: %w", err)
	}
	for i, block := range build {
		if err := s.buildPostingBlock(ctx, block); err != nil {
			return i, fmt.Errorf("store: pack keyword postings: block %d: %w", block, err)
		}
	}
	return len(build), nil
}

// planPostings returns the blocks to build, and moves the unchanged ones
// up to the present.
func (s *Store) planPostings(ctx context.Context) ([]int64, error) {
	tx, err := s.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	pos, pruned, err := s.logPosition(ctx, tx, postsLog)
	if err != nil {
		return nil, err
	}
	nextID, err := nextPostID(ctx, tx)
	if err != nil {
		return nil, err
	}
	blocks, err := readPostingBlocks(ctx, tx)
	if err != nil {
		return nil, err
	}
	size := s.blockSize()
	byBlock := map[int64]mapping.PostingBlock{}
	oldest := pos
	for _, b := range blocks {
		byBlock[b.Block] = b
		if !s.prunedPast(pruned, uint64(b.Position)) {
			oldest = min(oldest, uint64(b.Position))
		}
	}
	// Each block's posts logged since its own position.
	changed := map[int64]map[int64]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT id, xid::text FROM `+postsLog+` WHERE xid >= $1::text::xid8`, strconv.FormatUint(oldest, 10))
	if err != nil {
		return nil, fmt.Errorf("changed posts: %w", err)
	}
	for rows.Next() {
		var (
			id  int64
			xid string
		)
		if err := rows.Scan(&id, &xid); err != nil {
			rows.Close()
			return nil, fmt.Errorf("changed posts: %w", err)
		}
		x, err := strconv.ParseUint(xid, 10, 64)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("changed posts: xid %q: %w", xid, err)
		}
		b, ok := byBlock[id/size]
		if ok && x >= uint64(b.Position) {
			if changed[b.Block] == nil {
				changed[b.Block] = map[int64]bool{}
			}
			changed[b.Block][id] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("changed posts: %w", err)
	}
	// A block whose posts changed must be built again before pruning
	// (which keeps mappingLogKept rows) passes its position: past half of
	// them.
	var aging sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT xid::text FROM `+postsLog+` WHERE seq <= (SELECT MAX(seq) FROM `+postsLog+`) - $1
	    ORDER BY seq DESC LIMIT 1`, mappingLogKept/2).Scan(&aging); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("log: %w", err)
	}
	var agingXID uint64
	if aging.Valid {
		if agingXID, err = strconv.ParseUint(aging.String, 10, 64); err != nil {
			return nil, fmt.Errorf("log: xid %q: %w", aging.String, err)
		}
	}
	tx.Rollback() //nolint:errcheck // read-only

	var build, moved, from []int64
	total, most := 0, int64(-1)
	for block := int64(0); block <= (nextID-1)/size; block++ {
		b, ok := byBlock[block]
		n := len(changed[block])
		switch {
		case !ok, s.prunedPast(pruned, uint64(b.Position)), n >= s.rebuildAfter(), n > 0 && uint64(b.Position) <= agingXID:
			build = append(build, block)
		case n == 0 && uint64(b.Position) < pos:
			// Nothing of it changed since: it holds as of pos too.
			moved, from = append(moved, block), append(from, b.Position)
		default:
			total += n
			if most < 0 || n > len(changed[most]) {
				most = block
			}
		}
	}
	if total > s.rebuildAfter() {
		build = append(build, most)
	}
	if len(moved) > 0 {
		// Unless a build wrote it meanwhile.
		if _, err := s.db.ExecContext(ctx, `UPDATE mapping_posting_blocks b SET position = $1
		    FROM unnest($2::bigint[], $3::bigint[]) AS m(block, was) WHERE b.block = m.block AND b.position = m.was`,
			int64(pos), moved, from); err != nil {
			return nil, fmt.Errorf("move blocks: %w", err)
		}
	}
	slices.Sort(build)
	build = slices.Compact(build)
	return build[:min(len(build), postingsBlocksPerPack)], nil
}

// nextPostID is one past the largest post id tx's snapshot sees.
func nextPostID(ctx context.Context, tx *sql.Tx) (int64, error) {
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM mapping_posts`).Scan(&next); err != nil {
		return 0, fmt.Errorf("posts: %w", err)
	}
	return next, nil
}

// buildPostingBlock builds a block from its posts' text in a snapshot, then
// writes it in place of the one before, unless a newer one was written
// meanwhile.
func (s *Store) buildPostingBlock(ctx context.Context, block int64) error {
	size := s.blockSize()
	first, end := block*size, (block+1)*size
	tx, err := s.snapshot(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	pos, _, err := s.logPosition(ctx, tx, postsLog)
	if err != nil {
		return err
	}
	nextID, err := nextPostID(ctx, tx)
	if err != nil {
		return err
	}
	// Each post's text by its URN: a join would scan every post's text
	// for a block's (the planner's choice, 4 GB on the reference pool).
	texts, err := readTexts(ctx, tx, `SELECT id, TRUE, text FROM (
	    SELECT m.id, (SELECT p.text FROM pronet_posts p WHERE p.urn = m.urn) AS text
	      FROM mapping_posts m WHERE m.id >= $1 AND m.id < $2) b
	  WHERE text IS NOT NULL ORDER BY id`, []any{first, end})
	if err != nil {
		return fmt.Errorf("posts' text: %w", err)
	}
	b := mapping.NewPostingsBuilder()
	for _, p := range texts {
		b.Add(p.ID, mapping.IndexText(p.Text))
	}
	tx.Rollback() //nolint:errcheck // read-only
	lexemes, lists := b.Lists()
	bytes := 0
	for _, l := range lists {
		bytes += len(l)
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		// One builder of a block at a time. Advisory locks are the whole
		// database's: the class is the schema's, so that deployments (and
		// test servers) in other schemas of one database never wait on it.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.posting_blocks'), $1::int)`, block); err != nil {
			return err
		}
		var at int64
		err := tx.QueryRowContext(ctx, `SELECT position FROM mapping_posting_blocks WHERE block = $1`, block).Scan(&at)
		switch {
		case err == nil && at >= int64(pos):
			return nil // a build as new or newer is there
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM mapping_postings WHERE block = $1`, block); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO mapping_postings (lexeme, block, list)
		    SELECT l, $1, d FROM unnest($2::text[], $3::bytea[]) AS t(l, d)`, block, lexemes, lists); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO mapping_posting_blocks (block, first_id, end_id, position, next_id, posts, bytes)
		    VALUES ($1, $2, $3, $4, $5, $6, $7)
		    ON CONFLICT (block) DO UPDATE SET first_id = excluded.first_id, end_id = excluded.end_id, position = excluded.position,
		      next_id = excluded.next_id, posts = excluded.posts, bytes = excluded.bytes`,
			block, first, end, int64(pos), nextID, len(texts), bytes)
		return err
	})
}

// KeywordPostings is the state of the posting lists: how many blocks and
// posts they hold and their lists' bytes (bench/mapping prints it).
type KeywordPostings struct {
	Blocks, Posts int
	Bytes         int64
}

// KeywordPostingsHeld reads the state of the posting lists.
func (s *Store) KeywordPostingsHeld(ctx context.Context) (KeywordPostings, error) {
	var out KeywordPostings
	if !s.PacksKeywordPostings() {
		return out, nil
	}
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(posts), 0), COALESCE(SUM(bytes), 0) FROM mapping_posting_blocks`).
		Scan(&out.Blocks, &out.Posts, &out.Bytes)
	if err != nil {
		return out, fmt.Errorf("store: keyword postings: %w", err)
	}
	return out, nil
}

// ForgetKeywordPostings drops the posting lists, so that lookups ask the
// keyword index until the next PackKeywordPostings (bench/mapping compares
// both); nothing on SQLite.
func (s *Store) ForgetKeywordPostings(ctx context.Context) error {
	if !s.PacksKeywordPostings() {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM mapping_posting_blocks`); err != nil {
			return fmt.Errorf("store: forget keyword postings: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM mapping_postings`); err != nil {
			return fmt.Errorf("store: forget keyword postings: %w", err)
		}
		return nil
	})
}

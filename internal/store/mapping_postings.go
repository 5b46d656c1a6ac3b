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
// list per word and hashtag, read whole by the lexemes a query needs.
//
// A block says what its posts' text said in the snapshot it was built in
// (position: that snapshot's xmin in mapping_posts_log). Whatever changed
// since, a post stored, deleted, moved or given a new text, was logged at
// or after that position, so a lookup reads the lists and decides the
// posts logged since the oldest block's position by their text, as it
// does for the entries other processes shared. The leader's tick
// (PackKeywordPostings) builds the blocks again as their posts change,
// before the log is pruned past them; until every block is built, or when
// more posts changed than a lookup decides, the lookup asks GIN.
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

// postingBlock is a block's row in mapping_posting_blocks.
type postingBlock struct {
	block, firstID, endID int64
	position, nextID      int64
}

// readPostingBlocks reads the blocks, by first id.
func readPostingBlocks(ctx context.Context, tx *sql.Tx) ([]postingBlock, error) {
	rows, err := tx.QueryContext(ctx, `SELECT block, first_id, end_id, position, next_id FROM mapping_posting_blocks ORDER BY first_id`)
	if err != nil {
		return nil, fmt.Errorf("posting blocks: %w", err)
	}
	defer rows.Close()
	var out []postingBlock
	for rows.Next() {
		var b postingBlock
		if err := rows.Scan(&b.block, &b.firstID, &b.endID, &b.position, &b.nextID); err != nil {
			return nil, fmt.Errorf("posting blocks: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// covering reports whether blocks hold every post up to the log's present:
// consecutive from id 0, and no post past the last block when it was
// built (one stored since was logged after its position); oldest is the
// lowest position.
func (s *Store) covering(blocks []postingBlock, pruned uint64) (oldest uint64, ok bool) {
	if len(blocks) == 0 {
		return 0, false
	}
	end := int64(0)
	for i, b := range blocks {
		if b.firstID != end || b.position < 0 || s.prunedPast(pruned, uint64(b.position)) {
			return 0, false
		}
		if i == 0 || uint64(b.position) < oldest {
			oldest = uint64(b.position)
		}
		end = b.endID
	}
	return oldest, blocks[len(blocks)-1].nextID <= end
}

// loadPostings puts in fills the entries of queries read from the posting
// lists, brought up to tx's snapshot (pruned is how far the log was pruned
// in it), and returns the queries still to ask the index: all of them
// when the blocks do not cover the posts or too many posts changed since.
func (s *Store) loadPostings(ctx context.Context, tx *sql.Tx, queries []indexQuery, pruned uint64, fills map[string]*matchEntry) ([]indexQuery, error) {
	if !s.PacksKeywordPostings() || len(queries) == 0 {
		return queries, nil
	}
	blocks, err := readPostingBlocks(ctx, tx)
	if err != nil {
		return nil, err
	}
	oldest, ok := s.covering(blocks, pruned)
	if !ok {
		return queries, nil
	}
	var lexemes []string
	for _, q := range queries {
		lexemes = append(lexemes, mapping.PostingLexemes(q.k)...)
	}
	slices.Sort(lexemes)
	lists := map[int64]map[string][]byte{}
	rows, err := tx.QueryContext(ctx, `SELECT block, lexeme, list FROM mapping_postings WHERE lexeme = ANY($1)`, slices.Compact(lexemes))
	if err != nil {
		return nil, fmt.Errorf("posting lists: %w", err)
	}
	for rows.Next() {
		var (
			block  int64
			lexeme string
			list   []byte
		)
		if err := rows.Scan(&block, &lexeme, &list); err != nil {
			rows.Close()
			return nil, fmt.Errorf("posting lists: %w", err)
		}
		if lists[block] == nil {
			lists[block] = map[string][]byte{}
		}
		lists[block][lexeme] = list
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("posting lists: %w", err)
	}
	// The blocks are independent: the two halves are matched side by
	// side, on two cores, and their posts put end to end.
	m, half := matcherOf(queries), len(blocks)/2
	var (
		early, late       [][]int64
		earlyErr, lateErr error
	)
	sideBySide(func() { early, earlyErr = matchBlocks(queries, m, blocks[:half], lists) },
		func() { late, lateErr = matchBlocks(queries, m, blocks[half:], lists) })
	if err := cmp.Or(earlyErr, lateErr); err != nil {
		return nil, err
	}
	loaded := make([]*matchEntry, len(queries))
	for i, q := range queries {
		loaded[i] = &matchEntry{query: q, ids: slices.Concat(early[i], late[i])}
	}
	s.matches.postingReads.Add(1)
	// The posts logged since their own block's position, or past the
	// blocks: those since the oldest would be the posts of every block
	// built since, hundreds more to decide.
	changed := `SELECT DISTINCT l.id FROM ` + postsLog + ` l LEFT JOIN mapping_posting_blocks b ON l.id >= b.first_id AND l.id < b.end_id
	  WHERE l.xid >= $1::text::xid8 AND (b.block IS NULL OR l.xid >= b.position::text::xid8)`
	return s.catchUp(ctx, tx, loaded, changed, []any{strconv.FormatUint(oldest, 10)}, fills)
}

// matcherOf is the posting lists' matcher of queries.
func matcherOf(queries []indexQuery) *mapping.PostingMatcher {
	asked := make([]mapping.PostingQuery, len(queries))
	for i, q := range queries {
		asked[i] = mapping.PostingQuery{K: q.k, Level: q.level}
	}
	return mapping.NewPostingMatcher(asked)
}

// matchBlocks returns the posts each of queries (m matches them) matches
// in the lists of blocks (ascending, as the blocks are).
func matchBlocks(queries []indexQuery, m *mapping.PostingMatcher, blocks []postingBlock, lists map[int64]map[string][]byte) ([][]int64, error) {
	out := make([][]int64, len(queries))
	for i, q := range queries {
		// Sized once: an entry takes three bytes at least (id, count, a
		// position), and a common word's ids are hundreds of thousands.
		lexes, hint := mapping.PostingLexemes(q.k), 0
		for _, b := range blocks {
			if len(lexes) == 0 {
				break // a keyword without a word matches nothing
			}
			least := len(lists[b.block][lexes[0]])
			for _, lex := range lexes[1:] {
				least = min(least, len(lists[b.block][lex]))
			}
			hint += least / 3
		}
		out[i] = make([]int64, 0, hint)
	}
	for _, b := range blocks {
		if err := m.Match(func(lex string) []byte { return lists[b.block][lex] }, out); err != nil {
			return nil, fmt.Errorf("posting lists of block %d: %w", b.block, err)
		}
	}
	return out, nil
}

// catchUp decides the posts the subquery changed names (with args) for
// entries read as of an older snapshot, and puts them in fills; when more
// posts changed than a lookup decides, it returns their queries, to ask
// the index. Deciding again a post that changed before an entry was read
// changes nothing.
func (s *Store) catchUp(ctx context.Context, tx *sql.Tx, loaded []*matchEntry, changed string, args []any, fills map[string]*matchEntry) ([]indexQuery, error) {
	texts, err := changedTexts(ctx, tx, changed, args)
	if err != nil {
		return nil, err
	}
	var ask []indexQuery
	for _, e := range loaded {
		if len(texts) > maxChangedPosts {
			// Refilling from the index costs less than deciding them.
			ask = append(ask, e.query)
			continue
		}
		e.decide(texts)
		fills[e.query.key()] = e
	}
	return ask, nil
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
	byBlock := map[int64]postingBlock{}
	oldest := pos
	for _, b := range blocks {
		byBlock[b.block] = b
		if !s.prunedPast(pruned, uint64(b.position)) {
			oldest = min(oldest, uint64(b.position))
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
		if ok && x >= uint64(b.position) {
			if changed[b.block] == nil {
				changed[b.block] = map[int64]bool{}
			}
			changed[b.block][id] = true
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
		case !ok, s.prunedPast(pruned, uint64(b.position)), n >= s.rebuildAfter(), n > 0 && uint64(b.position) <= agingXID:
			build = append(build, block)
		case n == 0 && uint64(b.position) < pos:
			// Nothing of it changed since: it holds as of pos too.
			moved, from = append(moved, block), append(from, b.position)
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
		b.Add(p.id, mapping.IndexText(p.text))
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

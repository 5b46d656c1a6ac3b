package mapping

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// Where the pool keeps posting lists of the keyword index (PostgreSQL:
// Pool.PacksPostings, built by the store's PackKeywordPostings in blocks
// of consecutive post ids, one list per word and hashtag; postings.go), a
// lookup's new keywords are read from them rather than from GIN, which
// returns row locations and then costs a visit to each matching post's
// heap page, 0.1-0.2 s for a typical keyword on two million posts.
//
// A block says what its posts' text said in the snapshot it was built in
// (its position in the posts log). Whatever changed since, a post stored,
// deleted, moved or given a new text, was logged at or after that
// position, so a lookup reads the lists and decides the posts logged since
// their block's position by their text, as it does for the entries other
// processes shared. Until every block is built, or when more posts changed
// than a lookup decides, the lookup asks the index.

// covering reports whether blocks hold every post up to the log's present:
// consecutive from id 0, and no post past the last block when it was
// built (one stored since was logged after its position); oldest is the
// lowest position.
func (e *Engine) covering(blocks []PostingBlock, pruned uint64) (oldest uint64, ok bool) {
	if len(blocks) == 0 {
		return 0, false
	}
	end := int64(0)
	for i, b := range blocks {
		if b.FirstID != end || b.Position < 0 || e.pool.PrunedPast(pruned, uint64(b.Position)) {
			return 0, false
		}
		if i == 0 || uint64(b.Position) < oldest {
			oldest = uint64(b.Position)
		}
		end = b.EndID
	}
	return oldest, blocks[len(blocks)-1].NextID <= end
}

// loadPostings puts in fills the entries of queries read from the posting
// lists, brought up to snap (pruned is how far the log was pruned in it),
// and returns the queries still to ask the index: all of them when the
// blocks do not cover the posts or too many posts changed since.
func (e *Engine) loadPostings(ctx context.Context, snap Snapshot, queries []indexQuery, pruned uint64, fills map[string]*matchEntry) ([]indexQuery, error) {
	if !e.pool.PacksPostings() || len(queries) == 0 {
		return queries, nil
	}
	blocks, err := snap.PostingBlocks(ctx)
	if err != nil {
		return nil, fmt.Errorf("posting blocks: %w", err)
	}
	oldest, ok := e.covering(blocks, pruned)
	if !ok {
		return queries, nil
	}
	var lexemes []string
	for _, q := range queries {
		lexemes = append(lexemes, PostingLexemes(q.k)...)
	}
	slices.Sort(lexemes)
	lists, err := snap.PostingLists(ctx, slices.Compact(lexemes))
	if err != nil {
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
	e.matches.postingReads.Add(1)
	// The posts logged since their own block's position, or past the
	// blocks: those since the oldest would be the posts of every block
	// built since, hundreds more to decide.
	texts, err := snap.ChangedSinceBlocks(ctx, oldest, maxChangedPosts+1)
	if err != nil {
		return nil, fmt.Errorf("changed posts: %w", err)
	}
	return catchUp(loaded, texts, fills), nil
}

// matcherOf is the posting lists' matcher of queries.
func matcherOf(queries []indexQuery) *PostingMatcher {
	asked := make([]PostingQuery, len(queries))
	for i, q := range queries {
		asked[i] = PostingQuery{K: q.k, Level: q.level}
	}
	return NewPostingMatcher(asked)
}

// matchBlocks returns the posts each of queries (m matches them) matches
// in the lists of blocks (ascending, as the blocks are).
func matchBlocks(queries []indexQuery, m *PostingMatcher, blocks []PostingBlock, lists map[int64]map[string][]byte) ([][]int64, error) {
	out := make([][]int64, len(queries))
	for i, q := range queries {
		// Sized once: an entry takes three bytes at least (id, count, a
		// position), and a common word's ids are hundreds of thousands.
		lexes, hint := PostingLexemes(q.k), 0
		for _, b := range blocks {
			if len(lexes) == 0 {
				break // a keyword without a word matches nothing
			}
			least := len(lists[b.Block][lexes[0]])
			for _, lex := range lexes[1:] {
				least = min(least, len(lists[b.Block][lex]))
			}
			hint += least / 3
		}
		out[i] = make([]int64, 0, hint)
	}
	for _, b := range blocks {
		if err := m.Match(func(lex string) []byte { return lists[b.Block][lex] }, out); err != nil {
			return nil, fmt.Errorf("posting lists of block %d: %w", b.Block, err)
		}
	}
	return out, nil
}

// catchUp decides the changed posts (texts) for entries read as of an
// older snapshot, and puts them in fills; when more posts changed than a
// lookup decides, it returns their queries, to ask the index. Deciding
// again a post that changed before an entry was read changes nothing.
func catchUp(loaded []*matchEntry, texts []PostText, fills map[string]*matchEntry) []indexQuery {
	var ask []indexQuery
	for _, m := range loaded {
		if len(texts) > maxChangedPosts {
			// Refilling from the index costs less than deciding them.
			ask = append(ask, m.query)
			continue
		}
		m.decide(texts)
		fills[m.query.key()] = m
	}
	return ask
}

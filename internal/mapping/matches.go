package mapping

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// keywordMatches keeps, in this process, the posts each keyword index query
// matched, so that a query over keywords asked before skips the index.
// Asked of the database, a typical query's keywords cost 30-100 ms on
// PostgreSQL however its tables are laid out (GIN returns row locations,
// and each matching post costs a heap visit; docs/decisions.md), and 4-56
// ms in SQLite's FTS5 on the full pool.
//
// An entry holds what the post's text says, not what the index holds:
// filled from the index plus the posts whose index is pending (read by
// their text), then kept exact through mapping_posts_log like the copies
// (copyState). The log names every post stored, deleted or moved, and
// every post whose text changed (migration 00022); each such post is
// decided again by Hits, which counts exactly as the index does.
// A post's index being written or dropped changes no entry. Entries of a
// loose keyword ("product-led") may hold more posts than mention it, as
// the index does: the text decides those.
type keywordMatches struct {
	copyState
	entries map[string]*matchEntry
	// order links the entries, the most recently used at the front, so
	// that finding the least recently used costs nothing however many
	// entries there are.
	order list.List
	// byWord finds the entries by their word (matchEntry.word), and held
	// are those that hold posts: after changes, a lookup visits the
	// entries whose word a changed text has and those that may hold a
	// changed post, never the others (most of a full cache can be
	// keywords that matched nothing).
	byWord map[string][]*matchEntry
	held   map[*matchEntry]struct{}
	// bytes is about how much memory the entries take (matchEntry.size),
	// ids how many post ids they hold.
	bytes, ids int
	// budget bounds bytes but for the entries of the lookup being
	// answered (TRAWL_MAPPING_CACHE_BYTES); 0 is DefaultKeywordMatchBytes.
	budget int
	// uses numbers the lookups: an entry used by the current one is not
	// evicted.
	uses uint64
	// indexAsks counts the times the index was asked, postingReads the
	// times the posting lists were read (tests).
	indexAsks, postingReads atomic.Int64
	// atOnce, when set (tests), is maxAsksAtOnce instead.
	atOnce int
}

// DefaultKeywordMatchBytes is the default budget of the entries: a
// typical query's keywords match 10,000-40,000 posts each on the
// reference pool (80-320 KB of ids an entry), so 64 MiB keeps a few
// hundred of them.
const DefaultKeywordMatchBytes = 64 << 20

// maxChangedPosts is the most changed posts a lookup decides one by one;
// after more (a bulk load) it forgets every entry, as refilling the few
// asked for costs less.
const maxChangedPosts = 10_000

// indexQuery asks the keyword index for the posts that mention keyword,
// as the API query gave it, at least level times: text is the index query
// (Pool.TermsQuery), which for a loose keyword only narrows down.
type indexQuery struct {
	keyword string
	k       Keyword
	level   int
	text    string
}

// indexQuery asks about keyword, which the index sees as k, at level.
func (e *Engine) indexQuery(keyword string, k Keyword, level int) indexQuery {
	return indexQuery{keyword: keyword, k: k, level: level, text: e.pool.TermsQuery(k, level)}
}

// key tells entries apart: two keywords may share an index query
// ("product-led" and "product–led") but not what Hits counts.
func (q indexQuery) key() string {
	return q.text + "\x00" + strings.ToLower(strings.TrimSpace(q.keyword))
}

// mentions reports whether text mentions the keyword at least level times.
func (q indexQuery) mentions(text string) bool {
	return Hits(text, []string{q.keyword}) >= q.level
}

type matchEntry struct {
	query indexQuery
	ids   []int64 // ascending
	used  uint64
	// key is query.key(), size what the entry was accounted as when it
	// was last kept or changed, at its place in keywordMatches.order.
	key  string
	size int
	at   *list.Element
	// word is the keyword's longest word: a text without it does not
	// mention the keyword (Words).
	word string
}

// entryOverhead is about what an entry costs besides its strings and ids:
// the map's slot, the entry, its place in the order, the query's slices.
const entryOverhead = 320

// footprint is about how many bytes the entry takes: what it matched
// nothing for costs its key and query all the same, so an entry is
// accounted for whatever it holds.
func (e *matchEntry) footprint() int {
	n := entryOverhead + len(e.key) + len(e.query.keyword) + len(e.query.text) + len(e.query.k.Pair) + len(e.word) +
		8*cap(e.ids) + 8*len(e.query.k.Gaps)
	for _, lex := range e.query.k.Lexemes {
		n += 16 + len(lex)
	}
	return n
}

// matchPosts calls fn with the posts each of queries matches (ascending;
// fn must not keep them), from the entries, asking the index for those
// missing.
func (e *Engine) matchPosts(ctx context.Context, queries []indexQuery, fn func(i int, ids []int64)) error {
	if len(queries) == 0 {
		return nil
	}
	c := &e.matches
	// The index is asked outside the lock that brings the entries up to
	// date (a typical keyword takes 0.1-0.25 s on PostgreSQL, and every
	// other query would wait), in a snapshot of its own, caught up below.
	c.mu.RLock()
	var missing []indexQuery
	for _, q := range queries {
		// Once each: two keywords may share an entry ("RevOps", "revops").
		if _, ok := c.entries[q.key()]; !ok && !slices.ContainsFunc(missing, func(m indexQuery) bool { return m.key() == q.key() }) {
			missing = append(missing, q)
		}
	}
	c.mu.RUnlock()
	fills, filledAt, err := e.askIndexApart(ctx, missing)
	if err != nil {
		return fmt.Errorf("keyword matches: %w", err)
	}
	if e.afterMatchFill != nil && fills != nil {
		e.afterMatchFill()
	}
	err = e.syncCopy(ctx, &c.copyState, PostsLog, func(snap Snapshot, whole bool, from uint64) (func(bool), error) {
		var texts []PostText
		if !whole && len(c.entries) > 0 {
			var err error
			if texts, err = snap.ChangedPosts(ctx, from, maxChangedPosts+1); err != nil {
				return nil, fmt.Errorf("changed posts: %w", err)
			}
		}
		forget := whole || len(texts) > maxChangedPosts
		// The fills have not seen what changed after their snapshot.
		var late []PostText
		if len(fills) > 0 {
			_, pruned, err := snap.Position(ctx, PostsLog)
			if err != nil {
				return nil, err
			}
			if !e.pool.PrunedPast(pruned, filledAt) {
				if late, err = snap.ChangedPosts(ctx, filledAt, maxChangedPosts+1); err != nil {
					return nil, fmt.Errorf("changed posts: %w", err)
				}
			}
			if e.pool.PrunedPast(pruned, filledAt) || len(late) > maxChangedPosts {
				fills = nil
			}
		}
		// What is still missing (the fills dropped, or entries emptied or
		// evicted meanwhile) is asked in this snapshot. The entries only
		// change under the refresh lock this holds.
		var still []indexQuery
		for _, q := range queries {
			if _, ok := c.entries[q.key()]; fills[q.key()] == nil && (forget || !ok) {
				still = append(still, q)
			}
		}
		more, err := e.askIndex(ctx, snap, still)
		if err != nil {
			return nil, err
		}
		return func(bool) {
			if forget {
				c.clear()
			} else if len(texts) > 0 {
				c.decideChanged(texts)
			}
			for key, m := range fills {
				m.decide(late)
				c.put(key, m)
			}
			for key, m := range more {
				c.put(key, m)
			}
			c.lookedUp(queries)
		}, nil
	})
	if err != nil {
		return fmt.Errorf("keyword matches: %w", err)
	}
	defer c.mu.RUnlock()
	for i, q := range queries {
		fn(i, c.entries[q.key()].ids)
	}
	return nil
}

// askIndexApart asks the index for queries (of distinct keys) in a
// snapshot of its own and returns the entries and the snapshot's position
// in the posts log.
func (e *Engine) askIndexApart(ctx context.Context, queries []indexQuery) (map[string]*matchEntry, uint64, error) {
	if len(queries) == 0 {
		return nil, 0, nil
	}
	snap, err := e.pool.Snapshot(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer snap.Close()
	// The first read: it fixes the snapshot.
	pos, pruned, err := snap.Position(ctx, PostsLog)
	if err != nil {
		return nil, 0, err
	}
	fills := map[string]*matchEntry{}
	if e.pool.SharesMatches() {
		if queries, err = e.loadSharedMatches(ctx, snap, queries, pruned, fills); err != nil {
			return nil, 0, err
		}
	}
	if queries, err = e.loadPostings(ctx, snap, queries, pruned, fills); err != nil {
		return nil, 0, err
	}
	var asked map[string]*matchEntry
	if len(queries) < 2 {
		asked, err = e.askIndex(ctx, snap, queries)
	} else {
		// pos is fixed: the snapshot's connection goes back to the pool
		// before the queries take theirs, so that no lookup holds one
		// while it waits for others.
		snap.Close()
		asked, err = e.askIndexSideBySide(ctx, queries)
	}
	if err != nil {
		return nil, 0, err
	}
	if e.pool.SharesMatches() {
		// Before the entries change: they are stored as of pos.
		if err := e.shareMatches(ctx, asked, pos); err != nil {
			return nil, 0, err
		}
	}
	maps.Copy(fills, asked)
	return fills, pos, nil
}

// maxAsksAtOnce bounds the index queries one lookup runs side by side.
const maxAsksAtOnce = 4

// askIndexSideBySide is askIndex for several queries, each in a snapshot
// and on a connection of its own, side by side (at most maxAsksAtOnce at a
// time): a lookup's keywords are independent index queries, and on the
// first call over them they are most of its time. The snapshots are taken
// after the one whose log position the caller (askIndexApart) catches
// every entry up from: deciding again a post logged after that position
// but seen by a later snapshot changes nothing, and whatever the later
// snapshots missed was logged after it.
func (e *Engine) askIndexSideBySide(ctx context.Context, queries []indexQuery) (map[string]*matchEntry, error) {
	e.matches.indexAsks.Add(1)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		fills = make(map[string]*matchEntry, len(queries))
		errs  []error
		slots = make(chan struct{}, cmp.Or(e.matches.atOnce, maxAsksAtOnce))
	)
	for _, q := range queries {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			one, err := e.askIndexAlone(ctx, q)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			maps.Copy(fills, one)
		})
	}
	wg.Wait()
	return fills, errors.Join(errs...)
}

// askIndexAlone fills the entry of q in a snapshot of its own.
func (e *Engine) askIndexAlone(ctx context.Context, q indexQuery) (map[string]*matchEntry, error) {
	snap, err := e.pool.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	fills, err := e.fillEntries(ctx, snap, []indexQuery{q})
	if e.afterAskAlone != nil {
		e.afterAskAlone(q.keyword)
	}
	return fills, err
}

// askIndex makes the entries of queries in snap: the posts the index
// matches, and the pending posts whose text mentions the keyword.
func (e *Engine) askIndex(ctx context.Context, snap Snapshot, queries []indexQuery) (map[string]*matchEntry, error) {
	if len(queries) > 0 {
		e.matches.indexAsks.Add(1)
	}
	return e.fillEntries(ctx, snap, queries)
}

// fillEntries is askIndex without the count of asks.
func (e *Engine) fillEntries(ctx context.Context, snap Snapshot, queries []indexQuery) (map[string]*matchEntry, error) {
	fills := map[string]*matchEntry{}
	var pending []PostText
	for _, q := range queries {
		if pending == nil {
			var err error
			if pending, err = snap.PendingPosts(ctx); err != nil {
				return nil, fmt.Errorf("pending posts: %w", err)
			}
			pending = slices.Clip(pending) // not nil: read once
			if pending == nil {
				pending = []PostText{}
			}
		}
		ids, err := snap.IndexMatches(ctx, q.text)
		if err != nil {
			return nil, err
		}
		for _, p := range pending {
			if q.mentions(p.Text) {
				ids = append(ids, p.ID)
			}
		}
		slices.Sort(ids)
		fills[q.key()] = &matchEntry{query: q, ids: slices.Compact(ids)}
	}
	return fills, nil
}

// WarmKeywordMatches asks the keyword index about the keywords of the
// deployment's topics that this process holds no entry for, newest topics
// first, as a query of strength 1 would, while the entries hold less than
// half their bound: the pool is what those keywords collected, so social
// mapping and creator queries tend to ask about them, and their first call
// then skips the index. Entries held already are left as they are (their
// place in the eviction order is what queries made it). trawl serve runs
// it at start-up, after loading the copies, and then on every tick, so a
// topic created by any process has its keywords asked about within a
// tick. It returns how many keywords it asked about.
func (e *Engine) WarmKeywordMatches(ctx context.Context) (int, error) {
	topics, err := e.pool.Topics(ctx)
	if err != nil {
		return 0, fmt.Errorf("mapping: warm keyword matches: %w", err)
	}
	var queries []indexQuery
	seen := map[string]bool{}
	for _, t := range topics {
		for _, keyword := range slices.Concat(t.Keywords, t.KeywordsAnd) {
			if KeywordProblem(strings.TrimSpace(keyword)) != "" {
				continue // no query may ask about it
			}
			if k := e.pool.PlanKeyword(keyword); k.Kind != KeywordNone {
				q := e.indexQuery(keyword, k, 1)
				if !seen[q.key()] {
					seen[q.key()] = true
					queries = append(queries, q)
				}
			}
		}
	}
	c := &e.matches
	c.mu.RLock()
	queries = slices.DeleteFunc(queries, func(q indexQuery) bool { return c.entries[q.key()] != nil })
	c.mu.RUnlock()
	asked := 0
	for batch := range slices.Chunk(queries, 16) {
		c.mu.RLock()
		full := c.bytes >= c.bound()/2
		c.mu.RUnlock()
		if full {
			break
		}
		if err := e.matchPosts(ctx, batch, func(int, []int64) {}); err != nil {
			return asked, fmt.Errorf("mapping: warm keyword matches: %w", err)
		}
		asked += len(batch)
	}
	return asked, nil
}

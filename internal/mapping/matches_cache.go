package mapping

import (
	"cmp"
	"slices"
)

// put keeps e under key, in place of any entry there, as the most
// recently used.
func (c *keywordMatches) put(key string, e *matchEntry) {
	if old, ok := c.entries[key]; ok {
		c.drop(old)
	}
	e.key = key
	for _, w := range Words(e.query.keyword) {
		if len(w) > len(e.word) {
			e.word = w
		}
	}
	e.size = e.footprint() // of the key and word too
	e.at = c.order.PushFront(e)
	c.entries[key] = e
	c.byWord[e.word] = append(c.byWord[e.word], e)
	c.account(e)
	c.bytes += e.size
	c.ids += len(e.ids)
}

// drop forgets e.
func (c *keywordMatches) drop(e *matchEntry) {
	c.order.Remove(e.at)
	delete(c.entries, e.key)
	if same := slices.DeleteFunc(c.byWord[e.word], func(o *matchEntry) bool { return o == e }); len(same) > 0 {
		c.byWord[e.word] = same
	} else {
		delete(c.byWord, e.word)
	}
	delete(c.held, e)
	c.bytes -= e.size
	c.ids -= len(e.ids)
}

// account notes whether e holds posts.
func (c *keywordMatches) account(e *matchEntry) {
	if len(e.ids) > 0 {
		c.held[e] = struct{}{}
	} else {
		delete(c.held, e)
	}
}

// use marks e as used by the lookup being answered.
func (c *keywordMatches) use(e *matchEntry) {
	e.used = c.uses
	c.order.MoveToFront(e.at)
}

// lookedUp marks the entries of queries (all held) as used by the lookup
// being answered, then evicts what is over the bound.
func (c *keywordMatches) lookedUp(queries []indexQuery) {
	c.uses++
	for _, q := range queries {
		c.use(c.entries[q.key()])
	}
	c.evict()
}

// decideChanged decides the changed posts for every entry: by their text
// for the entries whose word one of them has, and for the others, which no
// changed text mentions, by taking out the changed posts they held. The
// entries that hold no post and whose word no text has are not visited.
func (c *keywordMatches) decideChanged(texts []PostText) {
	decided := map[*matchEntry]bool{}
	changed := make(map[int64]bool, len(texts))
	for _, p := range texts {
		changed[p.ID] = true
		if !p.Present {
			continue
		}
		for _, w := range Words(p.Text) {
			for _, e := range c.byWord[w] {
				if !decided[e] {
					c.redecide(e, func() int { return e.decide(texts) })
					decided[e] = true
				}
			}
		}
	}
	for e := range c.held {
		if !decided[e] {
			c.redecide(e, func() int { return e.forget(changed) })
		}
	}
}

// redecide runs decide on e's posts and accounts for what it gained or
// lost.
func (c *keywordMatches) redecide(e *matchEntry, decide func() int) {
	held := cap(e.ids)
	c.ids += decide()
	c.account(e)
	if cap(e.ids) != held {
		size := e.footprint()
		c.bytes += size - e.size
		e.size = size
	}
}

// clear forgets every entry.
func (c *keywordMatches) clear() {
	c.entries, c.bytes, c.ids = map[string]*matchEntry{}, 0, 0
	c.byWord, c.held = map[string][]*matchEntry{}, map[*matchEntry]struct{}{}
	c.order.Init()
}

// decide puts each changed post in the entry when its text mentions the
// keyword often enough, and takes it out otherwise; it returns how many
// ids the entry gained.
func (e *matchEntry) decide(texts []PostText) int {
	n := 0
	for _, p := range texts {
		i, in := slices.BinarySearch(e.ids, p.ID)
		switch mentions := p.Present && e.query.mentions(p.Text); {
		case mentions && !in:
			e.ids = slices.Insert(e.ids, i, p.ID)
			n++
		case !mentions && in:
			e.ids = slices.Delete(e.ids, i, i+1)
			n--
		}
	}
	return n
}

// forget takes the changed posts out of the entry, when none of their
// texts mentions the keyword; it returns how many ids the entry gained
// (so, lost).
func (e *matchEntry) forget(changed map[int64]bool) int {
	n := len(e.ids)
	if len(e.ids) <= len(changed) {
		e.ids = slices.DeleteFunc(e.ids, func(id int64) bool { return changed[id] })
		return len(e.ids) - n
	}
	for id := range changed {
		if i, in := slices.BinarySearch(e.ids, id); in {
			e.ids = slices.Delete(e.ids, i, i+1)
		}
	}
	return len(e.ids) - n
}

// bound is the most bytes the entries take.
func (c *keywordMatches) bound() int {
	return cmp.Or(c.budget, DefaultKeywordMatchBytes)
}

// evict drops the least recently used entries while they take more than
// the bound, never those of the lookup being answered (they are at the
// front of the order).
func (c *keywordMatches) evict() {
	for c.bytes > c.bound() {
		back := c.order.Back()
		if back == nil || back.Value.(*matchEntry).used == c.uses {
			return
		}
		c.drop(back.Value.(*matchEntry))
	}
}

// KeywordMatches is what this process's keyword matches hold.
type KeywordMatches struct {
	// Entries is how many keywords (at a strength) are kept, Posts how
	// many post ids they hold, Bytes about how much memory they take, at
	// most Budget but for the entries of the lookup being answered.
	Entries, Posts, Bytes, Budget int
}

// KeywordMatchesHeld is what this process's keyword matches hold.
func (e *Engine) KeywordMatchesHeld() KeywordMatches {
	c := &e.matches
	c.mu.RLock()
	defer c.mu.RUnlock()
	return KeywordMatches{Entries: len(c.entries), Posts: c.ids, Bytes: c.bytes, Budget: c.bound()}
}

// IndexAsks is how many times this engine asked the keyword index, and
// PostingReads how many times it read the posting lists, for a lookup's
// keywords it held no entry for.
func (e *Engine) IndexAsks() int64    { return e.matches.indexAsks.Load() }
func (e *Engine) PostingReads() int64 { return e.matches.postingReads.Load() }

// SetKeywordMatchBudget bounds the memory this process's keyword matches
// take, in bytes (TRAWL_MAPPING_CACHE_BYTES); 0 is
// DefaultKeywordMatchBytes. The next lookup keeps to it.
func (e *Engine) SetKeywordMatchBudget(bytes int) {
	c := &e.matches
	c.mu.Lock()
	defer c.mu.Unlock()
	c.budget = bytes
}

// ForgetKeywordMatches empties this process's entries of keyword matches,
// so that the next query asks the keyword index, or on PostgreSQL loads
// those the processes share (the store's ForgetSharedKeywordMatches
// empties those): bench/mapping times such first calls.
func (e *Engine) ForgetKeywordMatches() {
	c := &e.matches
	c.refresh.Lock()
	defer c.refresh.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
}

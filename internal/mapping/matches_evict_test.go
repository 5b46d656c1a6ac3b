package mapping

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The keyword matches are bounded by bytes: every entry is accounted
// whatever it holds (an entry that matched nothing takes its key and
// query), the least recently used go first, and never those of the lookup
// being answered.
func TestKeywordMatchesEvictBySize(t *testing.T) {
	var (
		c  keywordMatches
		s  = NewEngine(termsOnly{})
		qs = map[string]indexQuery{}
	)
	c.clear()
	query := func(keyword string) indexQuery {
		if _, ok := qs[keyword]; !ok {
			qs[keyword] = s.indexQuery(keyword, PlanKeyword(keyword), 1)
		}
		return qs[keyword]
	}
	// lookup answers one lookup over keywords, filling those missing
	// with ids (none: matched nothing).
	lookup := func(ids []int64, keywords ...string) {
		var queries []indexQuery
		for _, k := range keywords {
			q := query(k)
			if c.entries[q.key()] == nil {
				c.put(q.key(), &matchEntry{query: q, ids: slices.Clone(ids)})
			}
			queries = append(queries, q)
		}
		c.lookedUp(queries)
	}
	held := func() []string {
		var out []string
		for e := c.order.Front(); e != nil; e = e.Next() {
			out = append(out, e.Value.(*matchEntry).query.keyword)
		}
		return out
	}
	accounted := func() int {
		n := 0
		for _, e := range c.entries {
			if e.size != e.footprint() {
				t.Errorf("%q accounted as %d bytes, takes %d", e.query.keyword, e.size, e.footprint())
			}
			n += e.footprint()
		}
		return n
	}
	one := func() int {
		var probe keywordMatches
		probe.clear()
		probe.put(query("aaaa").key(), &matchEntry{query: query("aaaa")})
		return probe.bytes
	}()
	if one < entryOverhead+4 {
		t.Fatalf("an empty entry is accounted as %d bytes", one)
	}
	c.budget = 2 * one // two entries of four-letter keywords matching nothing

	lookup(nil, "aaaa")
	lookup(nil, "bbbb")
	lookup(nil, "cccc")
	if got := held(); !slices.Equal(got, []string{"cccc", "bbbb"}) {
		t.Errorf("held %v, want cccc, bbbb: entries that matched nothing are evicted too", got)
	}
	lookup(nil, "bbbb") // used again: now the most recent
	lookup(nil, "dddd")
	if got := held(); !slices.Equal(got, []string{"dddd", "bbbb"}) {
		t.Errorf("held %v, want dddd, bbbb: the least recently used goes", got)
	}
	if c.bytes != accounted() || c.bytes > c.budget {
		t.Errorf("%d bytes accounted, %d held, budget %d", c.bytes, accounted(), c.budget)
	}

	// A lookup whose entries outweigh the budget keeps them while it is
	// answered; the next evicts them.
	many := make([]int64, 100)
	for i := range many {
		many[i] = int64(i)
	}
	lookup(many, "eeee", "ffff")
	if got := held(); !slices.Equal(got, []string{"ffff", "eeee"}) {
		t.Errorf("held %v, want the lookup's own ffff, eeee", got)
	}
	if c.ids != 200 || c.bytes != accounted() || c.bytes < 2*8*100 {
		t.Errorf("%d ids, %d bytes accounted (%d held), want 200 ids of 8 bytes", c.ids, c.bytes, accounted())
	}
	lookup(nil, "gggg")
	if got := held(); !slices.Equal(got, []string{"gggg"}) {
		t.Errorf("held %v, want gggg alone", got)
	}

	// Posts decided into an entry are accounted for; an entry whose word
	// no changed text has only loses the changed posts it held.
	before, g := c.bytes, c.entries[query("gggg").key()]
	c.decideChanged([]PostText{{ID: 7, Text: "gggg", Present: true}, {ID: 9, Text: "GGGG, gggg", Present: true}})
	if c.ids != 2 || c.bytes < before+16 || c.bytes != accounted() {
		t.Errorf("after two posts decided in: %d ids, %d bytes (was %d, %d held)", c.ids, c.bytes, before, accounted())
	}
	c.decideChanged([]PostText{{ID: 7, Text: "ggggg and hhhh", Present: true}, {ID: 11, Text: "hhhh", Present: true}, {ID: 12}})
	if !slices.Equal(g.ids, []int64{9}) || c.ids != 1 || c.bytes != accounted() {
		t.Errorf("after post 7 stopped mentioning gggg: ids %v, %d in all, %d bytes (%d held)", g.ids, c.ids, c.bytes, accounted())
	}
	c.decideChanged([]PostText{{ID: 9}}) // deleted
	if len(g.ids) != 0 || c.ids != 0 || len(c.held) != 0 {
		t.Errorf("after post 9 was deleted: ids %v, %d in all, %d entries holding posts", g.ids, c.ids, len(c.held))
	}

	// Many distinct lookups leave the bytes within the budget.
	for i := range 1000 {
		lookup(nil, fmt.Sprintf("k%03d", i))
		if c.bytes > c.budget {
			t.Fatalf("after %d lookups: %d bytes, budget %d", i+1, c.bytes, c.budget)
		}
	}
	if len(c.entries) != c.order.Len() || len(c.entries) > 2 {
		t.Errorf("%d entries, %d in the order", len(c.entries), c.order.Len())
	}
	c.clear()
	if c.bytes != 0 || c.ids != 0 || c.order.Len() != 0 {
		t.Errorf("cleared: %d bytes, %d ids, %d in the order", c.bytes, c.ids, c.order.Len())
	}
}

// The bookkeeping of a lookup (its entries moved to the front, one new
// entry kept, the least recently used evicted) costs the same however
// many entries the cache holds: the ns/op of the sizes should be alike.
func BenchmarkKeywordMatchesLookup(b *testing.B) {
	s := NewEngine(termsOnly{})
	for _, held := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("held=%d", held), func(b *testing.B) {
			var c keywordMatches
			c.clear()
			// Made beforehand: what the benchmark times is the
			// bookkeeping, not making entries.
			entries := make([]*matchEntry, held+b.N)
			for i := range entries {
				keyword := fmt.Sprintf("k%09d", i)
				q := s.indexQuery(keyword, PlanKeyword(keyword), 1)
				entries[i] = &matchEntry{query: q, key: q.key()}
			}
			for _, e := range entries[:held] {
				c.put(e.key, e)
			}
			c.budget = c.bytes // full: each new entry evicts one
			lookup := []indexQuery{entries[held/2].query, entries[held/3].query, entries[held/4].query, {}}
			runtime.GC()
			b.ResetTimer()
			for _, e := range entries[held:] {
				c.put(e.key, e)
				lookup[3] = e.query
				c.lookedUp(lookup)
			}
			if len(c.entries) > held+1 {
				b.Fatalf("%d entries held, budget of %d", len(c.entries), held)
			}
		})
	}
}

// A lookup after posts changed decides them for every entry held. With
// the cache full of entries that matched nothing (some 70,000 fit the
// default budget), reading each changed text for each entry ("every text") took
// seconds under the lock every mapping query waits on; visiting only the
// entries whose word a changed text has ("by word") costs what the texts'
// words do.
func BenchmarkKeywordMatchesCatchUp(b *testing.B) {
	s := NewEngine(termsOnly{})
	r := rand.New(rand.NewPCG(7, 7))
	word := func(n int) string {
		w := make([]byte, n)
		for i := range w {
			w[i] = 'a' + byte(r.IntN(26))
		}
		return string(w)
	}
	var c keywordMatches
	c.clear()
	for range 78_000 {
		keyword := word(100)
		q := s.indexQuery(keyword, PlanKeyword(keyword), 1)
		c.put(q.key(), &matchEntry{query: q})
	}
	// 200 changed posts of 60 words of 3-9 letters.
	texts := make([]PostText, 200)
	for i := range texts {
		ws := make([]string, 60)
		for j := range ws {
			ws[j] = word(3 + r.IntN(7))
		}
		texts[i] = PostText{ID: int64(i), Text: strings.Join(ws, " "), Present: true}
	}
	b.Run("by word", func(b *testing.B) {
		for range b.N {
			c.decideChanged(texts)
		}
	})
	b.Run("every text", func(b *testing.B) {
		for range b.N {
			for _, e := range c.entries {
				e.decide(texts)
			}
		}
	})
}

// termsOnly is a pool whose index queries are a keyword's lexemes at a
// level: the tests of the matches' bookkeeping need their keys, not an
// index. It reads nothing.
type termsOnly struct{ Pool }

func (termsOnly) TermsQuery(k Keyword, level int) string { return fmt.Sprint(k.Lexemes, k.Gaps, level) }

package mapping

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
)

// Posting lists: the keyword index of a run of posts as one list per
// word and per hashtag, for an engine whose own index costs a visit per
// matching post (PostgreSQL's GIN: docs/decisions.md). A word's list holds
// each post that has it with its positions; a hashtag's, each post that
// has it with how often (up to MaxStrength). Everything else the index
// says is worked out from those: a word's or a hashtag's count levels, a
// two-word pair and its levels, a phrase by its words' positions. So
// MatchPostings answers every index query termsQuery makes, as the
// engines' indexes would over IndexText's lexemes.
//
// A list is a run of entries in ascending post id:
//
//	uvarint(id - previous id)  (the first from 0)
//	uvarint(n)                 occurrences
//	n × uvarint(position - previous position), for a word (the first from 0)

// PostingsBuilder collects the lists of posts added in ascending id order.
type PostingsBuilder struct {
	lists map[string]*postingList
}

type postingList struct {
	buf  []byte
	last int64
}

// NewPostingsBuilder returns an empty builder.
func NewPostingsBuilder() *PostingsBuilder {
	return &PostingsBuilder{lists: map[string]*postingList{}}
}

// Add adds post id (above every id added before) with its terms.
func (b *PostingsBuilder) Add(id int64, t PostTerms) {
	// Words come in text order, so each word's positions ascend.
	var order []string
	positions := map[string][]int{}
	for _, w := range t.Words {
		if positions[w.Text] == nil {
			order = append(order, w.Text)
		}
		positions[w.Text] = append(positions[w.Text], w.Pos)
	}
	for _, lex := range order {
		l := b.list(lex, id)
		ps := positions[lex]
		l.buf = binary.AppendUvarint(l.buf, uint64(len(ps)))
		prev := 0
		for _, p := range ps {
			l.buf = binary.AppendUvarint(l.buf, uint64(p-prev))
			prev = p
		}
	}
	// A hashtag's count is its highest level lexeme ("3hgtm"), or 1.
	tags := map[string]int{}
	var tagOrder []string
	for _, lex := range t.Others {
		n, rest := 1, lex
		if lex[0] >= '2' && lex[0] <= '9' {
			n, rest = int(lex[0]-'0'), lex[1:]
		}
		if rest[0] != 'h' {
			continue
		}
		if _, ok := tags[rest]; !ok {
			tagOrder = append(tagOrder, rest)
		}
		tags[rest] = max(tags[rest], n)
	}
	for _, lex := range tagOrder {
		l := b.list(lex, id)
		l.buf = binary.AppendUvarint(l.buf, uint64(tags[lex]))
	}
}

// list returns lex's list with id's entry begun.
func (b *PostingsBuilder) list(lex string, id int64) *postingList {
	l := b.lists[lex]
	if l == nil {
		l = &postingList{}
		b.lists[lex] = l
	}
	l.buf = binary.AppendUvarint(l.buf, uint64(id-l.last))
	l.last = id
	return l
}

// Lists returns the lexemes, sorted, and their lists.
func (b *PostingsBuilder) Lists() ([]string, [][]byte) {
	lexemes := make([]string, 0, len(b.lists))
	for lex := range b.lists {
		lexemes = append(lexemes, lex)
	}
	slices.Sort(lexemes)
	lists := make([][]byte, len(lexemes))
	for i, lex := range lexemes {
		lists[i] = b.lists[lex].buf
	}
	return lexemes, lists
}

// PostingLexemes are the lists MatchPostings reads to answer k's index
// query.
func PostingLexemes(k Keyword) []string {
	if k.Kind == KeywordCounted {
		if a, b, ok := splitPair(k.Lexemes[0]); ok {
			return []string{a, b}
		}
	}
	return slices.Clone(k.Lexemes)
}

// ErrPostings is a list that is not what PostingsBuilder writes.
var ErrPostings = errors.New("mapping: malformed posting list")

// MatchPostings appends to ids the posts of the lists (by lexeme; a
// missing list is empty) that k's index query at level matches: a counted
// word, hashtag or pair occurring at least level times, or, for a phrase
// or a loose keyword, its words at their gaps (level 1 only, as
// termsQuery asks them).
func MatchPostings(lists func(lex string) []byte, k Keyword, level int, ids []int64) ([]int64, error) {
	all := [][]int64{ids}
	err := NewPostingMatcher([]PostingQuery{{K: k, Level: level}}).Match(lists, all)
	return all[0], err
}

// PostingQuery is one index query a PostingMatcher answers.
type PostingQuery struct {
	K     Keyword
	Level int
}

// PostingMatcher answers several index queries over posting lists, block
// after block, as MatchPostings does one, decoding once what several count:
// a counted keyword's levels, and a two-word phrase with its pair's levels,
// which count the same words at the same gaps.
type PostingMatcher struct {
	groups []postingGroup
}

// postingGroup is the queries that count the same thing.
type postingGroup struct {
	lexemes []string
	gaps    []int // nil: one counted lexeme
	// members are the queries, by index, and the count each needs.
	members []struct{ query, level int }
}

// NewPostingMatcher groups queries by what they count.
func NewPostingMatcher(queries []PostingQuery) *PostingMatcher {
	m := &PostingMatcher{}
	for i, q := range queries {
		lexemes, gaps := postingSource(q.K)
		g := slices.IndexFunc(m.groups, func(g postingGroup) bool {
			return slices.Equal(g.lexemes, lexemes) && slices.Equal(g.gaps, gaps)
		})
		if g < 0 {
			m.groups, g = append(m.groups, postingGroup{lexemes: lexemes, gaps: gaps}), len(m.groups)
		}
		level := q.Level
		if q.K.Kind != KeywordCounted {
			level = 1 // a phrase or a loose keyword: once (termsQuery)
		}
		m.groups[g].members = append(m.groups[g].members, struct{ query, level int }{i, level})
	}
	return m
}

// Match appends to ids[i] the posts of the lists (by lexeme; a missing list
// is empty) that query i matches.
func (m *PostingMatcher) Match(lists func(lex string) []byte, ids [][]int64) error {
	for _, g := range m.groups {
		emit := func(id int64, n int) {
			for _, q := range g.members {
				if n >= q.level {
					ids[q.query] = append(ids[q.query], id)
				}
			}
		}
		var err error
		switch {
		case len(g.lexemes) == 0:
		case g.gaps == nil:
			c := cursor{b: lists(g.lexemes[0]), word: g.lexemes[0][0] == 'w'}
			for c.next() {
				emit(c.id, c.n)
			}
			err = c.err
		default:
			err = countChain(lists, g.lexemes, g.gaps, emit)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// postingSource is what k's index query counts: one counted lexeme (gaps
// nil), or words at their gaps (a pair's two words one apart).
func postingSource(k Keyword) (lexemes []string, gaps []int) {
	switch k.Kind {
	case KeywordNone:
		return nil, nil
	case KeywordCounted:
		if a, b, ok := splitPair(k.Lexemes[0]); ok {
			return []string{a, b}, []int{0, 1}
		}
		return k.Lexemes[:1], nil
	default:
		return k.Lexemes, k.Gaps
	}
}

// countChain calls emit with each post where the words occur at their
// gaps, and how many times (a pair of different words, whose occurrences
// cannot overlap, may count more than one).
func countChain(lists func(lex string) []byte, lexemes []string, gaps []int, emit func(id int64, n int)) error {
	cs := make([]cursor, len(lexemes))
	offsets := make([]int, len(lexemes))
	for i, lex := range lexemes {
		cs[i] = cursor{b: lists(lex), word: true}
		if i > 0 {
			offsets[i] = offsets[i-1] + gaps[i]
		}
	}
	var at [][]int
	for cs[0].next() {
		// Move every other cursor to the first one's post.
		id, aligned := cs[0].id, true
		for i := 1; i < len(cs) && aligned; i++ {
			for !cs[i].started || cs[i].id < id {
				if !cs[i].next() {
					return firstErr(cs)
				}
			}
			aligned = cs[i].id == id
		}
		if !aligned {
			continue
		}
		at = at[:0]
		for i := range cs {
			ps, err := cs[i].positions()
			if err != nil {
				return err
			}
			at = append(at, ps)
		}
		n := 0
		for _, p := range at[0] {
			found := true
			for i := 1; i < len(at) && found; i++ {
				_, found = slices.BinarySearch(at[i], p+offsets[i])
			}
			if found {
				n++
			}
		}
		if n > 0 {
			emit(id, n)
		}
	}
	return firstErr(cs)
}

func firstErr(cs []cursor) error {
	for _, c := range cs {
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// cursor reads a list's entries one by one.
type cursor struct {
	b       []byte
	word    bool
	started bool
	id      int64
	n       int
	// pos is the entry's positions, still encoded.
	pos     []byte
	decoded []int
	err     error
}

func (c *cursor) uvarint() (uint64, bool) {
	if len(c.b) > 0 && c.b[0] < 0x80 { // most are one byte
		v := uint64(c.b[0])
		c.b = c.b[1:]
		return v, true
	}
	v, n := binary.Uvarint(c.b)
	if n <= 0 {
		c.err = ErrPostings
		return 0, false
	}
	c.b = c.b[n:]
	return v, true
}

// next reads the next entry; false at the end or on a malformed list
// (err).
func (c *cursor) next() bool {
	if len(c.b) == 0 || c.err != nil {
		return false
	}
	d, ok := c.uvarint()
	if !ok {
		return false
	}
	if c.started && d == 0 || d > math.MaxInt64-uint64(c.id) {
		c.err = ErrPostings // ids ascend, and fit an int64
		return false
	}
	c.started = true
	c.id += int64(d)
	n, ok := c.uvarint()
	if !ok || n == 0 || n > 1<<20 {
		c.err = ErrPostings
		return false
	}
	c.n = int(n)
	if !c.word {
		return true
	}
	// Skipped, not decoded: a varint ends at its first byte below 0x80.
	i, left := 0, c.n
	for ; left > 0 && i < len(c.b); i++ {
		if c.b[i] < 0x80 {
			left--
		}
	}
	if left > 0 {
		c.err = ErrPostings
		return false
	}
	c.pos, c.b = c.b[:i], c.b[i:]
	return true
}

// positions decodes the entry's positions, into a buffer the next call
// reuses.
func (c *cursor) positions() ([]int, error) {
	out := c.decoded[:0]
	defer func() { c.decoded = out[:0] }()
	b, p := c.pos, 0
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, ErrPostings
		}
		p += int(d)
		out = append(out, p)
		b = b[n:]
	}
	return out, nil
}

// splitPair returns the word lexemes of a pair lexeme ("psales_ops":
// "wsales", "wops"); a body holds '_' only as its first byte.
func splitPair(lex string) (a, b string, ok bool) {
	if !IsPhraseLexeme(lex) {
		return "", "", false
	}
	body := lex[1:]
	from := 0
	if strings.HasPrefix(body, "_") {
		from = 1
	}
	i := strings.IndexByte(body[from:], '_')
	if i < 0 {
		return "", "", false
	}
	return "w" + body[:from+i], "w" + body[from+i+1:], true
}

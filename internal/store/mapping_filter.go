package store

import (
	"context"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"github.com/trawlhq/trawl/internal/mapping"
)

// filterPeople returns the people of ids that pass the filters, exactly as
// mapping.Filters.Match decides. The folded filter columns (mapping_people,
// folded in Go when the profile was stored, so that equality and substring
// tests give Match's answer on any script) are tested on this process's
// copy of them (foldedCopy); people without a folded row, and, when titles
// are filtered, people whose title is their headline, are read and Match
// decides them.
func (s *Store) filterPeople(ctx context.Context, ids []int64, f mapping.Filters) (idSet, error) {
	var keep idSet
	if len(ids) == 0 {
		return keep, nil
	}
	c, err := s.foldedCopy(ctx)
	if err != nil {
		return nil, fmt.Errorf("filter people: %w", err)
	}
	ff := c.filter(f)
	keep = make(idSet, len(c.flags)/64+1)
	var undecided []int64
	for _, id := range ids {
		switch in, inGo := ff.decide(c, id); {
		case inGo:
			undecided = append(undecided, id)
		case in:
			keep.add(id)
		}
	}
	c.mu.RUnlock()
	if len(undecided) > 0 {
		people, err := s.peopleByID(ctx, undecided)
		if err != nil {
			return nil, fmt.Errorf("filter people: %w", err)
		}
		for id, p := range people {
			if f.Match(p) {
				keep.add(id)
			}
		}
	}
	return keep, nil
}

// idSet is a set of person or post ids, a bit per id: both are dense
// (given in order), and a query may keep a hundred thousand of them.
type idSet []uint64

func (p *idSet) add(id int64) {
	if id < 0 {
		return
	}
	w := int(id / 64)
	if w >= len(*p) {
		*p = append(*p, make([]uint64, w+1-len(*p))...)
	}
	(*p)[w] |= 1 << (id % 64)
}

func (p idSet) has(id int64) bool {
	w := int(id / 64)
	return id >= 0 && w < len(p) && p[w]&(1<<(id%64)) != 0
}

// ids returns the set's ids in ascending order.
func (p idSet) ids() []int64 {
	var out []int64
	for w, word := range p {
		for word != 0 {
			out = append(out, int64(w)*64+int64(bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return out
}

// isASCII reports whether s is ASCII (the results filters use it too).
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

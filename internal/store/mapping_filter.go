package store

import (
	"context"
	"fmt"
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
func (s *Store) filterPeople(ctx context.Context, ids []int64, f mapping.Filters) (map[int64]bool, error) {
	keep := make(map[int64]bool, len(ids))
	if len(ids) == 0 {
		return keep, nil
	}
	c, err := s.foldedCopy(ctx)
	if err != nil {
		return nil, fmt.Errorf("filter people: %w", err)
	}
	ff := c.filter(f)
	var undecided []int64
	var none foldedPerson
	for _, id := range ids {
		p := &none
		if id >= 0 && id < int64(len(c.people)) {
			p = &c.people[id]
		}
		switch in, inGo := ff.decide(p); {
		case inGo:
			undecided = append(undecided, id)
		case in:
			keep[id] = true
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
				keep[id] = true
			}
		}
	}
	return keep, nil
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

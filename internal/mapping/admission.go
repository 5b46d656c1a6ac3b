package mapping

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
)

// filterPeople returns the people of ids that pass the filters, exactly as
// Filters.Match decides. The folded filter columns (mapping_people,
// folded in Go when the profile was stored, so that equality and substring
// tests give Match's answer on any script) are tested on this process's
// copy of them (foldedCopy); people without a folded row, and, when titles
// are filtered, people whose title is their headline, are read and Match
// decides them. More than limit people passing is *ErrQueryTooBroad,
// found before anyone is read when those the copy passes are too many.
func (e *Engine) filterPeople(ctx context.Context, ids []int64, f Filters, limit int) (idSet, error) {
	var keep idSet
	if len(ids) == 0 {
		return keep, nil
	}
	c, err := e.foldedCopy(ctx)
	if err != nil {
		return nil, fmt.Errorf("filter people: %w", err)
	}
	ff := c.filter(f)
	keep = make(idSet, len(c.flags)/64+1)
	var undecided []int64
	dropped := 0
	for _, id := range ids {
		switch in, inGo := ff.decide(c, id); {
		case inGo:
			undecided = append(undecided, id)
		case in:
			keep.add(id)
		default:
			dropped++
		}
	}
	c.mu.RUnlock()
	kept := len(ids) - len(undecided) - dropped
	if kept > limit {
		return nil, &ErrQueryTooBroad{Engagements: int64(kept), Limit: limit, Filtered: true, AtLeast: len(undecided) > 0}
	}
	if len(undecided) > 0 {
		people, err := e.pool.PeopleByID(ctx, undecided)
		if err != nil {
			return nil, fmt.Errorf("filter people: %w", err)
		}
		for id, p := range people {
			if f.Match(p) {
				keep.add(id)
				kept++
			}
		}
	}
	if kept > limit {
		return nil, &ErrQueryTooBroad{Engagements: int64(kept), Limit: limit, Filtered: true}
	}
	return keep, nil
}

// admission is who may pass a social mapping query's filters, decided for
// every person of the folded copy before the pass over the query's
// engagements (engagersOf): a person the filters drop then costs a bit
// test per engagement, in a set that stays in the processor's cache,
// instead of a place in the per-person list, and each folded column is
// read in order, once, rather than at random once per engager.
type admission struct {
	// pass are the people who pass on their folded columns; undecided
	// those Match decides from their row (decide), as every person past
	// the copy's end.
	pass, undecided idSet
	end             int64
}

// admission returns the filters' admission.
func (e *Engine) admission(ctx context.Context, f Filters) (*admission, error) {
	c, err := e.foldedCopy(ctx)
	if err != nil {
		return nil, fmt.Errorf("filter people: %w", err)
	}
	defer c.mu.RUnlock()
	return admissionOf(c, f), nil
}

// admissionOf decides the admission on the folded copy c (read-locked).
func admissionOf(c *foldedPeople, f Filters) *admission {
	ff := c.filter(f)
	n := len(c.flags)
	a := &admission{pass: make(idSet, n/64+1), undecided: make(idSet, n/64+1), end: int64(n)}
	titled := len(ff.titles) > 0 || len(ff.titlesExcl) > 0
	// Present, and with a title when titles are filtered: eight people's
	// flags at a time, without a branch per person (its outcome is
	// unpredictable).
	const lowBits = 0x0101010101010101
	var titleNull uint64
	if titled {
		titleNull = lowBits
	}
	i := 0
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64(c.flags[i:])
		in := x & lowBits &^ (x >> 1 & titleNull) // bit 0 of each byte
		// The multiplication gathers byte k's bit 0 into bit 56+k.
		a.pass[i/64] |= (in * 0x0102040810204080 >> 56) << (i % 64)
	}
	for ; i < n; i++ {
		x := uint64(c.flags[i])
		a.pass[i/64] |= (x & 1 &^ (x >> 1 & titleNull)) << (i % 64)
	}
	for w, word := range a.pass {
		a.undecided[w] = ^word
	}
	// One column at a time, over the people still in: each reads its
	// column in order, and tests each distinct value once.
	for _, col := range []struct {
		codes []uint32
		on    bool
		test  func(code uint32) bool
	}{
		{c.size, ff.sizes != nil || ff.sizesExcl != nil, func(v uint32) bool { return codeIn([]uint32{v}, ff.sizes, ff.sizesExcl) }},
		{c.industry, ff.industries != nil || ff.industriesExcl != nil, func(v uint32) bool { return codeIn([]uint32{v}, ff.industries, ff.industriesExcl) }},
		{c.country, ff.countries != nil || ff.countriesExcl != nil, func(v uint32) bool { return codeIn([]uint32{v}, ff.countries, ff.countriesExcl) }},
		{c.domain, len(ff.domains) > 0 || len(ff.domainsExcl) > 0, func(v uint32) bool { return ff.domainIn(c, v) }},
		{c.title, titled, func(v uint32) bool { return ff.titleIn(c, v) }},
	} {
		if col.on {
			a.pass.keepCodes(col.codes, make([]int8, len(c.values)+1), col.test)
		}
	}
	if len(ff.followers) > 0 {
		for w, word := range a.pass {
			for rest := word; rest != 0; rest &= rest - 1 {
				if b := bits.TrailingZeros64(rest); !ff.followersIn(c, w*64+b) {
					word &^= 1 << b
				}
			}
			a.pass[w] = word
		}
	}
	return a
}

// keepCodes removes the people whose code in col fails test, remembering
// each code's verdict in memo (0 not tested yet, 1 pass, 2 fail).
func (p idSet) keepCodes(col []uint32, memo []int8, test func(code uint32) bool) {
	verdict := func(code uint32) int8 {
		v := memo[code]
		if v == 0 {
			v = 2
			if test(code) {
				v = 1
			}
			memo[code] = v
		}
		return v
	}
	for w, word := range p {
		if bits.OnesCount64(word) < 16 {
			for rest := word; rest != 0; rest &= rest - 1 {
				if b := bits.TrailingZeros64(rest); verdict(col[w*64+b]) != 1 {
					word &^= 1 << b
				}
			}
			p[w] = word
			continue
		}
		// Most of the word is in: every code is read, and the verdicts
		// make a mask without a branch per person.
		var fail uint64
		for b, code := range col[w*64 : min(w*64+64, len(col))] {
			fail |= uint64(verdict(code)>>1) << b
		}
		p[w] = word &^ fail
	}
}

// may tells whether person may pass: they pass, or Match must decide.
// (personPass.add tests the same inline, each part once.)
func (a *admission) may(person int64) bool {
	return a.pass.has(person) || a.undecided.has(person) || person >= a.end
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
	n := 0
	for _, word := range p {
		n += bits.OnesCount64(word)
	}
	out := make([]int64, 0, n)
	for w, word := range p {
		for word != 0 {
			out = append(out, int64(w)*64+int64(bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return out
}

package mapping

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
)

// engagerHit is a person's latest qualifying engagement and, for a person
// the filters have yet to decide, how many qualifying engagements they
// made (n fits beside comment: a hit stays 32 bytes).
type engagerHit struct {
	person  int64
	at      int64
	comment bool
	n       int32
	post    int64
}

// engagerHits are the people of a query's qualifying engagements, each at
// their latest (of two at the same instant, the comment).
type engagerHits struct {
	list []engagerHit
	// ties are, for a person whose latest engagement has the same instant
	// and type on several posts, the other posts; the answer shows the
	// one with the lowest URN.
	ties map[int64][]int64
}

// engagersOf reads the packed engagements of the posts (sorted ids) and
// returns each person's latest engagement since `since`, of the people
// admit may let pass (all with admit nil), and how many engagements those
// people made: what the filters leave, which the too-broad limit weighs.
// Posts whose packed list is missing (stale) are read from the pool tables.
//
// A query's posts are scattered over the copy, and each one's list is a
// cache miss, as is each person's place: with enough posts, the two
// halves are read side by side, on two cores, and merged.
func (e *Engine) engagersOf(ctx context.Context, posts []int64, since int64, admit *admission) (engagerHits, engagementCount, error) {
	first := e.personPass(admit)
	c, err := e.engagersCopy(ctx)
	if err != nil {
		first.release(e)
		return engagerHits{}, engagementCount{}, fmt.Errorf("engagements: %w", err)
	}
	var stale []int64
	if len(posts) < cmp.Or(e.postsApart, minPostsApart) {
		stale = first.scan(c, posts, since)
		c.mu.RUnlock()
	} else {
		mid := len(posts) / 2
		second := e.personPass(admit)
		var staleLate []int64
		sideBySide(func() { stale = first.scan(c, posts[:mid], since) },
			func() { staleLate = second.scan(c, posts[mid:], since) })
		c.mu.RUnlock()
		first.merge(second)
		second.release(e)
		stale = append(stale, staleLate...)
	}
	defer first.clearSlots(e)
	byPost, err := e.pool.Engagements(ctx, stale, since)
	if err != nil {
		return first.hits, engagementCount{}, err
	}
	for _, p := range stale {
		for _, g := range byPost[p] {
			first.add(p, g)
		}
	}
	if admit == nil {
		first.count.kept = first.count.all
	}
	return first.hits, first.count, nil
}

// engagementCount counts a pass's qualifying engagements: all of them,
// whoever made them (what the pass read); kept, those of the people the
// filters may let pass (all of them without filters); and of those,
// undecided, the ones of people Match has yet to decide (no folded row, or
// a headline standing in for the title a title filter tests).
type engagementCount struct {
	all, kept, undecided int64
}

// sideBySide runs a and b at once, b on a goroutine of its own, and
// returns when both have: the halves of a query's work, on two cores.
func sideBySide(a, b func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		b()
	}()
	a()
	<-done
}

// minPostsApart is the fewest posts whose engagements are read in two
// halves side by side (engagersOf).
const minPostsApart = 2048

// personPass is a pass over posts' engagements: each person's latest.
type personPass struct {
	hits  engagerHits
	admit *admission
	// at is where each person is in hits.list, plus one (0: not yet), by
	// person id: ids are dense (given in first-seen order), and a slice is
	// several times faster than a map here. It is a megabyte per 250,000
	// people, so queries reuse it, and clear only the entries they set.
	at    []int32
	count engagementCount // the engagements kept
}

// personPass returns a pass with reused buffers.
func (e *Engine) personPass(admit *admission) *personPass {
	p := &personPass{hits: engagerHits{ties: map[int64][]int64{}}, admit: admit}
	if buf := e.hitLists.get(); buf != nil {
		p.hits.list = (*buf)[:0]
	}
	if buf := e.personSlots.get(); buf != nil {
		p.at = *buf
	}
	return p
}

// clearSlots gives back the per-person slots, cleared.
func (p *personPass) clearSlots(e *Engine) {
	for _, h := range p.hits.list {
		p.at[h.person] = 0
	}
	e.personSlots.put(&p.at)
}

// release gives back both buffers of a pass whose hits are not returned.
func (p *personPass) release(e *Engine) {
	p.clearSlots(e)
	e.hitLists.put(&p.hits.list)
}

// slot returns where person is in the list, plus one, making room.
func (p *personPass) slot(person int64) *int32 {
	if person >= int64(len(p.at)) {
		p.at = append(p.at, make([]int32, int(person)+1+int(person)/4-len(p.at))...)
	}
	return &p.at[person]
}

// scan adds the engagements of posts since `since`, from the copy c, and
// returns the posts it has no list for.
func (p *personPass) scan(c *packedEngagers, posts []int64, since int64) (stale []int64) {
	for _, post := range posts {
		raw := c.list(post)
		if raw == nil {
			stale = append(stale, post)
			continue
		}
		m := len(raw) / EngagementSize
		// Sorted by time: skip to the window.
		lo, hi := 0, m
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if int64(binary.BigEndian.Uint64(raw[mid*EngagementSize:])) < since {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		for k := lo; k < m; k++ {
			e := raw[k*EngagementSize:]
			p.add(post, Engagement{At: int64(binary.BigEndian.Uint64(e)), Key: int64(binary.BigEndian.Uint64(e[8:]))})
		}
	}
	return stale
}

// add counts an engagement on post and keeps it when it is its person's
// latest (of two at the same instant, the comment).
func (p *personPass) add(post int64, e Engagement) {
	// The counts ride on the tests the pass makes anyway: unfiltered, an
	// engagement is counted once, as all (which engagersOf then keeps);
	// filtered, a dropped one only as all.
	p.count.all++
	person, comment := e.Key>>1, e.Key&1 == 1
	var undecided int32
	if a := p.admit; a != nil {
		if !a.pass.has(person) {
			if !a.undecided.has(person) && person < a.end {
				return
			}
			p.count.undecided++
			undecided = 1
		}
		p.count.kept++
	}
	slot := p.slot(person)
	if *slot == 0 {
		*slot = int32(len(p.hits.list)) + 1
		p.hits.list = append(p.hits.list, engagerHit{person: person, at: e.At, comment: comment, n: undecided, post: post})
		return
	}
	h := &p.hits.list[*slot-1]
	if undecided != 0 {
		h.n++ // not written otherwise: the hit's line stays clean
	}
	switch {
	case e.At > h.at || e.At == h.at && comment && !h.comment:
		h.at, h.comment, h.post = e.At, comment, post
		if len(p.hits.ties) > 0 {
			delete(p.hits.ties, person)
		}
	case e.At == h.at && comment == h.comment && post != h.post:
		p.hits.ties[person] = append(p.hits.ties[person], post)
	}
}

// merge folds in the hits of a pass over other posts, as add would have.
func (p *personPass) merge(o *personPass) {
	p.count.all += o.count.all
	p.count.kept += o.count.kept
	p.count.undecided += o.count.undecided
	for _, h := range o.hits.list {
		slot := p.slot(h.person)
		if *slot == 0 {
			*slot = int32(len(p.hits.list)) + 1
			p.hits.list = append(p.hits.list, h)
			if t := o.hits.ties[h.person]; t != nil {
				p.hits.ties[h.person] = t
			}
			continue
		}
		mine := &p.hits.list[*slot-1]
		h.n += mine.n
		mine.n = h.n
		switch {
		case h.at > mine.at || h.at == mine.at && h.comment && !mine.comment:
			*mine = h
			delete(p.hits.ties, h.person)
			if t := o.hits.ties[h.person]; t != nil {
				p.hits.ties[h.person] = t
			}
		case h.at == mine.at && h.comment == mine.comment:
			// The same instant and type on posts of both halves.
			p.hits.ties[h.person] = append(append(p.hits.ties[h.person], h.post), o.hits.ties[h.person]...)
		}
	}
}

// sortFirst orders list so that its first k elements are the k first in
// cmp's order, sorted, and the others follow in no order: a page needs
// its results and those before it sorted, not the tens of thousands
// after it.
func sortFirst[T any](list []T, k int, cmp func(a, b T) int) {
	lo, hi := 0, len(list)
	// Quickselect: narrow [lo, hi) to the part that holds position k.
	for hi-lo > 32 && lo < k && k < hi {
		// The median of three as the pivot, moved to hi-1.
		mid := lo + (hi-lo)/2
		if cmp(list[mid], list[lo]) < 0 {
			list[mid], list[lo] = list[lo], list[mid]
		}
		if cmp(list[hi-1], list[lo]) < 0 {
			list[hi-1], list[lo] = list[lo], list[hi-1]
		}
		if cmp(list[mid], list[hi-1]) < 0 {
			list[mid], list[hi-1] = list[hi-1], list[mid]
		}
		pivot := list[hi-1]
		p := lo
		for i := lo; i < hi-1; i++ {
			if cmp(list[i], pivot) < 0 {
				list[i], list[p] = list[p], list[i]
				p++
			}
		}
		list[p], list[hi-1] = list[hi-1], list[p]
		if p < k {
			lo = p + 1
		} else {
			hi = p
		}
	}
	// Everything before lo precedes everything from lo on, and position k
	// is in [lo, hi) unless lo passed it: what to sort ends at hi, or at
	// lo then.
	end := hi
	if lo >= k {
		end = lo
	}
	slices.SortFunc(list[:end], cmp)
}

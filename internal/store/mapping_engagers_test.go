package store

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// Reading a query's posts in two halves and merging them gives what one
// pass over all of them gives: each person's latest engagement, the other
// posts of the same instant and type, and the engagements counted.
func TestPersonPassesMerged(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for round := range 300 {
		// Few people and instants: the same person at the same instant
		// on several posts, in both halves, is common.
		var c packedEngagers
		posts := make([]int64, 2+r.IntN(30))
		for i := range posts {
			posts[i] = int64(i * (1 + r.IntN(3)))
			var es []engagerEntry
			for range r.IntN(8) {
				es = append(es, engagerEntry{at: int64(r.IntN(6)), key: int64(r.IntN(12))})
			}
			c.lists.put(posts[i], packEngagers(es))
		}
		slices.Sort(posts)
		posts = slices.Compact(posts)
		var admit *admission
		if round%2 == 1 {
			admit = &admission{pass: idSet{uint64(r.Uint32())}, undecided: idSet{0}, end: 64}
		}
		since := int64(r.IntN(3))

		one := &personPass{hits: engagerHits{ties: map[int64][]int64{}}, admit: admit}
		one.scan(&c, posts, since)
		mid := r.IntN(len(posts) + 1)
		first := &personPass{hits: engagerHits{ties: map[int64][]int64{}}, admit: admit}
		second := &personPass{hits: engagerHits{ties: map[int64][]int64{}}, admit: admit}
		first.scan(&c, posts[:mid], since)
		second.scan(&c, posts[mid:], since)
		first.merge(second)

		if got, want := passOutcome(first), passOutcome(one); got != want {
			t.Fatalf("round %d, split at %d of %v:\n merged %s\n   once %s", round, mid, posts, got, want)
		}
	}
}

// passOutcome writes a pass's hits by person, with the posts of each
// person's latest engagement, and its count.
func passOutcome(p *personPass) string {
	out := fmt.Sprintf("%d engagements;", p.n)
	byPerson := map[int64]engagerHit{}
	for _, h := range p.hits.list {
		byPerson[h.person] = h
	}
	for _, person := range slices.Sorted(maps.Keys(byPerson)) {
		h := byPerson[person]
		// As a set: a person's two engagements on one post at one
		// instant may name it twice, which changes no answer.
		posts := slices.Compact(slices.Sorted(slices.Values(append([]int64{h.post}, p.hits.ties[person]...))))
		out += fmt.Sprintf(" %d: at %d comment %v on %v;", person, h.at, h.comment, posts)
	}
	return out
}

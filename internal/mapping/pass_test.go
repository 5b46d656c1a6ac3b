package mapping

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
		byPost := map[int64][]Engagement{}
		posts := make([]int64, 2+r.IntN(30))
		for i := range posts {
			posts[i] = int64(i * (1 + r.IntN(3)))
			var es []Engagement
			for range r.IntN(8) {
				es = append(es, Engagement{At: int64(r.IntN(6)), Key: int64(r.IntN(12))})
			}
			c.lists.put(posts[i], PackEngagements(es))
			byPost[posts[i]] = es
		}
		slices.Sort(posts)
		posts = slices.Compact(posts)
		var admit *admission
		if round%2 == 1 {
			// Some pass, some are undecided, and people past the
			// folded copy's end are undecided too.
			pass := uint64(r.Uint32())
			admit = &admission{pass: idSet{pass}, undecided: idSet{uint64(r.Uint32()) &^ pass}, end: int64(3 + r.IntN(8))}
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

		// The counts, by brute force: what the too-broad limit weighs.
		var want engagementCount
		perPerson := map[int64]int32{}
		for _, p := range posts {
			for _, e := range byPost[p] {
				if e.At < since {
					continue
				}
				want.all++
				person := e.Key >> 1
				switch {
				case admit == nil:
				case admit.pass.has(person):
					want.kept++
				case !admit.may(person):
				default:
					want.kept++
					// Only the undecided people's engagements are
					// counted per person: theirs are taken off when
					// Match drops them.
					want.undecided++
					perPerson[person]++
				}
			}
		}
		if one.count != want {
			t.Fatalf("round %d: counted %+v, want %+v", round, one.count, want)
		}
		for _, h := range one.hits.list {
			if h.n != perPerson[h.person] {
				t.Fatalf("round %d: person %d counted %d engagements, want %d", round, h.person, h.n, perPerson[h.person])
			}
		}
	}
}

// passOutcome writes a pass's hits by person, with the posts of each
// person's latest engagement, and its count.
func passOutcome(p *personPass) string {
	out := fmt.Sprintf("%d engagements, %d kept, %d undecided;", p.count.all, p.count.kept, p.count.undecided)
	byPerson := map[int64]engagerHit{}
	for _, h := range p.hits.list {
		byPerson[h.person] = h
	}
	for _, person := range slices.Sorted(maps.Keys(byPerson)) {
		h := byPerson[person]
		// As a set: a person's two engagements on one post at one
		// instant may name it twice, which changes no answer.
		posts := slices.Compact(slices.Sorted(slices.Values(append([]int64{h.post}, p.hits.ties[person]...))))
		out += fmt.Sprintf(" %d: %d, at %d comment %v on %v;", person, h.n, h.at, h.comment, posts)
	}
	return out
}

// BenchmarkPersonPass times the pass over a broad query's engagements
// (a million, of 200,000 people), without filters and with filters that
// let a tenth of the people pass and leave a hundredth undecided: the
// per-engagement work the too-broad count rides on.
func BenchmarkPersonPass(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const people, perPost = 200_000, 200
	var c packedEngagers
	posts := make([]int64, 5_000)
	for i := range posts {
		posts[i] = int64(i)
		es := make([]Engagement, perPost)
		for j := range es {
			es[j] = Engagement{At: int64(r.IntN(30 * 24)), Key: int64(r.IntN(people)) << 1}
		}
		c.lists.put(posts[i], PackEngagements(es))
	}
	filtered := &admission{pass: make(idSet, people/64+1), undecided: make(idSet, people/64+1), end: people}
	for p := range int64(people) {
		switch {
		case p%10 == 0:
			filtered.pass.add(p)
		case p%100 == 1:
			filtered.undecided.add(p)
		}
	}
	for name, admit := range map[string]*admission{"unfiltered": nil, "filtered": filtered} {
		b.Run(name, func(b *testing.B) {
			var at []int32
			for b.Loop() {
				p := &personPass{hits: engagerHits{ties: map[int64][]int64{}}, admit: admit, at: at}
				p.scan(&c, posts, 0)
				for _, h := range p.hits.list {
					p.at[h.person] = 0
				}
				at = p.at
			}
		})
	}
}

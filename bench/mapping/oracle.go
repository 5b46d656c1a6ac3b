package main

import (
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/topic"
)

// truth is the benchmark's own answer to the scenarios, counted while the
// data is generated: the qualifying posts and engagements, and the distinct
// people the filters let through.
type truth struct {
	sc    []scenario
	since []time.Time
	// filters has bit i set for the people scenario i's filters admit.
	filters     []uint32
	engagements []int64    // qualifying engagements (what the limit counts)
	posts       []int64    // qualifying posts with an engagement in the window
	seen        [][]uint64 // bit set of the people counted, per scenario
}

func newTruth(sc []scenario, g *pool) *truth {
	t := &truth{sc: sc, filters: make([]uint32, g.people), engagements: make([]int64, len(sc)), posts: make([]int64, len(sc))}
	for _, s := range sc {
		t.since = append(t.since, g.now.Add(-time.Duration(s.q.Days)*24*time.Hour))
		t.seen = append(t.seen, make([]uint64, (g.people+63)/64))
	}
	return t
}

func (t *truth) person(n int, p topic.Profile) {
	title := p.JobTitle
	if title == "" {
		title = p.Headline // as the store does until the profile is read
	}
	mp := mapping.Person{URN: p.URN, Country: p.Country, Company: p.Company, CompanyDomain: p.CompanyDomain,
		CompanySize: p.CompanySize, Industry: p.Industry, JobTitle: title, Followers: p.Followers}
	for i, s := range t.sc {
		if s.q.Filters.Match(mp) {
			t.filters[n] |= 1 << i
		}
	}
}

// postMask has bit i set when the post's text qualifies for scenario i.
func (t *truth) postMask(text string) uint32 {
	lower := strings.ToLower(text)
	var m uint32
	for i, s := range t.sc {
		if !slices.ContainsFunc(s.q.Keywords, func(k string) bool { return strings.Contains(lower, k) }) {
			continue
		}
		if mapping.Hits(text, s.q.Keywords) >= s.q.MinHits() {
			m |= 1 << i
		}
	}
	return m
}

func (t *truth) engagementsOf(mask uint32, es []seed.PoolEngagement, who []int32) {
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		any := false
		for k, e := range es {
			if e.At.Before(t.since[i]) {
				continue
			}
			any = true
			t.engagements[i]++
			if p := who[k]; t.filters[p]&(1<<i) != 0 {
				t.seen[i][p/64] |= 1 << (p % 64)
			}
		}
		if any {
			t.posts[i]++
		}
	}
}

func (t *truth) people(i int) int64 {
	n := 0
	for _, w := range t.seen[i] {
		n += bits.OnesCount64(w)
	}
	return int64(n)
}

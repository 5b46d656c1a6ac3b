package mapping

import (
	"context"
	"fmt"
	"strings"
)

// foldedPeople is this process's copy of mapping_people, the folded filter
// columns, indexed by person id (ids are dense). Social mapping filters
// each engager against it with a few comparisons instead of an index probe
// per person. It is kept exact through mapping_people_log (copyState).
// The columns are stored apart, so that a filter on company size reads
// a few megabytes that stay in the processor's cache rather than a whole
// record per person (a cache miss each, on a million people).
type foldedPeople struct {
	copyState
	// flags has one byte per person: folded* bits; zero for people
	// without a row (their profile was never read, or changed since it
	// was folded), whom Filters.Match decides from their row.
	flags []uint8
	// Codes of the folded values: titles and domains repeat as much as
	// sizes and countries do, and a filter tests each distinct one once.
	title, domain, size, industry, country []uint32
	followers                              []int64
	// codes numbers the folded values ("" is 0); values[code] is the value.
	codes  map[string]uint32
	values []string
}

const (
	foldedPresent = 1 << iota
	foldedTitleNull
	foldedHasFollowers
)

// code returns the number of a folded value, giving new values one.
func (c *foldedPeople) code(v string) uint32 {
	if v == "" {
		return 0
	}
	n, ok := c.codes[v]
	if !ok {
		if len(c.values) == 0 {
			c.values = append(c.values, "")
		}
		n = uint32(len(c.values))
		c.codes[v] = n
		c.values = append(c.values, v)
	}
	return n
}

// apply writes rows into the copy (under mu).
func (c *foldedPeople) apply(rows rowChunks[FoldedRow]) {
	if n := maxID(rows, func(r FoldedRow) int64 { return r.ID }) + 1; n > int64(len(c.flags)) {
		c.grow(max(int(n), len(c.flags)*5/4)) // room for the next people
	}
	for r := range rows.all() {
		if r.ID < 0 {
			continue
		}
		i := r.ID
		if !r.Present {
			c.flags[i], c.title[i], c.domain[i], c.size[i], c.industry[i], c.country[i], c.followers[i] = 0, 0, 0, 0, 0, 0, 0
			continue
		}
		flags := uint8(foldedPresent)
		if r.TitleNull {
			flags |= foldedTitleNull
		}
		if r.HasFollowers {
			flags |= foldedHasFollowers
		}
		c.flags[i], c.followers[i] = flags, r.Followers
		c.title[i], c.domain[i] = c.code(r.Title), c.code(r.Domain)
		c.size[i], c.industry[i], c.country[i] = c.code(r.Size), c.code(r.Industry), c.code(r.Country)
	}
}

// grow makes room for n people.
func (c *foldedPeople) grow(n int) {
	c.flags = append(c.flags, make([]uint8, n-len(c.flags))...)
	c.title = append(c.title, make([]uint32, n-len(c.title))...)
	c.domain = append(c.domain, make([]uint32, n-len(c.domain))...)
	c.size = append(c.size, make([]uint32, n-len(c.size))...)
	c.industry = append(c.industry, make([]uint32, n-len(c.industry))...)
	c.country = append(c.country, make([]uint32, n-len(c.country))...)
	c.followers = append(c.followers, make([]int64, n-len(c.followers))...)
}

// foldedCopy brings the copy up to date and returns it, read-locked: the
// caller calls mu.RUnlock when done with it.
func (e *Engine) foldedCopy(ctx context.Context) (*foldedPeople, error) {
	c := &e.folded
	err := e.syncCopy(ctx, &c.copyState, PeopleLog, func(snap Snapshot, whole bool, from uint64) (func(bool), error) {
		var read rowChunks[FoldedRow]
		if err := snap.FoldedPeople(ctx, whole, from, read.add); err != nil {
			return nil, err
		}
		return func(whole bool) {
			if whole {
				c.flags, c.title, c.domain, c.size, c.industry, c.country, c.followers = nil, nil, nil, nil, nil, nil, nil
				c.codes, c.values = map[string]uint32{}, nil
			}
			c.apply(read)
		}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("folded people: %w", err)
	}
	return c, nil
}

// foldedFilter is Filters with its values folded as mapping_people
// holds them, so that testing a person's folded columns gives Match's
// answer.
type foldedFilter struct {
	titles, titlesExcl, domains, domainsExcl                               []string
	sizes, sizesExcl, industries, industriesExcl, countries, countriesExcl codeSet
	followers                                                              []Range
	// The verdicts on each title and domain code met so far (verdict).
	titleOK, domainOK []int8
}

// verdict tells whether a title or domain code passes, testing its value
// the first time the code is met.
func (ff *foldedFilter) verdict(memo *[]int8, c *foldedPeople, code uint32, test func(v string) bool) bool {
	if int(code) >= len(*memo) {
		*memo = append(*memo, make([]int8, len(c.values)+1-len(*memo))...)
	}
	if (*memo)[code] == 0 {
		(*memo)[code] = 2
		if test(c.values[code]) {
			(*memo)[code] = 1
		}
	}
	return (*memo)[code] == 1
}

// codeSet is a set of folded value codes, indexed by code (codes are
// small: one per distinct value); nil means no filter.
type codeSet []bool

func (cs codeSet) has(code uint32) bool { return int(code) < len(cs) && cs[code] }

func (c *foldedPeople) filter(f Filters) foldedFilter {
	fold := func(vals []string, fn func(string) string) []string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = fn(v)
		}
		return out
	}
	ff := foldedFilter{titles: fold(f.JobTitles, FoldTitle), titlesExcl: fold(f.JobTitlesExcludes, FoldTitle),
		domains: fold(f.DomainIncludes, DomainValue), domainsExcl: fold(f.DomainExcludes, DomainValue),
		followers: f.Followers}
	set := func(vals []string, fold func(string) string) codeSet {
		if len(vals) == 0 {
			return nil
		}
		out := codeSet{false} // not empty: a filter that no code passes
		for _, v := range vals {
			if n, ok := c.codes[fold(v)]; ok && n != 0 {
				if int(n) >= len(out) {
					out = append(out, make(codeSet, int(n)+1-len(out))...)
				}
				out[n] = true
			}
		}
		return out
	}
	ff.sizes, ff.sizesExcl = set(f.CompanySizes, FoldKey), set(f.CompanySizesExcl, FoldKey)
	ff.industries, ff.industriesExcl = set(f.Industries, FoldKey), set(f.IndustriesExcludes, FoldKey)
	ff.countries, ff.countriesExcl = set(f.Countries, FoldKey), set(f.CountriesExcludes, FoldKey)
	return ff
}

// decide tells whether person i passes (keep) or whether Go must decide it
// from the person's row (undecided: no folded row, or a title filter on a
// person whose headline stands in for the title). Only the columns the
// filter tests are read.
func (ff *foldedFilter) decide(c *foldedPeople, i int64) (keep, undecided bool) {
	if i < 0 || i >= int64(len(c.flags)) || c.flags[i]&foldedPresent == 0 {
		return false, true
	}
	if len(ff.titles) > 0 || len(ff.titlesExcl) > 0 {
		if c.flags[i]&foldedTitleNull != 0 {
			return false, true
		}
		if !ff.titleIn(c, c.title[i]) {
			return false, false
		}
	}
	if (len(ff.domains) > 0 || len(ff.domainsExcl) > 0) && !ff.domainIn(c, c.domain[i]) {
		return false, false
	}
	if !codeIn(c.size[i:i+1], ff.sizes, ff.sizesExcl) || !codeIn(c.industry[i:i+1], ff.industries, ff.industriesExcl) ||
		!codeIn(c.country[i:i+1], ff.countries, ff.countriesExcl) {
		return false, false
	}
	return len(ff.followers) == 0 || ff.followersIn(c, int(i)), false
}

// titleIn tells whether a folded title (its code) passes the title
// filters.
func (ff *foldedFilter) titleIn(c *foldedPeople, code uint32) bool {
	return ff.verdict(&ff.titleOK, c, code, func(title string) bool {
		return (len(ff.titles) == 0 || containsAny(title, ff.titles)) && !containsAny(title, ff.titlesExcl)
	})
}

// domainIn tells whether a folded domain (its code) passes the domain
// filters.
func (ff *foldedFilter) domainIn(c *foldedPeople, code uint32) bool {
	return ff.verdict(&ff.domainOK, c, code, func(domain string) bool {
		return (len(ff.domains) == 0 || domain != "" && domainAny(domain, ff.domains)) &&
			(domain == "" || !domainAny(domain, ff.domainsExcl))
	})
}

// followersIn tells whether person i's follower count is in one of the
// ranges: a person whose count is unknown is in none.
func (ff *foldedFilter) followersIn(c *foldedPeople, i int) bool {
	if c.flags[i]&foldedHasFollowers == 0 {
		return false
	}
	for _, r := range ff.followers {
		if c.followers[i] >= r.Min && (r.Max == nil || c.followers[i] <= *r.Max) {
			return true
		}
	}
	return false
}

// codeIn tells whether a folded value (v[0], read only when a set is
// given) passes an include and an exclude set of codes.
func codeIn(v []uint32, in, excl codeSet) bool {
	if in == nil && excl == nil {
		return true
	}
	if in != nil && (v[0] == 0 || !in.has(v[0])) {
		return false
	}
	return v[0] == 0 || !excl.has(v[0])
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// domainAny tells whether domain is one of wants or a subdomain of one.
func domainAny(domain string, wants []string) bool {
	for _, w := range wants {
		if domain == w || strings.HasSuffix(domain, "."+w) {
			return true
		}
	}
	return false
}

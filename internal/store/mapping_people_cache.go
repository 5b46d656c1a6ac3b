package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/trawlhq/trawl/internal/mapping"
)

// foldedPeople is this process's copy of mapping_people, the folded filter
// columns, indexed by person id (ids are dense). Social mapping filters
// each engager against it with a few comparisons instead of an index probe
// per person. It is kept exact through mapping_people_log (copyState).
type foldedPeople struct {
	copyState
	people []foldedPerson
	// codes numbers the size, industry and country values ("" is 0).
	codes map[string]uint32
}

// foldedPerson is one row of mapping_people; present is false for people
// without one (their profile was never read, or changed since it was
// folded), whom Filters.Match decides from pronet_people.
type foldedPerson struct {
	present, titleNull, hasFollowers bool
	size, industry, country          uint32
	followers                        int64
	title, domain                    string
}

// code returns the number of a folded value, giving new values one.
func (c *foldedPeople) code(v string) uint32 {
	if v == "" {
		return 0
	}
	n, ok := c.codes[v]
	if !ok {
		n = uint32(len(c.codes) + 1)
		c.codes[v] = n
	}
	return n
}

// foldedRow is a mapping_people row as read, before it is applied.
type foldedRow struct {
	id                              int64
	present                         bool
	title                           sql.NullString
	domain, size, industry, country sql.NullString
	followers                       sql.NullInt64
}

// foldedColumns reads a foldedRow: m is mapping_people, LEFT JOINed.
const foldedColumns = `m.id IS NOT NULL, m.title, m.domain, m.size, m.industry, m.country, m.followers`

func (r *foldedRow) scan(rows *sql.Rows, before ...any) error {
	return rows.Scan(append(before, &r.present, &r.title, &r.domain, &r.size, &r.industry, &r.country, &r.followers)...)
}

// apply writes rows into the copy (under mu).
func (c *foldedPeople) apply(rows []foldedRow) {
	for _, r := range rows {
		if r.id < 0 {
			continue
		}
		if int(r.id) >= len(c.people) {
			if !r.present {
				continue
			}
			grown := make([]foldedPerson, int(r.id)+1+len(c.people)/4)
			copy(grown, c.people)
			c.people = grown
		}
		if !r.present {
			c.people[r.id] = foldedPerson{}
			continue
		}
		c.people[r.id] = foldedPerson{present: true, titleNull: !r.title.Valid, title: r.title.String,
			domain: r.domain.String, size: c.code(r.size.String), industry: c.code(r.industry.String),
			country: c.code(r.country.String), hasFollowers: r.followers.Valid, followers: r.followers.Int64}
	}
}

// foldedCopy brings the copy up to date and returns it, read-locked: the
// caller calls mu.RUnlock when done with it.
func (s *Store) foldedCopy(ctx context.Context) (*foldedPeople, error) {
	c := &s.folded
	err := s.syncCopy(ctx, &c.copyState, peopleLog, func(tx *sql.Tx, changed string, args []any) (func(bool), error) {
		query := `SELECT m.id, ` + foldedColumns + ` FROM mapping_people m`
		if changed != "" {
			query = `SELECT l.id, ` + foldedColumns + ` FROM (` + changed + `) l LEFT JOIN mapping_people m ON m.id = l.id`
		}
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var read []foldedRow
		for rows.Next() {
			var r foldedRow
			if err := r.scan(rows, &r.id); err != nil {
				return nil, err
			}
			read = append(read, r)
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return func(whole bool) {
			if whole {
				c.people, c.codes = nil, map[string]uint32{}
			}
			c.apply(read)
		}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("folded people: %w", err)
	}
	return c, nil
}

// foldedFilter is mapping.Filters with its values folded as mapping_people
// holds them, tested against a foldedPerson exactly as filterPeople's SQL
// tests a row.
type foldedFilter struct {
	titles, titlesExcl, domains, domainsExcl                               []string
	sizes, sizesExcl, industries, industriesExcl, countries, countriesExcl map[uint32]bool
	followers                                                              []mapping.Range
}

func (c *foldedPeople) filter(f mapping.Filters) foldedFilter {
	fold := func(vals []string, fn func(string) string) []string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = fn(v)
		}
		return out
	}
	ff := foldedFilter{titles: fold(f.JobTitles, mapping.FoldTitle), titlesExcl: fold(f.JobTitlesExcludes, mapping.FoldTitle),
		domains: fold(f.DomainIncludes, mapping.DomainValue), domainsExcl: fold(f.DomainExcludes, mapping.DomainValue),
		followers: f.Followers}
	set := func(vals []string, fold func(string) string) map[uint32]bool {
		if len(vals) == 0 {
			return nil
		}
		out := map[uint32]bool{}
		for _, v := range vals {
			if n, ok := c.codes[fold(v)]; ok && n != 0 {
				out[n] = true
			}
		}
		return out
	}
	ff.sizes, ff.sizesExcl = set(f.CompanySizes, mapping.FoldKey), set(f.CompanySizesExcl, mapping.FoldKey)
	ff.industries, ff.industriesExcl = set(f.Industries, mapping.FoldKey), set(f.IndustriesExcludes, mapping.FoldKey)
	ff.countries, ff.countriesExcl = set(f.Countries, mapping.FoldKey), set(f.CountriesExcludes, mapping.FoldKey)
	return ff
}

// decide tells whether p passes (keep) or whether Go must decide it from
// the person's row (undecided: no folded row, or a title filter on a
// person whose headline stands in for the title).
func (ff *foldedFilter) decide(p *foldedPerson) (keep, undecided bool) {
	if !p.present {
		return false, true
	}
	if len(ff.titles) > 0 || len(ff.titlesExcl) > 0 {
		if p.titleNull {
			return false, true
		}
		if len(ff.titles) > 0 && !containsAny(p.title, ff.titles) {
			return false, false
		}
		if containsAny(p.title, ff.titlesExcl) {
			return false, false
		}
	}
	if len(ff.domains) > 0 && (p.domain == "" || !domainAny(p.domain, ff.domains)) {
		return false, false
	}
	if p.domain != "" && domainAny(p.domain, ff.domainsExcl) {
		return false, false
	}
	for _, x := range []struct {
		v        uint32
		in, excl map[uint32]bool
	}{{p.size, ff.sizes, ff.sizesExcl}, {p.industry, ff.industries, ff.industriesExcl}, {p.country, ff.countries, ff.countriesExcl}} {
		if x.in != nil && (x.v == 0 || !x.in[x.v]) {
			return false, false
		}
		if x.v != 0 && x.excl[x.v] {
			return false, false
		}
	}
	if len(ff.followers) > 0 {
		if !p.hasFollowers {
			return false, false
		}
		in := false
		for _, r := range ff.followers {
			if p.followers >= r.Min && (r.Max == nil || p.followers <= *r.Max) {
				in = true
				break
			}
		}
		if !in {
			return false, false
		}
	}
	return true, false
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

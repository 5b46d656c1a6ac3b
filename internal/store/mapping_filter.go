package store

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/trawlhq/trawl/internal/mapping"
)

// prefilter is a WHERE condition on pronet_people p that keeps every person
// mapping.Filters.Match keeps, and drops most of the others: each filter is
// decided in SQL only where SQL decides it exactly as Go does, that is on
// ASCII values (ASCII case folding is the same everywhere; SQLite's lower()
// folds ASCII only, PostgreSQL's depends on the locale, so PostgreSQL folds
// with translate()). A person with a non-ASCII value passes that filter's
// condition and Match decides in Go. Arguments are numbered from n.
func (s *Store) prefilter(f mapping.Filters, n int) (string, []any) {
	var (
		conds []string
		args  []any
	)
	arg := func(v any) string {
		args = append(args, v)
		ph := fmt.Sprintf("$%d", n+len(args)-1)
		if s.dialect == Postgres {
			// Typed: PostgreSQL cannot infer a type for '.' || $n.
			if _, ok := v.(string); ok {
				return ph + "::text"
			}
			return ph + "::bigint"
		}
		return ph
	}
	ascii := func(col string) string {
		if s.dialect == Postgres {
			return "octet_length(" + col + ") = char_length(" + col + ")"
		}
		return "length(CAST(" + col + " AS BLOB)) = length(" + col + ")"
	}
	lower := func(col string) string {
		if s.dialect == Postgres {
			return "translate(" + col + ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
		}
		return "lower(" + col + ")"
	}
	upper := func(col string) string {
		if s.dialect == Postgres {
			return "translate(" + col + ", 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')"
		}
		return "upper(" + col + ")"
	}
	contains := func(hay, needle string) string {
		if s.dialect == Postgres {
			return "strpos(" + hay + ", " + needle + ") > 0"
		}
		return "instr(" + hay + ", " + needle + ") > 0"
	}
	suffix := func(hay, w string) string {
		if s.dialect == Postgres {
			return "right(" + hay + ", char_length(" + w + ") + 1) = '.' || " + w
		}
		return "substr(" + hay + ", -(length(" + w + ") + 1)) = '.' || " + w
	}
	// include keeps the person when the column is non-ASCII or any test
	// holds; exclude drops them when it is ASCII and any test holds.
	include := func(col string, tests []string) {
		conds = append(conds, "(NOT ("+ascii(col)+") OR ("+col+" <> '' AND ("+strings.Join(tests, " OR ")+")))")
	}
	exclude := func(col string, tests []string) {
		conds = append(conds, "NOT ("+ascii(col)+" AND "+col+" <> '' AND ("+strings.Join(tests, " OR ")+"))")
	}
	title := "(CASE WHEN p.job_title = '' THEN p.headline ELSE p.job_title END)"
	titleTests := func(subs []string) ([]string, bool) {
		for _, sub := range subs {
			if !isASCII(strings.ToLower(sub)) {
				return nil, false // Go decides
			}
		}
		var tests []string
		for _, sub := range subs {
			tests = append(tests, contains(lower(title), arg(strings.ToLower(sub))))
		}
		return tests, true
	}
	if tests, ok := titleTests(f.JobTitles); ok && len(tests) > 0 {
		include(title, tests)
	}
	if tests, ok := titleTests(f.JobTitlesExcludes); ok && len(tests) > 0 {
		exclude(title, tests)
	}
	domainTests := func(domains []string) ([]string, bool) {
		for _, d := range domains {
			if !isASCII(mapping.DomainValue(d)) {
				return nil, false
			}
		}
		var tests []string
		for _, d := range domains {
			a := arg(mapping.DomainValue(d))
			tests = append(tests, lower("p.company_domain")+" = "+a, suffix(lower("p.company_domain"), a))
		}
		return tests, true
	}
	if tests, ok := domainTests(f.DomainIncludes); ok && len(tests) > 0 {
		include("p.company_domain", tests)
	}
	if tests, ok := domainTests(f.DomainExcludes); ok && len(tests) > 0 {
		exclude("p.company_domain", tests)
	}
	// Sizes are digits, '-' and '+', which have no case: equality is exact.
	if len(f.CompanySizes) > 0 {
		conds = append(conds, "p.company_size IN ("+argList(arg, f.CompanySizes)+")")
	}
	if len(f.CompanySizesExcl) > 0 {
		conds = append(conds, "p.company_size NOT IN ("+argList(arg, f.CompanySizesExcl)+")")
	}
	valueTests := func(col string, vals []string, fold func(string) string, fn func(string) string) ([]string, bool) {
		for _, v := range vals {
			if !isASCII(v) {
				return nil, false
			}
		}
		folded := make([]string, len(vals))
		for i, v := range vals {
			folded[i] = fold(v)
		}
		return []string{fn(col) + " IN (" + argList(arg, folded) + ")"}, true
	}
	if tests, ok := valueTests("p.industry", f.Industries, strings.ToLower, lower); ok && len(f.Industries) > 0 {
		include("p.industry", tests)
	}
	if tests, ok := valueTests("p.industry", f.IndustriesExcludes, strings.ToLower, lower); ok && len(f.IndustriesExcludes) > 0 {
		exclude("p.industry", tests)
	}
	if tests, ok := valueTests("p.country", f.Countries, strings.ToUpper, upper); ok && len(f.Countries) > 0 {
		include("p.country", tests)
	}
	if tests, ok := valueTests("p.country", f.CountriesExcludes, strings.ToUpper, upper); ok && len(f.CountriesExcludes) > 0 {
		exclude("p.country", tests)
	}
	if len(f.Followers) > 0 {
		var ranges []string
		for _, r := range f.Followers {
			c := "p.followers >= " + arg(r.Min)
			if r.Max != nil {
				c += " AND p.followers <= " + arg(*r.Max)
			}
			ranges = append(ranges, "("+c+")")
		}
		conds = append(conds, "(p.followers IS NOT NULL AND ("+strings.Join(ranges, " OR ")+"))")
	}
	if len(conds) == 0 {
		return "1 = 1", nil
	}
	return strings.Join(conds, " AND "), args
}

func argList(arg func(any) string, vals []string) string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = arg(v)
	}
	return strings.Join(out, ", ")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

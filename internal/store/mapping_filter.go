package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/trawlhq/trawl/internal/mapping"
)

// filterPeople returns the people of ids that pass the filters, exactly as
// mapping.Filters.Match decides. One SQL pass over the folded filter
// columns (mapping_people, folded in Go when the profile was stored, so
// that equality and substring tests in SQL give Go's answer on any
// script) keeps the people who pass; people without a row there, and,
// when titles are filtered, people whose title is their headline, pass
// SQL on what it knows and Match decides them in Go.
func (s *Store) filterPeople(ctx context.Context, ids []int64, f mapping.Filters) (map[int64]bool, error) {
	keep := make(map[int64]bool, len(ids))
	if len(ids) == 0 {
		return keep, nil
	}
	args := []any{s.int64List(ids)}
	arg := func(v any) string {
		args = append(args, v)
		ph := fmt.Sprintf("$%d", len(args))
		if s.dialect == Postgres {
			// Typed: PostgreSQL cannot infer a type for '.' || $n.
			if _, ok := v.(string); ok {
				return ph + "::text"
			}
			return ph + "::bigint"
		}
		return ph
	}
	list := func(vals []string, fold func(string) string) string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = arg(fold(v))
		}
		return strings.Join(out, ", ")
	}
	contains := func(sub string) string {
		if s.dialect == Postgres {
			return "strpos(m.title, " + arg(mapping.FoldTitle(sub)) + ") > 0"
		}
		return "instr(m.title, " + arg(mapping.FoldTitle(sub)) + ") > 0"
	}
	domain := func(want string) string {
		w := arg(mapping.DomainValue(want))
		if s.dialect == Postgres {
			return "(m.domain = " + w + " OR right(m.domain, char_length(" + w + ") + 1) = '.' || " + w + ")"
		}
		return "(m.domain = " + w + " OR substr(m.domain, -(length(" + w + ") + 1)) = '.' || " + w + ")"
	}
	anyOf := func(vals []string, test func(string) string) string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = test(v)
		}
		return "(" + strings.Join(out, " OR ") + ")"
	}
	var conds []string
	// A title is never '' (NULL when the headline stands in).
	if len(f.JobTitles) > 0 {
		conds = append(conds, "(m.title IS NULL OR "+anyOf(f.JobTitles, contains)+")")
	}
	if len(f.JobTitlesExcludes) > 0 {
		conds = append(conds, "(m.title IS NULL OR NOT "+anyOf(f.JobTitlesExcludes, contains)+")")
	}
	if len(f.DomainIncludes) > 0 {
		conds = append(conds, "(m.domain <> '' AND "+anyOf(f.DomainIncludes, domain)+")")
	}
	if len(f.DomainExcludes) > 0 {
		conds = append(conds, "NOT (m.domain <> '' AND "+anyOf(f.DomainExcludes, domain)+")")
	}
	for _, x := range []struct {
		col      string
		in, excl []string
	}{{"m.size", f.CompanySizes, f.CompanySizesExcl}, {"m.industry", f.Industries, f.IndustriesExcludes},
		{"m.country", f.Countries, f.CountriesExcludes}} {
		// Values folded as the stored ones (mapping.FoldKey: equal exactly when strings.EqualFold).
		if len(x.in) > 0 {
			conds = append(conds, "("+x.col+" <> '' AND "+x.col+" IN ("+list(x.in, mapping.FoldKey)+"))")
		}
		if len(x.excl) > 0 {
			conds = append(conds, "NOT ("+x.col+" <> '' AND "+x.col+" IN ("+list(x.excl, mapping.FoldKey)+"))")
		}
	}
	if len(f.Followers) > 0 {
		var ranges []string
		for _, r := range f.Followers {
			c := "m.followers >= " + arg(r.Min)
			if r.Max != nil {
				c += " AND m.followers <= " + arg(*r.Max)
			}
			ranges = append(ranges, "("+c+")")
		}
		conds = append(conds, "(m.followers IS NOT NULL AND ("+strings.Join(ranges, " OR ")+"))")
	}
	where := "TRUE"
	if len(conds) > 0 {
		where = strings.Join(conds, " AND ")
	}
	inGo := "m.id IS NULL"
	if len(f.JobTitles) > 0 || len(f.JobTitlesExcludes) > 0 {
		inGo += " OR m.title IS NULL"
	}
	var q interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	} = s.read
	if s.dialect == Postgres && len(ids) > 5000 {
		// PostgreSQL probes the people's index once per id unless told
		// otherwise; beyond a few thousand ids one pass over the (narrow)
		// table into a hash of the ids measured about twice as fast.
		tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, fmt.Errorf("filter people: %w", err)
		}
		defer tx.Rollback() //nolint:errcheck // read-only
		if _, err := tx.ExecContext(ctx, `SET LOCAL enable_nestloop = off`); err != nil {
			return nil, fmt.Errorf("filter people: %w", err)
		}
		q = tx
	}
	rows, err := q.QueryContext(ctx,
		`SELECT q.id, CASE WHEN `+inGo+` THEN 1 ELSE 0 END FROM (`+s.int64Rows(1)+`) q LEFT JOIN mapping_people m ON m.id = q.id
		  WHERE m.id IS NULL OR (`+where+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("filter people: %w", err)
	}
	var undecided []int64
	for rows.Next() {
		var (
			id   int64
			inGo int
		)
		if err := rows.Scan(&id, &inGo); err != nil {
			rows.Close()
			return nil, fmt.Errorf("filter people: %w", err)
		}
		if inGo == 1 {
			undecided = append(undecided, id)
			continue
		}
		keep[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("filter people: %w", err)
	}
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

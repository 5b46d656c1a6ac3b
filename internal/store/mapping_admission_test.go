package store

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/trawlhq/trawl/internal/mapping"
)

// foldedFixture is a folded copy of n people with random columns, folded
// as mapping_people holds them: every 17th without a row, every 7th with
// their headline for a title.
func foldedFixture(n int, r *rand.Rand) *foldedPeople {
	c := &foldedPeople{codes: map[string]uint32{}}
	pick := func(vals ...string) sql.NullString {
		return sql.NullString{String: vals[r.IntN(len(vals))], Valid: true}
	}
	var rows rowChunks[foldedRow]
	for i := range n {
		row := foldedRow{id: int64(i), present: i%17 != 16,
			title:     pick("vp sales", "sdr", "founder", "head of revops", "engineer"),
			domain:    pick("acme.com", "eu.acme.com", "globex.io", ""),
			size:      pick("1-10", "11-50", "51-200", "201-500", "501-1000"),
			industry:  pick(mapping.FoldKey("software"), mapping.FoldKey("retail"), mapping.FoldKey("banking")),
			country:   pick("US", "GB", "DE", "FR"),
			followers: sql.NullInt64{Int64: int64(r.IntN(20000)), Valid: r.IntN(5) > 0}}
		if i%7 == 6 {
			row.title = sql.NullString{}
		}
		rows.add(row)
	}
	c.apply(rows)
	return c
}

// The admission of every person, column by column, is what deciding each
// person alone says: pass when decide keeps them, undecided when it
// cannot decide.
func TestAdmissionDecidesAsEachPerson(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	c := foldedFixture(5005, r) // not a multiple of 8: 5004 is the last 7th
	for i, f := range []mapping.Filters{
		{CompanySizes: []string{"51-200", "201-500"}},
		{CompanySizes: []string{"51-200"}, Countries: []string{"US"}},
		{CompanySizesExcl: []string{"1-10"}, IndustriesExcludes: []string{"Retail"}},
		{JobTitles: []string{"sales", "sdr"}, Countries: []string{"US", "GB"}},
		{JobTitlesExcludes: []string{"engineer"}, DomainIncludes: []string{"acme.com"}},
		{DomainExcludes: []string{"acme.com"}, Industries: []string{"software"}},
		{Followers: []mapping.Range{{Min: 1000}}, CountriesExcludes: []string{"DE"}},
		{Countries: []string{"JP"}},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			a := admissionOf(c, f)
			ff := c.filter(f)
			passed := 0
			for id := range int64(len(c.flags)) {
				keep, undecided := ff.decide(c, id)
				if a.pass.has(id) != keep || a.undecided.has(id) != undecided {
					t.Fatalf("person %d: admission pass %v undecided %v, decide says %v %v",
						id, a.pass.has(id), a.undecided.has(id), keep, undecided)
				}
				if keep {
					passed++
				}
			}
			if i < 7 && passed == 0 {
				t.Fatal("no one passes: the case tests nothing")
			}
		})
	}
}

func BenchmarkAdmission(b *testing.B) {
	c := foldedFixture(1_000_000, rand.New(rand.NewPCG(7, 8)))
	for _, bc := range []struct {
		name string
		f    mapping.Filters
	}{
		{"sizes", mapping.Filters{CompanySizes: []string{"51-200", "201-500"}}},
		{"sizes and country", mapping.Filters{CompanySizes: []string{"51-200", "201-500"}, Countries: []string{"US"}}},
		{"titles and countries", mapping.Filters{JobTitles: []string{"sales", "sdr"}, Countries: []string{"US", "GB"}}},
	} {
		f := bc.f
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				admissionOf(c, f)
			}
		})
	}
}

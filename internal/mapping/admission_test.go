package mapping

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// foldedFixture is a folded copy of n people with random columns, folded
// as mapping_people holds them: every 17th without a row, every 7th with
// their headline for a title.
func foldedFixture(n int, r *rand.Rand) *foldedPeople {
	c := &foldedPeople{codes: map[string]uint32{}}
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	var rows rowChunks[FoldedRow]
	for i := range n {
		row := FoldedRow{ID: int64(i), Present: i%17 != 16,
			Title:     pick("vp sales", "sdr", "founder", "head of revops", "engineer"),
			Domain:    pick("acme.com", "eu.acme.com", "globex.io", ""),
			Size:      pick("1-10", "11-50", "51-200", "201-500", "501-1000"),
			Industry:  pick(FoldKey("software"), FoldKey("retail"), FoldKey("banking")),
			Country:   pick("US", "GB", "DE", "FR"),
			Followers: int64(r.IntN(20000)), HasFollowers: r.IntN(5) > 0}
		if i%7 == 6 {
			row.Title, row.TitleNull = "", true
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
	for i, f := range []Filters{
		{CompanySizes: []string{"51-200", "201-500"}},
		{CompanySizes: []string{"51-200"}, Countries: []string{"US"}},
		{CompanySizesExcl: []string{"1-10"}, IndustriesExcludes: []string{"Retail"}},
		{JobTitles: []string{"sales", "sdr"}, Countries: []string{"US", "GB"}},
		{JobTitlesExcludes: []string{"engineer"}, DomainIncludes: []string{"acme.com"}},
		{DomainExcludes: []string{"acme.com"}, Industries: []string{"software"}},
		{Followers: []Range{{Min: 1000}}, CountriesExcludes: []string{"DE"}},
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
		f    Filters
	}{
		{"sizes", Filters{CompanySizes: []string{"51-200", "201-500"}}},
		{"sizes and country", Filters{CompanySizes: []string{"51-200", "201-500"}, Countries: []string{"US"}}},
		{"titles and countries", Filters{JobTitles: []string{"sales", "sdr"}, Countries: []string{"US", "GB"}}},
	} {
		f := bc.f
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				admissionOf(c, f)
			}
		})
	}
}

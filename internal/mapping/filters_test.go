package mapping_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestSocialMappingFiltersFoldCase: the filters SQL decides on ASCII values
// and leaves to Go on the others give exactly what mapping.Filters.Match
// gives, whatever the case and the script: each person engaged once with
// one qualifying post, so the answer must be exactly the people Match
// keeps.
func TestSocialMappingFiltersFoldCase(t *testing.T) {
	people := []topic.Profile{
		{JobTitle: "GESCHÄFTSFÜHRER", CompanyDomain: "MÜNCHEN.example.DE", Industry: "Ärzte und Kliniken", Country: "de"},
		{JobTitle: "Geschäftsführerin Vertrieb", CompanyDomain: "eu.münchen.example.de", Industry: "ÄRZTE UND KLINIKEN", Country: "DE"},
		{JobTitle: "Head of SALES", CompanyDomain: "Acme.COM", Industry: "Software Development", Country: "us"},
		{JobTitle: "", Headline: "Sales Leader | ΣΥΜΒΟΥΛΟΣ", CompanyDomain: "", Industry: "software development", Country: "Us"},
		{JobTitle: "Σύμβουλος πωλήσεων", CompanyDomain: "ΠΑΡΆΔΕΙΓΜΑ.gr", Industry: "Retail", Country: "GR"},
		{JobTitle: "Ingénieur Commercial", CompanyDomain: "notacme.com", Industry: "RETAIL", Country: "FR"},
		{JobTitle: "Engineer", CompanyDomain: "x.acme.com", Industry: "", Country: ""},
		{JobTitle: "İstanbul Sales", CompanyDomain: "ACME.COM.TR", Industry: "Retail", Country: "TR"},
	}
	filters := []mapping.Filters{
		{JobTitles: []string{"geschäftsführer"}},
		{JobTitles: []string{"GESCHÄFTSFÜHRER"}},
		{JobTitles: []string{"sales"}},
		{JobTitles: []string{"σύμβουλος"}},
		{JobTitles: []string{"ΣΥΜΒΟΥΛΟΣ"}},
		{JobTitlesExcludes: []string{"SALES"}},
		{JobTitlesExcludes: []string{"geschäftsführer", "engineer"}},
		{JobTitles: []string{"i̇stanbul"}},
		{DomainIncludes: []string{"münchen.example.de"}},
		{DomainIncludes: []string{"acme.com"}},
		{DomainIncludes: []string{"παράδειγμα.gr"}},
		{DomainExcludes: []string{"ACME.com", "MÜNCHEN.EXAMPLE.DE"}},
		{Industries: []string{"ärzte und kliniken"}},
		{Industries: []string{"SOFTWARE DEVELOPMENT", "retail"}},
		{IndustriesExcludes: []string{"Retail"}},
		{Countries: []string{"US", "DE"}},
		{CountriesExcludes: []string{"DE", "TR"}},
		{JobTitles: []string{"sales", "geschäftsführer"}, Countries: []string{"DE", "US"}, IndustriesExcludes: []string{"retail"}},
	}
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s := storetest.Open(t, engine, func() time.Time { return now })
			m := mapping.NewEngine(s.MappingPool())
			byURN := map[string]mapping.Person{}
			for i := range people {
				p := &people[i]
				p.URN = seed.PersonURN(i)
				p.FullName = "Person " + strconv.Itoa(i)
				title := p.JobTitle
				if title == "" {
					title = p.Headline
				}
				byURN[p.URN] = mapping.Person{URN: p.URN, JobTitle: title, CompanyDomain: p.CompanyDomain, Industry: p.Industry, Country: p.Country}
			}
			if _, err := seed.People(ctx, s, now.Add(-time.Hour), people); err != nil {
				t.Fatal(err)
			}
			urn := seed.PostURN(1)
			rec, _ := json.Marshal(pronet.Post{Text: "RevOps matters", URN: urn, PostedDateTimestamp: now.Add(-day).UnixMilli()})
			post := seed.PoolPost{Post: topic.Post{URN: urn, PostedAt: now.Add(-day), Record: rec}, SeenAt: now.Add(-day)}
			if _, err := seed.PoolPosts(ctx, s, []seed.PoolPost{post}); err != nil {
				t.Fatal(err)
			}
			var es []seed.PoolEngagement
			for i, p := range people {
				at := now.Add(-time.Duration(i+1) * time.Minute)
				es = append(es, seed.PoolEngagement{PostURN: urn, PersonURN: p.URN, Type: "like", At: at, SeenAt: at, Interval: topic.Initial})
			}
			if _, err := seed.PoolEngagements(ctx, s, es); err != nil {
				t.Fatal(err)
			}
			check := func(state string) {
				t.Helper()
				for _, f := range filters {
					checkFilter(t, m, f, people, byURN, now, state)
				}
			}
			// Seeded people have no folded columns: Go decides them all.
			check("seeded")
			// Folded in Go, decided in SQL.
			if _, err := s.PrecomputeMapping(ctx); err != nil {
				t.Fatal(err)
			}
			check("precomputed")
		})
	}
}

// checkFilter: the mapping answer with filters f is exactly the people
// Match keeps.
func checkFilter(t *testing.T, m *mapping.Engine, f mapping.Filters, people []topic.Profile, byURN map[string]mapping.Person, now time.Time, state string) {
	t.Helper()
	var want []string
	for _, p := range people {
		if f.Match(byURN[p.URN]) {
			want = append(want, p.URN)
		}
	}
	q := mapping.Query{Keywords: []string{"revops"}, Days: 7, Strength: 1, Filters: f, Page: 1, PageSize: 50}
	rs, total, err := m.SocialMapping(context.Background(), q, now, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.Person.URN)
	}
	if !slices.Equal(got, want) || total != int64(len(want)) {
		t.Errorf("%s: %+v: got %v (total %d), want %v", state, f, got, total, want)
	}
}

// TestSocialMappingFiltersMany: filters over more people than PostgreSQL
// probes one by one (it then scans the folded columns into a hash of the
// ids) keep exactly the people Match keeps, folded or not.
func TestSocialMappingFiltersMany(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	sizes := []string{"1-10", "11-50", "51-200", "201-500"}
	countries := []string{"US", "GB", "de", "Fr"}
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s := storetest.Open(t, engine, func() time.Time { return now })
			m := mapping.NewEngine(s.MappingPool())
			const n = 6000
			people := make([]topic.Profile, n)
			byURN := map[string]mapping.Person{}
			for i := range people {
				p := topic.Profile{URN: seed.PersonURN(i), FullName: "Person " + strconv.Itoa(i),
					JobTitle: []string{"Head of Sales", "Engineer", "", "GESCHÄFTSFÜHRER"}[i%4], Headline: "Sales at X",
					CompanySize: sizes[i%3], Country: countries[i%4], Industry: []string{"Software Development", "Ärzte"}[i%2]}
				if i%5 != 0 {
					p.Followers = followers(int64(i))
				}
				people[i] = p
				title := p.JobTitle
				if title == "" {
					title = p.Headline
				}
				byURN[p.URN] = mapping.Person{URN: p.URN, JobTitle: title, CompanySize: p.CompanySize, Country: p.Country,
					Industry: p.Industry, Followers: p.Followers}
			}
			if _, err := seed.People(ctx, s, now.Add(-time.Hour), people); err != nil {
				t.Fatal(err)
			}
			urn := seed.PostURN(1)
			rec, _ := json.Marshal(pronet.Post{Text: "RevOps matters", URN: urn, PostedDateTimestamp: now.Add(-day).UnixMilli()})
			post := seed.PoolPost{Post: topic.Post{URN: urn, PostedAt: now.Add(-day), Record: rec}, SeenAt: now.Add(-day)}
			if _, err := seed.PoolPosts(ctx, s, []seed.PoolPost{post}); err != nil {
				t.Fatal(err)
			}
			es := make([]seed.PoolEngagement, n)
			for i, p := range people {
				at := now.Add(-time.Duration(i+1) * time.Second)
				es[i] = seed.PoolEngagement{PostURN: urn, PersonURN: p.URN, Type: "like", At: at, SeenAt: at, Interval: topic.Initial}
			}
			if _, err := seed.PoolEngagements(ctx, s, es); err != nil {
				t.Fatal(err)
			}
			filters := []mapping.Filters{
				{CompanySizes: []string{"51-200", "201-500"}},
				{Countries: []string{"DE", "US"}, IndustriesExcludes: []string{"ärzte"}},
				{JobTitles: []string{"sales", "geschäftsführer"}, Followers: []mapping.Range{{Min: 1000}}},
			}
			for _, state := range []string{"seeded", "precomputed"} {
				if state == "precomputed" {
					if _, err := s.PrecomputeMapping(ctx); err != nil {
						t.Fatal(err)
					}
				}
				for _, f := range filters {
					var want []string
					for _, p := range people {
						if f.Match(byURN[p.URN]) {
							want = append(want, p.URN)
						}
					}
					q := mapping.Query{Keywords: []string{"revops"}, Days: 7, Strength: 1, Filters: f, Page: 2, PageSize: 50}
					rs, total, err := m.SocialMapping(ctx, q, now, n)
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, r := range rs {
						got = append(got, r.Person.URN)
					}
					if total != int64(len(want)) || !slices.Equal(got, want[50:100]) {
						t.Errorf("%s: %+v: total %d, want %d; page 2 %v, want %v", state, f, total, len(want), got, want[50:100])
					}
				}
			}
		})
	}
}

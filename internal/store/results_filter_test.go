package store_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestAuthorFiltersFoldCase: the author filters that SQL narrows on ASCII
// values and leaves to Go on the others keep exactly the results and
// engagers AuthorFilter keeps, whatever the case and the script (letters
// whose case folding leaves or enters ASCII included), through paging,
// totals and exports, on every engine.
func TestAuthorFiltersFoldCase(t *testing.T) {
	people := []topic.Profile{
		{JobTitle: "GESCHÄFTSFÜHRER", Company: "MÜNCHEN Kliniken", Industry: "Ärzte und Kliniken", Country: "DE"},
		{JobTitle: "Geschäftsführerin Vertrieb", Company: "münchen kliniken GmbH", Industry: "ÄRZTE UND KLINIKEN", Country: "DE"},
		{JobTitle: "Head of SALES", Company: "Acme", Industry: "Software Development", Country: "US"},
		{Headline: "Sales Leader | ΣΥΜΒΟΥΛΟΣ", Company: "Globex", Industry: "software development", Country: "US"},
		{JobTitle: "Σύμβουλος πωλήσεων", Company: "ΠΑΡΆΔΕΙΓΜΑ", Industry: "Retail", Country: "GR"},
		{JobTitle: "\u212Aey Account Manager", Company: "\u212Aelvin Labs", Industry: "Retail", Country: "GB"}, // Kelvin sign: lower case is ASCII k
		{JobTitle: "İstanbul Sales", Company: "ACME TR", Industry: "Retail", Country: "TR"},
		{JobTitle: "Cloſer", Company: "Straße AG", Industry: "Long \u017F Trade", Country: "AT"}, // long s: folds to s, lower case is itself
	}
	profiles := []struct{ description, location string }{
		{"GESCHÄFTSFÜHRER bei MÜNCHEN Kliniken", "München, Germany"},
		{"\u212Aey account lead", "Athens, Greece"},
		{"Head of Sales, Acme", "Austin, TX"},
		{"σύμβουλος πωλήσεων", "London, UK"},
		{"", "Toronto, ON"},
		{"Straße manager", "Wien, Austria"},
	}
	filters := []store.AuthorFilter{
		{}, // no filter: the unfiltered lists, deep pages found through the page index
		{JobTitle: "geschäftsführer"}, {JobTitle: "GESCHÄFTSFÜHRER"}, {JobTitle: "sales"}, {JobTitle: "σύμβουλος"},
		{JobTitle: "ΣΥΜΒΟΥΛΟΣ"}, {JobTitle: "key"}, {JobTitle: "\u212Aey"}, {JobTitle: "KEY ACCOUNT"}, {JobTitle: "closer"},
		{JobTitle: "istanbul"}, {JobTitle: "i̇stanbul"},
		{Company: "münchen"}, {Company: "MÜNCHEN"}, {Company: "kelvin"}, {Company: "acme"}, {Company: "STRASSE"}, {Company: "straße"},
		{Industry: "ärzte und kliniken"}, {Industry: "software development"}, {Industry: "RETAIL"}, {Industry: "long s trade"},
		{Industry: "LONG S TRADE"}, {Industry: "kliniken"},
		{Country: "DE"}, {Country: "GB"}, {Country: "US"}, {Country: "CA"}, {Country: "AT"},
		{JobTitle: "sales", Country: "US"}, {JobTitle: "sales", Company: "acme", Industry: "software development", Country: "US"},
		// Seniority is the level the title (or bio) states, decided in Go.
		{Seniority: "director"}, {Seniority: "manager"}, {Seniority: "owner"}, {Seniority: "director", Country: "US"},
	}
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		st := storetest.Open(t, engine, nil)
		a := auth.Account{Name: "filters", Plan: auth.PlanCustom}
		if err := st.CreateAccount(ctx, &a); err != nil {
			t.Fatal(err)
		}
		base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		// The people, through a topic's engagers.
		tp := topic.Topic{AccountID: a.ID, Name: "t", Definition: topic.Definition{Keywords: []string{"x"}}}
		if err := st.CreateTopic(ctx, &tp, time.Minute); err != nil {
			t.Fatal(err)
		}
		post := seed.NewTopicData(base).Post(1)
		if _, err := seed.TopicPosts(ctx, st, tp.ID, []seed.Post{{Post: post, LinkedAt: base, Interval: topic.Initial}}); err != nil {
			t.Fatal(err)
		}
		var es []seed.Engagement
		for i := range people {
			p := &people[i]
			p.URN, p.Username = "urn:li:person:f"+strconv.Itoa(i), "member-"+strconv.Itoa(i)
			es = append(es, seed.Engagement{PostURN: post.URN, Person: *p, Type: "like", At: base.Add(time.Duration(i) * time.Minute), Interval: topic.Initial})
		}
		if _, err := seed.TopicEngagements(ctx, st, tp.ID, base, es); err != nil {
			t.Fatal(err)
		}
		// Results: pronet ones by each person (and by someone never collected), microblog ones by each profile.
		sr := search.Search{AccountID: a.ID, Name: "s", Kind: "pronet-posts"}
		if err := seed.Search(ctx, st, &sr); err != nil {
			t.Fatal(err)
		}
		var items []source.Item
		for i := range 60 {
			it := source.Item{ID: strconv.Itoa(100 + i), PublishedAt: base.Add(time.Duration(i/2) * time.Second)}
			switch {
			case i%3 == 0:
				p := profiles[(i/3)%len(profiles)]
				it.Source, it.Author = "microblog", source.Author{Username: "mb" + strconv.Itoa(i), Description: p.description, Location: p.location}
			case i%7 == 0:
				it.Source, it.Author = "pronet", source.Author{Username: "never-collected"}
			default:
				it.Source, it.Author = "pronet", source.Author{Username: people[i%len(people)].Username}
			}
			items = append(items, it)
		}
		if _, err := seed.Results(ctx, st, sr.ID, base, items); err != nil {
			t.Fatal(err)
		}
		byUsername := map[string]store.Person{}
		for _, p := range people {
			byUsername[p.Username] = store.Person{URN: p.URN, JobTitle: p.JobTitle, Headline: p.Headline, Company: p.Company, Industry: p.Industry, Country: p.Country}
		}
		newestFirst := slices.Clone(items)
		slices.Reverse(newestFirst)
		for _, f := range filters {
			var want []string
			for _, it := range newestFirst {
				keep := f.MatchProfile(it.Author.Description, it.Author.Location)
				if it.Source == "pronet" {
					p, ok := byUsername[it.Author.Username]
					keep = ok && f.MatchPerson(p)
				}
				if keep {
					want = append(want, it.ID)
				}
			}
			if !f.Empty() { // the unfiltered results list has its own tests
				var got []string
				cursor := ""
				for {
					page, err := st.FilteredResults(ctx, sr, store.ResultQuery{Author: f}, 2, cursor)
					if err != nil {
						t.Fatal(err)
					}
					if page.TotalCount != int64(len(want)) {
						t.Fatalf("%+v: total %d, want %d", f, page.TotalCount, len(want))
					}
					for _, it := range page.Items {
						got = append(got, it.ID)
					}
					if cursor = page.NextCursor; cursor == "" {
						break
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%+v: results %v, want %v", f, got, want)
				}
				exp := st.ExportResults(sr, store.ResultQuery{Author: f}, 3)
				got = nil
				for {
					rows, err := exp.Next(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if len(rows) == 0 {
						break
					}
					for _, r := range rows {
						got = append(got, r.Item.ID)
						if r.Item.Source == "pronet" && (r.Author == nil || r.Author.URN != byUsername[r.Item.Author.Username].URN) {
							t.Fatalf("export row %s has author %+v", r.Item.ID, r.Author)
						}
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%+v: export %v, want %v", f, got, want)
				}

			}
			// Engagers: newest engagement first, each person once.
			var wantURNs []string
			for i := len(people) - 1; i >= 0; i-- {
				p := byUsername[people[i].Username]
				if f.MatchPerson(p) {
					wantURNs = append(wantURNs, p.URN)
				}
			}
			for _, size := range []int{1, 3} {
				var gotURNs []string
				for page := 1; ; page++ {
					es, total, err := st.FilteredTopicEngagers(ctx, tp.ID, f, page, size)
					if err != nil {
						t.Fatal(err)
					}
					if total != int64(len(wantURNs)) {
						t.Fatalf("%+v: %d engagers, want %d", f, total, len(wantURNs))
					}
					if len(es) == 0 {
						break
					}
					for _, e := range es {
						gotURNs = append(gotURNs, e.Person.URN)
					}
				}
				if !slices.Equal(gotURNs, wantURNs) {
					t.Fatalf("%+v: engagers by page %v, want %v", f, gotURNs, wantURNs)
				}
				gotURNs = nil
				for cursor := store.FirstEngagersCursor(); cursor != ""; {
					es, next, total, err := st.FilteredTopicEngagersAfter(ctx, tp.ID, f, cursor, size)
					if err != nil {
						t.Fatal(err)
					}
					if total != int64(len(wantURNs)) {
						t.Fatalf("%+v: %d engagers after a cursor, want %d", f, total, len(wantURNs))
					}
					for _, e := range es {
						gotURNs = append(gotURNs, e.Person.URN)
					}
					cursor = next
				}
				if !slices.Equal(gotURNs, wantURNs) {
					t.Fatalf("%+v: engagers by cursor %v, want %v", f, gotURNs, wantURNs)
				}
			}
		}
	})
}

func TestLocationCountry(t *testing.T) {
	for loc, want := range map[string]string{
		"Berlin, Germany": "DE", "Germany": "DE", "london, uk": "GB", "USA": "US", "Paris, France.": "FR",
		"Austin, TX": "", "Toronto, ON": "", "DE": "", "San Francisco, CA": "", "München, Deutschland": "",
		"": "", "Earth": "", "Remote": "", "Mumbai,India": "IN", "Somewhere, United States of America": "US",
	} {
		if got := store.LocationCountry(loc); got != want {
			t.Errorf("LocationCountry(%q) = %q, want %q", loc, got, want)
		}
	}
}

// FuzzLocationCountry: any location (outside input, from the upstream)
// gives no country or a two-letter upper-case code, without panicking.
func FuzzLocationCountry(f *testing.F) {
	for _, s := range []string{"Berlin, Germany", "Austin, TX", ",", " , ", "ü, ß", "\xff", "a,b,c,United Kingdom"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, loc string) {
		c := store.LocationCountry(loc)
		if c != "" && (len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z') {
			t.Fatalf("LocationCountry(%q) = %q", loc, c)
		}
	})
}

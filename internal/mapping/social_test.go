package mapping_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

func personKeys(urns []string) []string {
	out := make([]string, len(urns))
	for i, u := range urns {
		out[i] = strings.ToUpper(strings.TrimPrefix(u, "ACoAAfixture-"))
	}
	return out
}

func mappingKeys(rs []mapping.Result) []string {
	urns := make([]string, len(rs))
	for i, r := range rs {
		urns[i] = r.Person.URN
	}
	return personKeys(urns)
}

func creatorKeys(cs []mapping.Creator) []string {
	urns := make([]string, len(cs))
	for i, c := range cs {
		urns[i] = c.Person.URN
	}
	return personKeys(urns)
}

func mustRange(t *testing.T, s string) mapping.Range {
	t.Helper()
	r, err := mapping.ParseRange(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSocialMappingFixture(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			f := newMappingFixture(t, engine)
			t.Run("cases", func(t *testing.T) { testMappingCases(t, f) })
			t.Run("results", func(t *testing.T) { testMappingResults(t, f) })
			t.Run("too broad", func(t *testing.T) { testMappingTooBroad(t, f) })
			t.Run("creators", func(t *testing.T) { testCreators(t, f) })
			// Last: it adds engagements.
			t.Run("paging", func(t *testing.T) { testMappingPaging(t, f) })
		})
	}
}

// base is the 7-day, strength-1 query for "revops": posts P1, P2 and P4
// qualify (P3 and P5 do not mention it, P6-P9 have no engagements).
// Their people, each at their latest engagement on those posts in the
// window, newest first:
//
//	U2 T-30m (P4 like), U1 T-1h (P1 comment), U6 T-4h, U9 T-1d, U8 T-2d, U3 T-5d (P1), U7 T-6d, U4 T-7d
//
// U5's only engagement on them is 1 ms before the cutoff; U10's are on P3
// and P5.
func baseQuery() mapping.Query {
	return mapping.Query{Keywords: []string{"revops"}, Days: 7, Strength: 1}
}

func testMappingCases(t *testing.T, f *mappingFixture) {
	with := func(mod func(q *mapping.Query)) mapping.Query {
		q := baseQuery()
		mod(&q)
		return q
	}
	filter := func(mod func(f *mapping.Filters)) mapping.Query {
		q := baseQuery()
		mod(&q.Filters)
		return q
	}
	cases := []struct {
		name string
		q    mapping.Query
		want []string
	}{
		{"base", baseQuery(), []string{"U2", "U1", "U6", "U9", "U8", "U3", "U7", "U4"}},
		{"keyword case-insensitive", with(func(q *mapping.Query) { q.Keywords = []string{"REVOPS"} }),
			[]string{"U2", "U1", "U6", "U9", "U8", "U3", "U7", "U4"}},
		// Strength.
		{"strength 3: only P2 mentions revops 3 times", with(func(q *mapping.Query) { q.Strength = 3 }),
			[]string{"U2", "U1", "U6", "U8"}},
		{"strength 3 summed over keywords: P1 (2+1) and P2 (3), not P4 (1+1)",
			with(func(q *mapping.Query) { q.Keywords, q.Strength = []string{"revops", "pipeline hygiene"}, 3 }),
			[]string{"U1", "U2", "U6", "U9", "U8", "U3", "U7"}},
		{"strength 2: P1 and P2", with(func(q *mapping.Query) { q.Strength = 2 }),
			[]string{"U1", "U2", "U6", "U9", "U8", "U3", "U7"}},
		{"strength 0 adds P3, linked by the revops topic", with(func(q *mapping.Query) { q.Strength = 0 }),
			[]string{"U3", "U10", "U2", "U1", "U6", "U9", "U8", "U7", "U4"}},
		{"strength 0 with a phrase adds P5; U1 and U5 tie at T-1h, by person",
			with(func(q *mapping.Query) { q.Keywords, q.Strength = []string{"pipeline hygiene"}, 0 }),
			[]string{"U10", "U2", "U1", "U5", "U9", "U3", "U7", "U4"}},
		{"strength 0 without a topic for the keyword: text only (P3)", with(func(q *mapping.Query) { q.Keywords, q.Strength = []string{"hiring"}, 0 }),
			[]string{"U3", "U10"}},
		// Words, phrases and hashtags.
		{"phrase", with(func(q *mapping.Query) { q.Keywords = []string{"pipeline hygiene"} }),
			[]string{"U2", "U1", "U9", "U3", "U7", "U4"}},
		{"hashtag keyword matches only hashtags (P1, P4; not P2)", with(func(q *mapping.Query) { q.Keywords = []string{"#revops"} }),
			[]string{"U2", "U1", "U9", "U3", "U7", "U4"}},
		{"not a whole word", with(func(q *mapping.Query) { q.Keywords = []string{"revop"} }), []string{}},
		{"no such word", with(func(q *mapping.Query) { q.Keywords = []string{"zzzqqq"} }), []string{}},
		// Window edges.
		{"8 days admits U5, 1 ms before the 7-day cutoff", with(func(q *mapping.Query) { q.Days = 8 }),
			[]string{"U2", "U1", "U6", "U9", "U8", "U3", "U7", "U4", "U5"}},
		{"1 day: U9's likes exactly at the cutoff", with(func(q *mapping.Query) { q.Days = 1 }),
			[]string{"U2", "U1", "U6", "U9"}},
		// Job titles (the headline until the profile is read: U8).
		{"job_titles", filter(func(f *mapping.Filters) { f.JobTitles = []string{"sales"} }), []string{"U2", "U8", "U4"}},
		{"job_titles case-insensitive", filter(func(f *mapping.Filters) { f.JobTitles = []string{"REVENUE"} }), []string{"U1", "U6"}},
		{"job_titles OR'ed", filter(func(f *mapping.Filters) { f.JobTitles = []string{"engineer", "director"} }), []string{"U9", "U7"}},
		{"job_titles_excludes", filter(func(f *mapping.Filters) { f.JobTitlesExcludes = []string{"Sales"} }),
			[]string{"U1", "U6", "U9", "U3", "U7"}},
		{"job_titles with excludes", filter(func(f *mapping.Filters) {
			f.JobTitles, f.JobTitlesExcludes = []string{"revenue", "sales"}, []string{"chief"}
		}), []string{"U2", "U1", "U8", "U4"}},
		// Domains: itself and its subdomains, not notacme.com.
		{"company_domain_includes", filter(func(f *mapping.Filters) { f.DomainIncludes = []string{"acme.com"} }), []string{"U2", "U1", "U7"}},
		{"company_domain_includes www. and case", filter(func(f *mapping.Filters) { f.DomainIncludes = []string{"www.ACME.com"} }),
			[]string{"U2", "U1", "U7"}},
		{"company_domain_includes subdomain only", filter(func(f *mapping.Filters) { f.DomainIncludes = []string{"eu.acme.com"} }), []string{"U2"}},
		{"company_domain_includes public suffix", filter(func(f *mapping.Filters) { f.DomainIncludes = []string{"co.uk", "hooli.com"} }),
			[]string{"U6", "U9"}},
		{"company_domain_excludes", filter(func(f *mapping.Filters) { f.DomainExcludes = []string{"acme.com"} }),
			[]string{"U6", "U9", "U8", "U3", "U4"}},
		// Sizes.
		{"company_sizes", filter(func(f *mapping.Filters) { f.CompanySizes = []string{"51-200"} }), []string{"U1", "U7"}},
		{"company_sizes OR'ed", filter(func(f *mapping.Filters) { f.CompanySizes = []string{"51-200", "10001+"} }), []string{"U1", "U6", "U7"}},
		{"company_sizes_excludes", filter(func(f *mapping.Filters) { f.CompanySizesExcl = []string{"51-200"} }),
			[]string{"U2", "U6", "U9", "U8", "U3", "U4"}},
		// Industries: whole value, any case.
		{"industries", filter(func(f *mapping.Filters) { f.Industries = []string{"software development"} }), []string{"U2", "U1", "U6", "U7"}},
		{"industries not a substring", filter(func(f *mapping.Filters) { f.Industries = []string{"software"} }), []string{}},
		{"industries_excludes", filter(func(f *mapping.Filters) { f.IndustriesExcludes = []string{"SOFTWARE DEVELOPMENT"} }),
			[]string{"U9", "U8", "U3", "U4"}},
		// Countries.
		{"countries", filter(func(f *mapping.Filters) { f.Countries = []string{"US"} }), []string{"U1", "U6", "U4"}},
		{"countries OR'ed", filter(func(f *mapping.Filters) { f.Countries = []string{"GB", "DE"} }), []string{"U2", "U9", "U3"}},
		{"countries_excludes", filter(func(f *mapping.Filters) { f.CountriesExcludes = []string{"US"} }), []string{"U2", "U9", "U8", "U3", "U7"}},
		// Followers: U1 1500, U2 12000, U3 300, U4 5000, U6 250000, U7 800, U8 unknown, U9 10000.
		{"followers range, bounds included", filter(func(f *mapping.Filters) { f.Followers = []mapping.Range{mustRange(t, "1500-5000")} }),
			[]string{"U1", "U4"}},
		{"followers open range", filter(func(f *mapping.Filters) { f.Followers = []mapping.Range{mustRange(t, "10000+")} }),
			[]string{"U2", "U6", "U9"}},
		{"followers ranges OR'ed", filter(func(f *mapping.Filters) {
			f.Followers = []mapping.Range{mustRange(t, "1000-5000"), mustRange(t, "10,000+")}
		}), []string{"U2", "U1", "U6", "U9", "U4"}},
		{"followers unknown matches no range", filter(func(f *mapping.Filters) { f.Followers = []mapping.Range{mustRange(t, "0+")} }),
			[]string{"U2", "U1", "U6", "U9", "U3", "U7", "U4"}},
		// Combined.
		{"combined: title, domain, country", filter(func(f *mapping.Filters) {
			f.JobTitles, f.DomainIncludes, f.Countries = []string{"sales", "revenue"}, []string{"acme.com"}, []string{"GB"}
		}), []string{"U2"}},
		{"combined: industry, followers, country excluded", filter(func(f *mapping.Filters) {
			f.Industries, f.Followers, f.CountriesExcludes = []string{"Software Development"}, []mapping.Range{mustRange(t, "1000-100000")}, []string{"GB"}
		}), []string{"U1"}},
		{"combined with strength 0: size and title excluded", func() mapping.Query {
			q := baseQuery()
			q.Strength = 0
			q.Filters.CompanySizesExcl, q.Filters.JobTitlesExcludes = []string{"10001+", "11-50"}, []string{"engineer"}
			return q
		}(), []string{"U3", "U10", "U2", "U1", "U9", "U8"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs, total, err := f.Mapping(t, tc.q, noLimit)
			if err != nil {
				t.Fatal(err)
			}
			if got := mappingKeys(rs); !slices.Equal(got, tc.want) || total != int64(len(tc.want)) {
				t.Fatalf("got %v (total %d), want %v (total %d)", got, total, tc.want, len(tc.want))
			}
		})
	}
}

// testMappingResults checks what each result carries: the person, their
// latest qualifying engagement and its post.
func testMappingResults(t *testing.T, f *mappingFixture) {
	type want struct {
		person, post, kind string
		at                 time.Time
	}
	check := func(t *testing.T, q mapping.Query, wants []want) {
		t.Helper()
		rs, _, err := f.Mapping(t, q, noLimit)
		if err != nil {
			t.Fatal(err)
		}
		byPerson := map[string]mapping.Result{}
		for _, r := range rs {
			byPerson[mappingKeys([]mapping.Result{r})[0]] = r
		}
		for _, w := range wants {
			r, ok := byPerson[w.person]
			if !ok {
				t.Fatalf("%s missing", w.person)
			}
			if r.PostURN != fxPostURN(w.post) || r.EngagementType != w.kind || !r.EngagedAt.Equal(w.at) {
				t.Errorf("%s: %s %s at %s, want %s %s at %s", w.person, r.PostURN, r.EngagementType, r.EngagedAt, fxPostURN(w.post), w.kind, w.at)
			}
		}
	}
	t.Run("latest across posts", func(t *testing.T) {
		check(t, baseQuery(), []want{
			{"U1", "P1", "comment", mapNow.Add(-time.Hour)},     // not P2 like T-3h
			{"U2", "P4", "like", mapNow.Add(-30 * time.Minute)}, // not P2 comment T-2h
			{"U3", "P1", "like", mapNow.Add(-5 * day)},          // P3 does not qualify
			{"U6", "P2", "comment", mapNow.Add(-4 * time.Hour)}, // a comment before a like of the same instant
			{"U9", "P1", "like", mapNow.Add(-day)},              // same instant on P1 and P4: the lower post
			{"U4", "P4", "comment", mapNow.Add(-7 * day)},       // exactly at the cutoff
			{"U8", "P2", "comment", mapNow.Add(-2 * day)},       // no profile
			{"U7", "P1", "like", mapNow.Add(-6 * day)},          // one engagement
		})
	})
	t.Run("latest among qualifying posts", func(t *testing.T) {
		q := baseQuery()
		q.Strength = 3
		check(t, q, []want{{"U2", "P2", "comment", mapNow.Add(-2 * time.Hour)}, {"U1", "P2", "like", mapNow.Add(-3 * time.Hour)}})
		q.Strength = 0
		check(t, q, []want{{"U3", "P3", "like", mapNow.Add(-10 * time.Minute)}})
	})
	t.Run("members", func(t *testing.T) {
		rs, _, err := f.Mapping(t, baseQuery(), noLimit)
		if err != nil {
			t.Fatal(err)
		}
		u1 := rs[1]
		p := u1.Person
		if p.URN != fxPersonURN("U1") || p.FirstName != "FirstU1" || p.LastName != "LastU1" || p.JobTitle != "VP Revenue Operations" ||
			p.Company != "Acme" || p.CompanyDomain != "acme.com" || p.CompanySize != "51-200" || p.Industry != "Software Development" ||
			p.Country != "US" || p.Followers == nil || *p.Followers != 1500 || p.PronetURL != "https://www.linkedin.com/in/u1" {
			t.Errorf("U1 = %+v", p)
		}
		if u1.PostText != fxPosts[0].Text || u1.PostURL != "https://www.linkedin.com/feed/update/urn:li:activity:"+fxPostURN("P1")+"/" ||
			!u1.PostDate.Equal(mapNow.Add(-2*day)) || u1.PostLikes != 100 || u1.PostComments != 20 {
			t.Errorf("U1's post = %q %q %s %d %d", u1.PostText, u1.PostURL, u1.PostDate, u1.PostLikes, u1.PostComments)
		}
		u8 := rs[4].Person
		if u8.URN != fxPersonURN("U8") || u8.JobTitle != "Sales leader at Foo" || u8.Followers != nil || u8.Country != "" {
			t.Errorf("U8 (no profile) = %+v", u8)
		}
	})
}

func testMappingTooBroad(t *testing.T, f *mappingFixture) {
	// The base query weighs the engagements on P1 (4 in the window, U5's is
	// not), P2 (5) and P4 (3): 12.
	if _, total, err := f.Mapping(t, baseQuery(), 12); err != nil || total != 8 {
		t.Fatalf("at the limit: total %d, %v", total, err)
	}
	refused := func(t *testing.T, q mapping.Query, limit int, want mapping.ErrQueryTooBroad) {
		t.Helper()
		_, _, err := f.Mapping(t, q, limit)
		var broad *mapping.ErrQueryTooBroad
		if !errors.As(err, &broad) || *broad != want {
			t.Fatalf("over the limit of %d: %v, want %+v", limit, err, want)
		}
	}
	refused(t, baseQuery(), 11, mapping.ErrQueryTooBroad{Engagements: 12, Limit: 11})
	// With filters the limit weighs what they leave. In GB: U2's 2 and
	// U9's 2; U8 (no profile) is decided by reading their row, which
	// only happens when the others fit, and fails.
	gb := baseQuery()
	gb.Filters.Countries = []string{"GB"}
	if _, total, err := f.Mapping(t, gb, 4); err != nil || total != 2 {
		t.Fatalf("GB at 4: total %d, %v", total, err)
	}
	refused(t, gb, 3, mapping.ErrQueryTooBroad{Engagements: 4, Limit: 3, Filtered: true, AtLeast: true})
	// Titles with "sales": U2's 2, U4's 1, and U8's 1 (their headline,
	// "Sales leader at Foo", stands in for a title): 3 known at once, 4
	// once U8 is read.
	sales := baseQuery()
	sales.Filters.JobTitles = []string{"sales"}
	if _, total, err := f.Mapping(t, sales, 4); err != nil || total != 3 {
		t.Fatalf("sales at 4: total %d, %v", total, err)
	}
	refused(t, sales, 3, mapping.ErrQueryTooBroad{Engagements: 4, Limit: 3, Filtered: true})
	refused(t, sales, 2, mapping.ErrQueryTooBroad{Engagements: 3, Limit: 2, Filtered: true, AtLeast: true})
	// Strength 3 weighs P2's 5 only.
	if _, total, err := f.Mapping(t, mapping.Query{Keywords: []string{"revops"}, Days: 7, Strength: 3}, 5); err != nil || total != 4 {
		t.Fatalf("strength 3 at 5: total %d, %v", total, err)
	}
	if _, _, err := f.Mapping(t, mapping.Query{Keywords: []string{"revops"}, Days: 7, Strength: 3}, 4); err == nil {
		t.Fatal("strength 3 at 4: no error")
	}
}

// testMappingPaging: pages concatenate to the whole answer, and engagements
// that arrive older than a page's people leave that page as it was.
func testMappingPaging(t *testing.T, f *mappingFixture) {
	pages := func(size int) ([][]string, int64) {
		var out [][]string
		var total int64
		for page := 1; ; page++ {
			q := baseQuery()
			q.Page, q.PageSize = page, size
			rs, n, err := f.Mapping(t, q, noLimit)
			if err != nil {
				t.Fatal(err)
			}
			if page > 1 && n != total {
				t.Fatalf("page %d: total %d, page 1 said %d", page, n, total)
			}
			total = n
			if len(rs) == 0 {
				if int64((page-1)*size) < total {
					t.Fatalf("page %d empty with total %d", page, total)
				}
				return out, total
			}
			if len(rs) > size {
				t.Fatalf("page %d holds %d", page, len(rs))
			}
			out = append(out, mappingKeys(rs))
		}
	}
	before, total := pages(3)
	want := [][]string{{"U2", "U1", "U6"}, {"U9", "U8", "U3"}, {"U7", "U4"}}
	if total != 8 || len(before) != len(want) {
		t.Fatalf("pages %v, total %d", before, total)
	}
	for i := range want {
		if !slices.Equal(before[i], want[i]) {
			t.Fatalf("pages %v, want %v", before, want)
		}
	}
	// An engagement older than U1's latest changes nothing.
	f.Engage(t, fxEngagement{Person: "U1", Post: "P4", Kind: "like", At: mapNow.Add(-6 * time.Hour)})
	// A new person, older than every person of pages 1 and 2.
	f.Engage(t, fxEngagement{Person: "U11", Post: "P1", Kind: "like", At: mapNow.Add(-6*day - 12*time.Hour)})
	after, total := pages(3)
	want = [][]string{{"U2", "U1", "U6"}, {"U9", "U8", "U3"}, {"U7", "U11", "U4"}}
	if total != 9 || len(after) != len(want) {
		t.Fatalf("after new engagements: pages %v, total %d", after, total)
	}
	for i := range want {
		if !slices.Equal(after[i], want[i]) {
			t.Fatalf("after new engagements: pages %v, want %v", after, want)
		}
	}
	// A page far past the end is empty, however large its number.
	for _, page := range []int{4, math.MaxInt / 10, math.MaxInt} {
		q := baseQuery()
		q.Page, q.PageSize = page, 3
		if rs, n, err := f.Mapping(t, q, noLimit); err != nil || len(rs) != 0 || n != 9 {
			t.Fatalf("page %d: %d results, total %d, %v", page, len(rs), n, err)
		}
		if cs, n, err := f.Engine.DiscoverCreators(context.Background(), q, mapNow, noLimit); err != nil || len(cs) != 0 || n != 3 {
			t.Fatalf("creators page %d: %d results, total %d, %v", page, len(cs), n, err)
		}
	}
	// Every page size concatenates to the same list.
	flat := slices.Concat(after...)
	for _, size := range []int{1, 2, 4, 10} {
		got, n := pages(size)
		if n != 9 || !slices.Equal(slices.Concat(got...), flat) {
			t.Fatalf("page size %d: %v (total %d), want %v", size, got, n, flat)
		}
	}
}

// Creators. Each author's 10 most recent posts (reactions + comments):
//
//	C1: P2 T-1d (60), P1 T-2d (120), F1…F8 T-4d…T-11d (11i): mean (180 + 11·36)/10 = 57.6,
//	    gaps (T-1d − T-11d)/9 = 10/9 days; F9 and F10 are older than the 10
//	C2: P6 T-1d-1ms (10), P4 T-8d (30): mean 20, gap 7 days − 1 ms
//	C3: P3 T-3d (10), P5 T-4d (2): mean 6, gap 1 day
//	C4: P7 T-6d (42): mean 42, no gap
//	C5: P8 T-2d (10): mean 10, no gap
func testCreators(t *testing.T, f *mappingFixture) {
	dayMS := float64(day.Milliseconds())
	type stats struct {
		posts int
		avg   float64
		gap   float64 // days; 0 with one post
	}
	want := map[string]stats{
		"C1": {2, 57.6, 10.0 / 9},
		"C2": {1, 20, (7*dayMS - 1) / dayMS},
		"C3": {1, 6, 1},
		"C4": {1, 42, 0},
		"C5": {1, 10, 0},
	}
	run := func(t *testing.T, q mapping.Query, maxCandidates int) ([]mapping.Creator, int64, error) {
		t.Helper()
		if q.Page == 0 {
			q.Page = 1
		}
		if q.PageSize == 0 {
			q.PageSize = 50
		}
		return f.Engine.DiscoverCreators(context.Background(), q, mapNow, maxCandidates)
	}
	base := func(mod func(q *mapping.Query)) mapping.Query {
		q := mapping.Query{Keywords: []string{"revops"}, Days: 7, Strength: 1}
		mod(&q)
		return q
	}
	strength0 := func(mod func(f *mapping.Filters)) mapping.Query {
		q := mapping.Query{Keywords: []string{"revops"}, Days: 7, Strength: 0}
		mod(&q.Filters)
		return q
	}
	cases := []struct {
		name  string
		q     mapping.Query
		want  []string
		posts map[string]int // qualifying posts where they differ from want's stats
	}{
		// P1, P2 (C1), P6 (C2), P7 (C4) are in the window; P4 (C2) is not; P9 is a company page's.
		{"base: by qualifying posts, then engagement", base(func(q *mapping.Query) {}), []string{"C1", "C4", "C2"}, nil},
		{"9 days: C2's P4 too", base(func(q *mapping.Query) { q.Days = 9 }), []string{"C1", "C2", "C4"}, map[string]int{"C2": 2}},
		{"8 days: P4 exactly at the cutoff", base(func(q *mapping.Query) { q.Days = 8 }), []string{"C1", "C2", "C4"}, map[string]int{"C2": 2}},
		{"6 days: P7 exactly at the cutoff", base(func(q *mapping.Query) { q.Days = 6 }), []string{"C1", "C4", "C2"}, nil},
		{"1 day: P2 at the cutoff, P6 1 ms before", base(func(q *mapping.Query) { q.Days = 1 }), []string{"C1"}, map[string]int{"C1": 1}},
		{"strength 3: P2", base(func(q *mapping.Query) { q.Strength = 3 }), []string{"C1"}, map[string]int{"C1": 1}},
		{"strength 2: P1, P2", base(func(q *mapping.Query) { q.Strength = 2 }), []string{"C1"}, nil},
		{"hashtag: P1, P7 (P4 out of the window)", base(func(q *mapping.Query) { q.Keywords = []string{"#revops"} }), []string{"C1", "C4"},
			map[string]int{"C1": 1}},
		{"strength 0 adds P3 and P8, linked by the revops topic (P8 has no engagements)", strength0(func(f *mapping.Filters) {}),
			[]string{"C1", "C4", "C2", "C5", "C3"}, nil},
		{"job_titles (C4's headline)", strength0(func(f *mapping.Filters) { f.JobTitles = []string{"revops"} }), []string{"C1", "C4"}, nil},
		{"countries", strength0(func(f *mapping.Filters) { f.Countries = []string{"US"} }), []string{"C1"}, nil},
		{"followers, unknown matches none", strength0(func(f *mapping.Filters) { f.Followers = []mapping.Range{mustRange(t, "10000+")} }),
			[]string{"C1"}, nil},
		{"followers OR'ed", strength0(func(f *mapping.Filters) {
			f.Followers = []mapping.Range{mustRange(t, "0-1000"), mustRange(t, "3000-3000")}
		}), []string{"C2", "C5", "C3"}, nil},
		{"industries", strength0(func(f *mapping.Filters) { f.Industries = []string{"software development"} }), []string{"C1", "C5"}, nil},
		{"company_domain_excludes", strength0(func(f *mapping.Filters) { f.DomainExcludes = []string{"acme.com"} }),
			[]string{"C4", "C2", "C5", "C3"}, nil},
		{"combined", strength0(func(f *mapping.Filters) {
			f.JobTitles, f.CompanySizes, f.CountriesExcludes = []string{"sales", "ceo"}, []string{"1-10", "1001-5000"}, []string{"GB"}
		}), []string{"C5"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs, total, err := run(t, tc.q, noLimit)
			if err != nil {
				t.Fatal(err)
			}
			if got := creatorKeys(cs); !slices.Equal(got, tc.want) || total != int64(len(tc.want)) {
				t.Fatalf("got %v (total %d), want %v", got, total, tc.want)
			}
			for _, c := range cs {
				key := creatorKeys([]mapping.Creator{c})[0]
				w := want[key]
				if n, ok := tc.posts[key]; ok {
					w.posts = n
				}
				if c.QualifyingPosts != w.posts || math.Abs(c.AvgEngagement-w.avg) > 1e-9 {
					t.Errorf("%s: %d posts, avg %v; want %d, %v", key, c.QualifyingPosts, c.AvgEngagement, w.posts, w.avg)
				}
				if math.Abs(c.AvgDaysBetween-w.gap) > 1e-9 {
					t.Errorf("%s: avg days between %v, want %v", key, c.AvgDaysBetween, w.gap)
				}
			}
		})
	}
	t.Run("members", func(t *testing.T) {
		cs, _, err := run(t, base(func(q *mapping.Query) {}), noLimit)
		if err != nil {
			t.Fatal(err)
		}
		p := cs[0].Person
		if p.URN != fxPersonURN("C1") || p.FullName != "FirstC1 LastC1" || p.JobTitle != "Head of RevOps" || p.Company != "Acme" ||
			p.CompanyDomain != "acme.com" || p.CompanySize != "51-200" || p.Industry != "Software Development" || p.Country != "US" ||
			p.Followers == nil || *p.Followers != 20000 || p.PronetURL != "https://www.linkedin.com/in/c1" {
			t.Errorf("C1 = %+v", p)
		}
		if c4 := cs[1].Person; c4.JobTitle != "RevOps consultant | speaker" || c4.Followers != nil {
			t.Errorf("C4 = %+v", c4)
		}
	})
	t.Run("paging", func(t *testing.T) {
		var got []string
		for page := 1; page <= 4; page++ {
			q := strength0(func(f *mapping.Filters) {})
			q.Page, q.PageSize = page, 2
			cs, total, err := run(t, q, noLimit)
			if err != nil || total != 5 {
				t.Fatalf("page %d: total %d, %v", page, total, err)
			}
			got = append(got, creatorKeys(cs)...)
		}
		if want := []string{"C1", "C4", "C2", "C5", "C3"}; !slices.Equal(got, want) {
			t.Fatalf("pages %v, want %v", got, want)
		}
	})
	t.Run("too broad", func(t *testing.T) {
		// The base query's authors: C1, C2, C4 (and the company page of P9,
		// which is no creator).
		var broad *mapping.ErrQueryTooBroad
		if _, _, err := run(t, base(func(q *mapping.Query) {}), 2); !errors.As(err, &broad) || broad.Limit != 2 || broad.Engagements < 3 {
			t.Fatalf("over the limit: %v", err)
		}
		if _, total, err := run(t, base(func(q *mapping.Query) {}), 4); err != nil || total != 3 {
			t.Fatalf("under the limit: %d, %v", total, err)
		}
		// With filters the limit weighs the authors they leave: C2 in GB.
		gb := base(func(q *mapping.Query) { q.Filters.Countries = []string{"GB"} })
		if _, total, err := run(t, gb, 1); err != nil || total != 1 {
			t.Fatalf("GB at 1: %d, %v", total, err)
		}
		notFR := base(func(q *mapping.Query) { q.Filters.CountriesExcludes = []string{"FR"} })
		if _, _, err := run(t, notFR, 2); !errors.As(err, &broad) || *broad != (mapping.ErrQueryTooBroad{Engagements: 3, Limit: 2, Filtered: true}) {
			t.Fatalf("not in FR at 2: %v", err)
		}
	})
}

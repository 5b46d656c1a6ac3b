package storetest

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
)

// NoLimit lets every oracle query through the too-broad limit.
const NoLimit = 1_000_000

// OracleQueries cover counted words, hashtags, phrases, loose keywords,
// long words, strengths and each kind of filter.
func OracleQueries() []mapping.Query {
	var out []mapping.Query
	for _, kws := range [][]string{{"revops"}, {"#revops"}, {"pipeline hygiene"}, {"revops", "pipeline hygiene"},
		{"rev-ops"}, {"revops:"}, {"quarterly", "hiring"}, {strings.Repeat("x", 300)}, {"at scale"}, {"revops", "#"},
		{"revops at scale"}, {"need pipeline hygiene"}, {"revops revops"}, {"revops revops at"}} {
		for _, strength := range []int{1, 2, 3} {
			for _, days := range []int{1, 7, 30} {
				out = append(out, mapping.Query{Keywords: kws, Days: days, Strength: strength})
			}
		}
	}
	for _, f := range []mapping.Filters{
		{JobTitles: []string{"geschäftsführer", "revenue"}},
		{JobTitlesExcludes: []string{"SALES"}},
		{DomainIncludes: []string{"münchen.example.de", "acme.com"}},
		{DomainExcludes: []string{"globex.com"}},
		{CompanySizes: []string{"10001+", "51-200"}},
		{Industries: []string{"ärzte", "software development"}},
		{IndustriesExcludes: []string{"Financial Services"}},
		{Countries: []string{"DE", "US"}},
		{CountriesExcludes: []string{"GB"}},
		{Followers: []mapping.Range{{Min: 1000}}},
	} {
		out = append(out, mapping.Query{Keywords: []string{"revops", "pipeline hygiene"}, Days: 30, Strength: 1, Filters: f})
	}
	return out
}

// CheckOracle compares every oracle query's whole answer, as e answers
// over s, with the oracle: a brute-force reading of s's pool tables.
func CheckOracle(t *testing.T, s *store.Store, e *mapping.Engine, state string) {
	t.Helper()
	ctx := context.Background()
	pool := readPool(t, s)
	// The creators' statistics read each post's reactions + comments from mapping_posts.
	rows, err := s.DB().QueryContext(ctx, `SELECT p.urn, p.record, m.engagement FROM pronet_posts p JOIN mapping_posts m ON m.urn = p.urn`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			urn    string
			record []byte
			n      int64
			rec    struct{ TotalReactionCount, CommentsCount int64 }
		)
		if err := rows.Scan(&urn, &record, &n); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(record, &rec); err != nil {
			t.Fatal(err)
		}
		if n != rec.TotalReactionCount+rec.CommentsCount {
			t.Errorf("%s: post %s: engagement %d, its record says %d", state, urn, n, rec.TotalReactionCount+rec.CommentsCount)
		}
	}
	rows.Close()
	for _, q := range OracleQueries() {
		q.Page, q.PageSize = 1, 50
		rs, total, err := e.SocialMapping(ctx, q, MapNow, NoLimit)
		if err != nil {
			t.Fatalf("%s: %+v: %v", state, q, err)
		}
		got := MappingRows(rs)
		want := pool.mapping(q)
		if !slices.Equal(got, want) || total != int64(len(want)) {
			t.Errorf("%s: mapping %+v:\n got %v (total %d)\nwant %v", state, q, got, total, want)
		}
		// The same with the posts' engagements read in two halves and
		// merged, as a query over thousands of posts reads them.
		e.SetPostsApart(1)
		rs, total, err = e.SocialMapping(ctx, q, MapNow, NoLimit)
		e.SetPostsApart(0)
		if err != nil {
			t.Fatalf("%s: %+v: %v", state, q, err)
		}
		if got := MappingRows(rs); !slices.Equal(got, want) || total != int64(len(want)) {
			t.Errorf("%s: mapping %+v, read in halves:\n got %v (total %d)\nwant %v", state, q, got, total, want)
		}
		cs, total, err := e.DiscoverCreators(ctx, q, MapNow, NoLimit)
		if err != nil {
			t.Fatalf("%s: %+v: %v", state, q, err)
		}
		got = nil
		for _, c := range cs {
			got = append(got, fmt.Sprintf("%s %d", c.Person.URN, c.QualifyingPosts))
		}
		slices.Sort(got)
		want = pool.creators(q)
		if !slices.Equal(got, want) || total != int64(len(want)) {
			t.Errorf("%s: creators %+v:\n got %v (total %d)\nwant %v", state, q, got, total, want)
		}
		// Page by page, one creator a page, the same order: each page
		// reads the statistics of the counts it spans only.
		var paged []mapping.Creator
		for page := 1; page <= len(cs); page++ {
			pq := q
			pq.Page, pq.PageSize = page, 1
			one, _, err := e.DiscoverCreators(ctx, pq, MapNow, NoLimit)
			if err != nil || len(one) != 1 {
				t.Fatalf("%s: creators %+v: %d, %v", state, pq, len(one), err)
			}
			paged = append(paged, one[0])
		}
		for i := range paged {
			if paged[i].Person.URN != cs[i].Person.URN || paged[i].AvgEngagement != cs[i].AvgEngagement {
				t.Errorf("%s: creators %+v: page %d is %s (%v), the whole list has %s (%v) there", state, q, i+1,
					paged[i].Person.URN, paged[i].AvgEngagement, cs[i].Person.URN, cs[i].AvgEngagement)
			}
		}
	}
}

// MappingRows writes each result as the oracle does.
func MappingRows(rs []mapping.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s %s %d %s", r.Person.URN, r.EngagementType, r.EngagedAt.UnixMilli(), r.PostURN))
	}
	return out
}

type oraclePool struct {
	posts       map[string]oraclePost
	engagements []oracleEngagement
	people      map[string]mapping.Person
}

type oraclePost struct {
	text, author string
	posted       int64
}

type oracleEngagement struct {
	post, person, kind string
	at                 int64
}

func readPool(t *testing.T, s *store.Store) oraclePool {
	t.Helper()
	ctx := context.Background()
	db := s.DB()
	p := oraclePool{posts: map[string]oraclePost{}, people: map[string]mapping.Person{}}
	query := func(q string, scan func(*sql.Rows) error) {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				t.Fatal(err)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	query(`SELECT urn, text, author_urn, posted_at FROM pronet_posts`, func(rows *sql.Rows) error {
		var urn string
		var po oraclePost
		err := rows.Scan(&urn, &po.text, &po.author, &po.posted)
		p.posts[urn] = po
		return err
	})
	query(`SELECT post_urn, person_urn, type, engaged_at FROM pronet_engagements`, func(rows *sql.Rows) error {
		var e oracleEngagement
		err := rows.Scan(&e.post, &e.person, &e.kind, &e.at)
		p.engagements = append(p.engagements, e)
		return err
	})
	query(`SELECT urn, job_title, headline, company_domain, company_size, industry, country, followers FROM pronet_people`,
		func(rows *sql.Rows) error {
			var pe mapping.Person
			var headline string
			var followers sql.NullInt64
			err := rows.Scan(&pe.URN, &pe.JobTitle, &headline, &pe.CompanyDomain, &pe.CompanySize, &pe.Industry, &pe.Country, &followers)
			if pe.JobTitle == "" {
				pe.JobTitle = headline
			}
			if followers.Valid {
				pe.Followers = &followers.Int64
			}
			p.people[pe.URN] = pe
			return err
		})
	return p
}

// mapping is the whole answer by definition (strengths from 1: the
// topics' links are tested by the fixture's cases).
func (p oraclePool) mapping(q mapping.Query) []string {
	since := MapNow.Add(-time.Duration(q.Days) * day).UnixMilli()
	latest := map[string]oracleEngagement{}
	for _, e := range p.engagements {
		if e.at < since || mapping.Hits(p.posts[e.post].text, q.Keywords) < q.MinHits() {
			continue
		}
		l, ok := latest[e.person]
		newer := func() int {
			return cmp.Or(cmp.Compare(e.at, l.at), cmp.Compare(boolRank(e.kind == "comment"), boolRank(l.kind == "comment")),
				-strings.Compare(e.post, l.post))
		}
		if !ok || newer() > 0 {
			latest[e.person] = e
		}
	}
	var list []oracleEngagement
	for person, e := range latest {
		if q.Filters.Match(p.people[person]) {
			list = append(list, e)
		}
	}
	slices.SortFunc(list, func(a, b oracleEngagement) int {
		return cmp.Or(cmp.Compare(b.at, a.at), strings.Compare(a.person, b.person))
	})
	var out []string
	for _, e := range list {
		out = append(out, fmt.Sprintf("%s %s %d %s", e.person, e.kind, e.at, e.post))
	}
	return out
}

// creators are the authors and their qualifying posts, sorted.
func (p oraclePool) creators(q mapping.Query) []string {
	since := MapNow.Add(-time.Duration(q.Days) * day).UnixMilli()
	n := map[string]int{}
	for _, po := range p.posts {
		if _, person := p.people[po.author]; person && po.posted >= since && mapping.Hits(po.text, q.Keywords) >= q.MinHits() {
			n[po.author]++
		}
	}
	var out []string
	for a, c := range n {
		if q.Filters.Match(p.people[a]) {
			out = append(out, fmt.Sprintf("%s %d", a, c))
		}
	}
	slices.Sort(out)
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

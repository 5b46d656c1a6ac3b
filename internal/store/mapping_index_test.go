package store_test

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestMappingIndexNeverStale: whatever writes the pool, and whether the
// precomputation is there, missing or rebuilt, social mapping and creator
// discovery answer exactly what a brute-force reading of the pool tables
// answers. Writes by plain SQL (no indexer called) stand for any writer
// that does not know about the precomputation.
func TestMappingIndexNeverStale(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			db := f.s.DB()
			exec := func(query string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, query, args...); err != nil {
					t.Fatalf("%s: %v", query, err)
				}
			}
			setText := setPostText(engine)
			setReactions := `UPDATE pronet_posts SET record = json_set(record, '$.totalReactionCount', $1) WHERE urn = $2`
			if engine == store.Postgres {
				setReactions = `UPDATE pronet_posts SET record = jsonb_set(record, '{totalReactionCount}', to_jsonb($1::bigint)) WHERE urn = $2`
			}
			checkOracle(t, f.s, "collected")

			// A post's text changes: P7 no longer mentions revops, P8 now
			// does twice, with a long word and a phrase twice.
			exec(setText, "nothing to see", fxPostURN("P7"))
			exec(setReactions, 77, fxPostURN("P2"))
			exec(setText, "RevOps and #revops: pipeline hygiene, pipeline hygiene "+strings.Repeat("x", 300), fxPostURN("P8"))
			// Engagements written without packing: on P8 (which had none),
			// on P1, and one moved out of the window and one into it.
			for i, e := range []struct{ person, post, kind string }{{"U3", "P8", "comment"}, {"U7", "P8", "like"}, {"U10", "P1", "like"}} {
				exec(`INSERT INTO pronet_engagements (id, post_urn, person_urn, type, engaged_at, first_seen_at, discovery_interval)
				      VALUES ($1, $2, $3, $4, $5, $5, 'initial')`, store.NewID(), fxPostURN(e.post), fxPersonURN(e.person), e.kind,
					mapNow.Add(-time.Duration(i+1)*time.Minute).UnixMilli())
			}
			exec(`UPDATE pronet_engagements SET engaged_at = $1 WHERE person_urn = $2 AND post_urn = $3`,
				mapNow.Add(-20*day).UnixMilli(), fxPersonURN("U2"), fxPostURN("P4"))
			exec(`UPDATE pronet_engagements SET engaged_at = $1 WHERE person_urn = $2 AND post_urn = $3`,
				mapNow.Add(-time.Second).UnixMilli(), fxPersonURN("U5"), fxPostURN("P1"))
			// Profiles change behind the folded columns' back, one to
			// non-ASCII values.
			exec(`UPDATE pronet_people SET job_title = 'Geschäftsführer Vertrieb', industry = 'ÄRZTE', company_domain = 'MÜNCHEN.example.de',
			      country = 'de' WHERE urn = $1`, fxPersonURN("U1"))
			exec(`UPDATE pronet_people SET followers = 999999, company_size = '10001+' WHERE urn = $1`, fxPersonURN("U7"))
			exec(`UPDATE pronet_people SET job_title = '' WHERE urn = $1`, fxPersonURN("U6"))
			// C4's profile shows no title: the headline stands in.
			exec(`UPDATE pronet_people SET headline = 'Head of Sales, Revenue Team' WHERE urn = $1`, fxPersonURN("C4"))
			// A post stored without its index, with engagements.
			exec(`INSERT INTO pronet_posts (urn, posted_at, record, first_seen_at, first_linked_at) VALUES ($1, $2, $3, $2, $2)`,
				fxPostURN("F9")+"0", mapNow.Add(-time.Hour).UnixMilli(),
				fmt.Sprintf(`{"text": "revops revops revops at scale", "author": {"urn": %q}}`, fxPersonURN("C3")))
			exec(`INSERT INTO pronet_engagements (id, post_urn, person_urn, type, engaged_at, first_seen_at, discovery_interval)
			      VALUES ($1, $2, $3, 'like', $4, $4, 'initial')`, store.NewID(), fxPostURN("F9")+"0", fxPersonURN("U4"), mapNow.Add(-time.Hour).UnixMilli())
			checkOracle(t, f.s, "written by SQL")

			done, err := f.s.PrecomputeMapping(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The people: the four changed and U8, whose profile was never read.
			if done.Posts != 3 || done.Packed == 0 || done.People != 5 {
				t.Errorf("precomputed %+v, want 3 posts, some packed lists, 5 people", done)
			}
			checkOracle(t, f.s, "precomputed again")

			// Everything precomputed is gone; then rebuilt.
			exec(`DELETE FROM mapping_engagers`)
			exec(`DELETE FROM mapping_people`)
			if engine == store.Postgres {
				exec(`UPDATE mapping_posts SET pending = TRUE, terms = NULL`)
			} else {
				exec(`INSERT INTO mapping_terms (mapping_terms) VALUES ('delete-all')`)
				exec(`UPDATE mapping_posts SET pending = 1`)
			}
			checkOracle(t, f.s, "nothing precomputed")
			// Keyword matches asked afresh: every post is read by its text.
			f.s.ForgetKeywordMatches()
			checkOracle(t, f.s, "nothing precomputed, matches asked afresh")
			if done, err = f.s.PrecomputeMapping(ctx); err != nil {
				t.Fatal(err)
			}
			if done.Posts != len(fxPosts)+1 {
				t.Errorf("indexed %d posts, want %d", done.Posts, len(fxPosts)+1)
			}
			checkOracle(t, f.s, "rebuilt")
			if again, err := f.s.PrecomputeMapping(ctx); err != nil || again != (store.MappingPrecomputed{}) {
				t.Errorf("precomputed again: %+v, %v; want nothing", again, err)
			}
		})
	}
}

// oracleQueries cover counted words, hashtags, phrases, loose keywords,
// long words, strengths and each kind of filter.
func oracleQueries() []mapping.Query {
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

// checkOracle compares every oracle query's whole answer with the oracle.
func checkOracle(t *testing.T, s *store.Store, state string) {
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
	for _, q := range oracleQueries() {
		q.Page, q.PageSize = 1, 50
		rs, total, err := s.SocialMapping(ctx, q, mapNow, noLimit)
		if err != nil {
			t.Fatalf("%s: %+v: %v", state, q, err)
		}
		got := mappingRows(rs)
		want := pool.mapping(q)
		if !slices.Equal(got, want) || total != int64(len(want)) {
			t.Errorf("%s: mapping %+v:\n got %v (total %d)\nwant %v", state, q, got, total, want)
		}
		// The same with the posts' engagements read in two halves and
		// merged, as a query over thousands of posts reads them.
		s.ReadEngagementsApart(1)
		rs, total, err = s.SocialMapping(ctx, q, mapNow, noLimit)
		s.ReadEngagementsApart(0)
		if err != nil {
			t.Fatalf("%s: %+v: %v", state, q, err)
		}
		if got := mappingRows(rs); !slices.Equal(got, want) || total != int64(len(want)) {
			t.Errorf("%s: mapping %+v, read in halves:\n got %v (total %d)\nwant %v", state, q, got, total, want)
		}
		cs, total, err := s.DiscoverCreators(ctx, q, mapNow, noLimit)
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
		var paged []store.Creator
		for page := 1; page <= len(cs); page++ {
			pq := q
			pq.Page, pq.PageSize = page, 1
			one, _, err := s.DiscoverCreators(ctx, pq, mapNow, noLimit)
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

// mappingRows writes each result as the oracle does.
func mappingRows(rs []store.MappingResult) []string {
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
	since := mapNow.Add(-time.Duration(q.Days) * day).UnixMilli()
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
	since := mapNow.Add(-time.Duration(q.Days) * day).UnixMilli()
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

// TestMappingIndexMigration: migration 00010 precomputes over rows stored
// before it (and Migrate indexes the posts' text in Go) what collection
// would have: the answers are exact, and the packed lists and folded
// people it made in SQL are those Go makes.
func TestMappingIndexMigration(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s := fixturePoolAt(t, engine, 9)
			if err := s.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			checkOracle(t, s, "migrated")
			// Migration 00012: each post's reactions + comments, for the creators' statistics.
			rows, err := s.DB().QueryContext(ctx, `SELECT urn, engagement FROM mapping_posts`)
			if err != nil {
				t.Fatal(err)
			}
			engagement := map[string]int{}
			for rows.Next() {
				var urn string
				var n int
				if err := rows.Scan(&urn, &n); err != nil {
					t.Fatal(err)
				}
				engagement[urn] = n
			}
			rows.Close()
			for _, p := range fxPosts {
				if got := engagement[fxPostURN(p.key)]; got != p.reactions+p.comments {
					t.Errorf("post %s: engagement %d, want %d", p.key, got, p.reactions+p.comments)
				}
			}
			migrated := precomputedRows(t, s)
			if done, err := s.PrecomputeMapping(ctx); err != nil || done != (store.MappingPrecomputed{People: 1}) {
				t.Errorf("left after the migration: %+v, %v; want the one person with non-ASCII values", done, err)
			}
			for _, table := range []string{"mapping_engagers", "mapping_people"} {
				if _, err := s.DB().ExecContext(ctx, `DELETE FROM `+table); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.PrecomputeMapping(ctx); err != nil {
				t.Fatal(err)
			}
			inGo := precomputedRows(t, s)
			for row := range migrated {
				if !inGo[row] {
					t.Errorf("the migration made %s; Go makes otherwise", row)
				}
			}
			if len(inGo) != len(migrated)+1 {
				t.Errorf("Go made %d rows, the migration %d (+1 person)", len(inGo), len(migrated))
			}
		})
	}
}

// precomputedRows are the packed lists and folded people, printed.
func precomputedRows(t *testing.T, s *store.Store) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, q := range []string{
		`SELECT 'post ' || CAST(post_id AS TEXT), engagers FROM mapping_engagers`,
		`SELECT 'person ' || CAST(id AS TEXT) || ' ' || COALESCE(title, '<null>') || ' ' || domain || ' ' || size || ' ' || industry || ' ' ||
		        country || ' ' || COALESCE(CAST(followers AS TEXT), '<null>'), NULL FROM mapping_people`,
	} {
		rows, err := s.DB().QueryContext(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var (
				key  string
				blob []byte
			)
			if err := rows.Scan(&key, &blob); err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("%s %x", key, blob)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// fixturePoolAt is a store migrated up to version holding the fixture's
// people, posts and engagements, stored the way the benchmark's bulk
// loaders do, without precomputing anything.
func fixturePoolAt(t *testing.T, engine store.Dialect, version int64) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.DatabaseURL(t, engine), func() time.Time { return mapNow })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.MigrateUpTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	var people []topic.Profile
	for _, key := range []string{"U1", "U2", "U3", "U4", "U5", "U6", "U7", "U8", "U9", "U10", "C1", "C2", "C3", "C4", "C5"} {
		p := fxProfiles[key]
		p.URN, p.FullName, p.Headline = fxPersonURN(key), "First"+key+" Last"+key, fxHeadline(key)
		people = append(people, p)
	}
	// Values SQL does not fold: left to the next profile read.
	people[0].JobTitle, people[0].Industry, people[0].CompanyDomain = "Geschäftsführer", "ÄRZTE", "MÜNCHEN.example.de"
	if _, err := seed.People(ctx, s, mapNow.Add(-day), people); err != nil {
		t.Fatal(err)
	}
	var posts []seed.PoolPost
	for _, p := range fxPosts {
		posts = append(posts, seed.PoolPost{Post: topic.Post{URN: fxPostURN(p.key), PostedAt: p.posted, Record: fxRecord(p)},
			SeenAt: p.posted})
	}
	if _, err := seed.PoolPosts(ctx, s, posts); err != nil {
		t.Fatal(err)
	}
	var es []seed.PoolEngagement
	for _, e := range fxEngagements {
		es = append(es, seed.PoolEngagement{PostURN: fxPostURN(e.post), PersonURN: fxPersonURN(e.person), Type: e.kind,
			At: e.at, SeenAt: e.at, Interval: topic.Initial})
	}
	if _, err := seed.PoolEngagements(ctx, s, es); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPhraseLexemeMigration: a pool indexed before two-word phrases were
// lexemes of their own answers phrase queries exactly after migration
// 00021 (which indexes every post again).
func TestPhraseLexemeMigration(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s := fixturePoolAt(t, engine, 20)
			if _, err := s.IndexPendingPosts(ctx); err != nil {
				t.Fatal(err)
			}
			if engine == store.SQLite {
				// The index as it was: no phrase lexemes.
				if _, err := s.DB().ExecContext(ctx, `INSERT INTO mapping_terms (mapping_terms) VALUES ('delete-all')`); err != nil {
					t.Fatal(err)
				}
				for _, p := range fxPosts {
					terms := mapping.IndexText(p.text)
					terms.Others = slices.DeleteFunc(terms.Others, mapping.IsPhraseLexeme)
					if _, err := s.DB().ExecContext(ctx, `INSERT INTO mapping_terms (rowid, terms) SELECT id, $1 FROM mapping_posts WHERE urn = $2`,
						terms.FTSText(), fxPostURN(p.key)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := s.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			checkOracle(t, s, "phrase lexemes")
		})
	}
}

// The keyword matches a process keeps are bounded: past the limit the
// least recently used entries go, never those of the query being answered,
// and the answers stay exact.
func TestKeywordMatchesEvicted(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			f := newMappingFixture(t, engine)
			f.s.SetKeywordMatchBudget(1)
			checkOracle(t, f.s, "one byte kept")
			q := mapping.Query{Keywords: []string{"revops"}, Days: 30, Strength: 1, Page: 1, PageSize: 10}
			if _, total, err := f.s.SocialMapping(context.Background(), q, mapNow, noLimit); err != nil || total == 0 {
				t.Fatalf("revops: %d people, %v", total, err)
			}
			if held := f.s.KeywordMatchesHeld(); held.Entries != 1 || held.Posts == 0 {
				t.Errorf("%d entries of %d post ids held, want only the last query's one", held.Entries, held.Posts)
			}
		})
	}
}

// changedQuery asks about revops and a phrase, whose matches
// changeMatchedTexts changes.
var changedQuery = mapping.Query{Keywords: []string{"revops", "pipeline hygiene"}, Days: 30, Strength: 1, Page: 1, PageSize: 10}

// changeMatchedTexts rewrites two posts' texts behind the writers' back:
// one stops mentioning revops, the other mentions it and the phrase.
func changeMatchedTexts(ctx context.Context, t *testing.T, s *store.Store, engine store.Dialect) {
	t.Helper()
	for post, text := range map[string]string{"P7": "nothing to see", "P8": "RevOps and #revops: pipeline hygiene, revops at scale"} {
		if _, err := s.DB().ExecContext(ctx, setPostText(engine), text, fxPostURN(post)); err != nil {
			t.Error(err)
		}
	}
}

// The keyword index is asked outside the lock that keeps the matches up to
// date, in a snapshot of its own: what is written between that snapshot
// and the update is decided too.
func TestKeywordMatchesFilledApart(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			writes := 0
			f.s.AfterMatchFill(func() {
				if writes++; writes == 1 {
					changeMatchedTexts(ctx, t, f.s, engine)
				}
			})
			if _, _, err := f.s.SocialMapping(ctx, changedQuery, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			if writes != 1 {
				t.Fatalf("the index was asked %d times, want once", writes)
			}
			checkOracle(t, f.s, "written while the index was asked")
		})
	}
}

// A lookup asks the index about its keywords side by side, each in a
// snapshot of its own taken after the lookup's: what is written after one
// keyword was asked, and seen by the next one's snapshot, is decided for
// the first too.
func TestKeywordMatchesAskedSideBySide(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			var asked []string
			f.s.AfterAskAlone(1, func(keyword string) {
				if asked = append(asked, keyword); len(asked) == 1 {
					changeMatchedTexts(ctx, t, f.s, engine)
				}
			})
			if _, _, err := f.s.SocialMapping(ctx, changedQuery, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			if len(asked) != 2 || f.s.IndexAsks() != 1 {
				t.Fatalf("asked %q side by side in %d lookups, want both keywords in one", asked, f.s.IndexAsks())
			}
			checkOracle(t, f.s, "written between two keywords' snapshots")
		})
	}
}

// Lookups asking about new keywords at once, more of them than the pool has
// connections, all finish: none holds a connection while it waits for more.
func TestKeywordMatchesAskedSideBySideAtOnce(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			f := newMappingFixture(t, engine)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			errs := make(chan error, 24)
			for i := range cap(errs) {
				go func() {
					q := mapping.Query{Keywords: []string{"revops", fmt.Sprintf("word%da", i), fmt.Sprintf("word%db", i)},
						Days: 30, Strength: 1, Page: 1, PageSize: 10}
					_, _, err := f.s.SocialMapping(ctx, q, mapNow, noLimit)
					errs <- err
				}()
			}
			for range cap(errs) {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// On PostgreSQL the processes share what they asked the keyword index: a
// process missing an entry loads another's and decides the posts logged
// since; an entry whose log was pruned past is deleted, or if stored
// anyway, not used. SQLite's processes each ask for themselves.
func TestKeywordMatchesShared(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			q := mapping.Query{Keywords: []string{"revops", "pipeline hygiene"}, Days: 30, Strength: 1, Page: 1, PageSize: 50}
			if _, _, err := f.s.SocialMapping(ctx, q, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			// Texts change after the first process asked.
			for post, text := range map[string]string{"P8": "Big news: #RevOps and pipeline hygiene", "P2": "our playbook"} {
				if _, err := f.s.DB().ExecContext(ctx, setPostText(engine), text, fxPostURN(post)); err != nil {
					t.Fatal(err)
				}
			}
			wantAsks := int64(0)
			if engine == store.SQLite {
				wantAsks = 1
			}
			other := storetest.OpenURL(t, f.url, f.now)
			if _, _, err := other.SocialMapping(ctx, q, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			if got := other.IndexAsks(); got != wantAsks {
				t.Errorf("another process asked the index %d times, want %d", got, wantAsks)
			}
			checkOracle(t, other, "loaded from another process")
			if engine != store.Postgres {
				return
			}

			// Pruning the log past the stored entries deletes them.
			fill := `INSERT INTO mapping_posts_log (id) SELECT -1 FROM generate_series(1, 100050)`
			if _, err := f.s.DB().ExecContext(ctx, fill); err != nil {
				t.Fatal(err)
			}
			awaitRowsPrunable(t, f.s.DB(), "mapping_posts_log")
			if _, err := f.s.PruneMappingLog(ctx); err != nil {
				t.Fatal(err)
			}
			var stored int
			if err := f.s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM mapping_keyword_matches`).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if stored != 0 {
				t.Errorf("%d entries stored after the log was pruned past them, want none", stored)
			}
			// One stored anyway at a pruned position (no post at all) is
			// not used.
			if _, err := f.s.DB().ExecContext(ctx, `INSERT INTO mapping_keyword_matches (key, position, ids)
				SELECT key, 1, ''::bytea FROM (VALUES ($1), ($2)) k(key)`, f.s.SharedMatchKey("revops", 1), f.s.SharedMatchKey("pipeline hygiene", 1)); err != nil {
				t.Fatal(err)
			}
			third := storetest.OpenURL(t, f.url, f.now)
			if _, _, err := third.SocialMapping(ctx, q, mapNow, noLimit); err != nil {
				t.Fatal(err)
			}
			if third.IndexAsks() == 0 {
				t.Error("a process used entries stored at a position the log was pruned past")
			}
			checkOracle(t, third, "stored entries pruned past")
		})
	}
}

// setPostText is SQL that changes a post's text behind the writers' back
// ($1 the text, $2 the post's URN).
func setPostText(d store.Dialect) string {
	if d == store.Postgres {
		return `UPDATE pronet_posts SET record = jsonb_set(record, '{text}', to_jsonb($1::text)) WHERE urn = $2`
	}
	return `UPDATE pronet_posts SET record = json_set(record, '$.text', $1) WHERE urn = $2`
}

// A process warms the matches of its topics' keywords, so that a query
// over them does not ask the index.
func TestWarmKeywordMatches(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			f := newMappingFixture(t, engine)
			f.s.ForgetKeywordMatches()
			if asked, err := f.s.WarmKeywordMatches(ctx); err != nil || asked != 3 {
				t.Fatalf("asked about %d keywords, %v; want the topics' 3", asked, err)
			}
			if entries := f.s.KeywordMatchesHeld().Entries; entries != 3 {
				t.Errorf("%d entries held, want 3", entries)
			}
			asked := 0
			f.s.AfterMatchFill(func() { asked++ })
			q := mapping.Query{Keywords: []string{" RevOps", "pipeline hygiene"}, Days: 30, Strength: 1, Page: 1, PageSize: 10}
			if _, total, err := f.s.SocialMapping(ctx, q, mapNow, noLimit); err != nil || total == 0 {
				t.Fatalf("%d people, %v", total, err)
			}
			if asked != 0 {
				t.Errorf("the index was asked %d times over the topics' keywords", asked)
			}
			checkOracle(t, f.s, "warmed")

			// The next warm-up (each tick of trawl serve) asks only about a
			// topic created since.
			if asked, err := f.s.WarmKeywordMatches(ctx); err != nil || asked != 0 {
				t.Fatalf("warmed again: asked about %d keywords, %v; want none", asked, err)
			}
			// Creating a topic wakes the warm-up at once.
			select {
			case <-f.s.TopicCreated():
			default:
			}
			playbooks := &topic.Topic{AccountID: f.account.ID, Name: "playbooks", Definition: topic.Definition{Keywords: []string{"revops", "Playbook"},
				TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
			if err := f.s.CreateTopic(ctx, playbooks, 0); err != nil {
				t.Fatal(err)
			}
			select {
			case <-f.s.TopicCreated():
			default:
				t.Fatal("creating a topic did not wake the warm-up of its keywords")
			}
			if asked, err := f.s.WarmKeywordMatches(ctx); err != nil || asked != 1 {
				t.Fatalf("after a new topic: asked about %d keywords, %v; want its new one", asked, err)
			}
			asked = 0
			q = mapping.Query{Keywords: []string{"playbook"}, Days: 30, Strength: 1, Page: 1, PageSize: 10}
			if _, total, err := f.s.SocialMapping(ctx, q, mapNow, noLimit); err != nil || total == 0 {
				t.Fatalf("%d people, %v", total, err)
			}
			if asked != 0 {
				t.Errorf("the index was asked %d times over the new topic's keyword", asked)
			}
		})
	}
}

package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/topic"
)

// MappingResult is one person of a social mapping answer: their most recent
// qualifying engagement and the post it was on.
type MappingResult struct {
	Person         mapping.Person
	EngagementType string
	EngagedAt      time.Time
	PostURN        string
	PostText       string
	PostURL        string
	PostDate       time.Time
	PostLikes      int64
	PostComments   int64
}

// ErrQueryTooBroad means a query qualifies more engagements than the limit.
type ErrQueryTooBroad struct {
	Engagements int64
	Limit       int
}

func (e *ErrQueryTooBroad) Error() string {
	return fmt.Sprintf("store: the query qualifies %d engagements, more than the limit of %d", e.Engagements, e.Limit)
}

// SocialMapping answers a social mapping query over every post and
// engagement the deployment's topics collected: the people whose most
// recent qualifying engagement falls in the window, newest first, one per
// person, with the exact number of such people. A query that qualifies
// more than maxCandidates engagements is *ErrQueryTooBroad.
//
// The qualifying posts are found in Go (full-text candidates, exact keyword
// hits on their text; on PostgreSQL from mapping_posts, a narrow copy of
// the posts); the engagements are aggregated in SQL, one row per
// person, from the covering index on (post, time, person, type) alone.
// Each person's row carries one packed key (see mappingKey) that orders
// their engagements as newerEngagement does, so MAX() picks their latest
// qualifying engagement and its post without sorting. Filters that SQL can
// decide exactly on ASCII values narrow the rows in SQL; Filters.Match
// decides every row in Go, so non-ASCII values keep Go's case folding.
func (s *Store) SocialMapping(ctx context.Context, q mapping.Query, now time.Time, maxCandidates int) ([]MappingResult, int64, error) {
	since := ms(now.Add(-time.Duration(q.Days) * 24 * time.Hour))
	posts, err := s.qualifyingPosts(ctx, q, since)
	if err != nil {
		return nil, 0, fmt.Errorf("store: social mapping: %w", err)
	}
	if len(posts) == 0 {
		return []MappingResult{}, 0, nil
	}
	if len(posts) > keyPostMask {
		return nil, 0, &ErrQueryTooBroad{Engagements: int64(len(posts)), Limit: maxCandidates}
	}
	urns, err := json.Marshal(posts)
	if err != nil {
		return nil, 0, fmt.Errorf("store: social mapping: %w", err)
	}
	args := []any{string(urns), since}
	postList := `SELECT value AS urn, CAST(key AS INTEGER) AS idx FROM json_each($1)`
	if s.dialect == Postgres {
		postList = `SELECT x.urn, x.idx - 1 AS idx FROM jsonb_array_elements_text($1::jsonb) WITH ORDINALITY AS x(urn, idx)`
	}
	perPerson := `WITH q AS (` + postList + `),
	     e AS MATERIALIZED (
	       SELECT e.person_urn AS person, COUNT(*) AS n,
	              MAX((((e.engaged_at - $2) * 2 + CASE WHEN e.type = 'comment' THEN 1 ELSE 0 END) * ` + keyPostSpanSQL + `) + (` + keyPostMaskSQL + ` - q.idx)) AS k
	         FROM q JOIN pronet_engagements e ON e.post_urn = q.urn AND e.engaged_at >= $2
	        GROUP BY e.person_urn)`
	type hit struct {
		person string
		key    int64
	}
	var (
		engagements, total int64
		page               []hit
	)
	if q.Filters.Empty() {
		// The page and the totals in SQL; nothing about the people is read
		// but the page's.
		lo, size := pageOffset(q.Page, q.PageSize)
		rows, err := s.read.QueryContext(ctx, perPerson+`
			SELECT 0, '', COALESCE(SUM(n), 0), COUNT(*) FROM e
			UNION ALL
			SELECT 1, person, k, 0 FROM (SELECT person, k FROM e ORDER BY k / `+keyTimeUnitSQL+` DESC, person`+s.binary()+` LIMIT $3 OFFSET $4) page`,
			append(args, size, lo)...)
		if err != nil {
			return nil, 0, fmt.Errorf("store: social mapping: engagements: %w", err)
		}
		for rows.Next() {
			var (
				kind int
				h    hit
				n    int64
			)
			if err := rows.Scan(&kind, &h.person, &h.key, &n); err != nil {
				rows.Close()
				return nil, 0, fmt.Errorf("store: social mapping: %w", err)
			}
			if kind == 0 {
				engagements, total = h.key, n
				continue
			}
			page = append(page, h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, 0, fmt.Errorf("store: social mapping: %w", err)
		}
		if engagements > int64(maxCandidates) {
			return nil, 0, &ErrQueryTooBroad{Engagements: engagements, Limit: maxCandidates}
		}
		// Rows of the same instant come ordered by person in SQL's
		// collation; the answer orders them bytewise, as Go does.
		slices.SortStableFunc(page, func(a, b hit) int {
			if c := cmp.Compare(b.key/keyTimeUnit, a.key/keyTimeUnit); c != 0 {
				return c
			}
			return strings.Compare(a.person, b.person)
		})
	} else {
		where, fargs := s.prefilter(q.Filters, len(args)+1)
		rows, err := s.read.QueryContext(ctx, perPerson+`
			SELECT 0, '', COALESCE(SUM(n), 0), '', '', '', '', '', '', NULL FROM e
			UNION ALL
			SELECT 1, e.person, e.k, p.job_title, p.headline, p.company_domain, p.company_size, p.industry, p.country, p.followers
			  FROM e JOIN pronet_people p ON p.urn = e.person
			 WHERE `+where, append(args, fargs...)...)
		if err != nil {
			return nil, 0, fmt.Errorf("store: social mapping: engagements: %w", err)
		}
		var kept []hit
		for rows.Next() {
			var (
				kind      int
				h         hit
				p         mapping.Person
				headline  string
				followers sql.NullInt64
			)
			if err := rows.Scan(&kind, &h.person, &h.key, &p.JobTitle, &headline, &p.CompanyDomain, &p.CompanySize,
				&p.Industry, &p.Country, &followers); err != nil {
				rows.Close()
				return nil, 0, fmt.Errorf("store: social mapping: %w", err)
			}
			if kind == 0 {
				engagements = h.key
				continue
			}
			if followers.Valid {
				p.Followers = &followers.Int64
			}
			if p.JobTitle == "" {
				p.JobTitle = headline // until the profile is read
			}
			if q.Filters.Match(p) {
				kept = append(kept, h)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, 0, fmt.Errorf("store: social mapping: %w", err)
		}
		if engagements > int64(maxCandidates) {
			return nil, 0, &ErrQueryTooBroad{Engagements: engagements, Limit: maxCandidates}
		}
		slices.SortFunc(kept, func(a, b hit) int {
			if c := cmp.Compare(b.key/keyTimeUnit, a.key/keyTimeUnit); c != 0 {
				return c
			}
			return strings.Compare(a.person, b.person)
		})
		total = int64(len(kept))
		lo, hi := pageBounds(q.Page, q.PageSize, len(kept))
		page = kept[lo:hi]
	}
	if len(page) == 0 {
		return []MappingResult{}, total, nil
	}
	who := make([]string, len(page))
	for i, h := range page {
		who[i] = h.person
	}
	people, err := s.people(ctx, who)
	if err != nil {
		return nil, 0, fmt.Errorf("store: social mapping: %w", err)
	}
	out := make([]MappingResult, len(page))
	for i, h := range page {
		rel, comment, idx := decodeKey(h.key)
		out[i] = MappingResult{Person: people[h.person], EngagementType: "like", EngagedAt: fromMS(since + rel), PostURN: posts[idx]}
		if comment {
			out[i].EngagementType = "comment"
		}
	}
	if err := s.fillPosts(ctx, out); err != nil {
		return nil, 0, fmt.Errorf("store: social mapping: %w", err)
	}
	return out, total, nil
}

// The packed key of an engagement among a query's qualifying posts (sorted
// by URN, idx their position): ((engaged_at - since) * 2 + comment) *
// keyPostSpan + (keyPostMask - idx). The larger key is the newer
// engagement, of two at the same instant the comment, then the lower post,
// as newerEngagement orders them; key / keyTimeUnit is the time since the
// window's start. 26 bits for the post leave 37 for the time: 2,000 days.
const (
	keyPostBits    = 26
	keyPostSpan    = 1 << keyPostBits
	keyPostMask    = keyPostSpan - 1
	keyTimeUnit    = 2 * keyPostSpan
	keyPostSpanSQL = "67108864"
	keyPostMaskSQL = "67108863"
	keyTimeUnitSQL = "134217728"
)

func decodeKey(k int64) (rel int64, comment bool, idx int) {
	return k / keyTimeUnit, (k/keyPostSpan)%2 == 1, keyPostMask - int(k%keyPostSpan)
}

// pageOffset is the OFFSET and LIMIT of page (from 1) of size, without
// overflow: a page past any possible end has an offset past it too.
func pageOffset(page, size int) (int64, int64) {
	if page < 1 || size < 1 {
		return math.MaxInt64 / 2, 0
	}
	if int64(page-1) > (math.MaxInt64/2)/int64(size) {
		return math.MaxInt64 / 2, int64(size)
	}
	return int64(page-1) * int64(size), int64(size)
}

// newerEngagement orders a person's engagements: the later one, and of two
// at the same instant the comment, then the lower post id.
func newerEngagement(a, b MappingResult) bool {
	if !a.EngagedAt.Equal(b.EngagedAt) {
		return a.EngagedAt.After(b.EngagedAt)
	}
	if a.EngagementType != b.EngagementType {
		return a.EngagementType == "comment"
	}
	return a.PostURN < b.PostURN
}

// qualifyingPosts are the posts whose text mentions the keywords at least
// q.MinHits() times, and with strength 0 also those a topic linked for one
// of the keywords that have an engagement since `since`, sorted by URN.
// Posts without an engagement in the window may be among them.
func (s *Store) qualifyingPosts(ctx context.Context, q mapping.Query, since int64) ([]string, error) {
	var rows *sql.Rows
	var err error
	if s.dialect == Postgres {
		rows, err = s.read.QueryContext(ctx,
			`SELECT m.urn, m.text FROM mapping_posts m WHERE m.text_search @@ `+pgTSQuery(q.Keywords),
			pgKeywordArgs(q.Keywords))
	} else {
		rows, err = s.read.QueryContext(ctx,
			`SELECT p.urn, p.text FROM pronet_posts_fts f JOIN pronet_posts p ON p.rowid = f.rowid
			  WHERE pronet_posts_fts MATCH $1`, ftsMatch(q.Keywords))
	}
	if err != nil {
		return nil, fmt.Errorf("match posts: %w", err)
	}
	qualified := map[string]bool{}
	for rows.Next() {
		var urn, text string
		if err := rows.Scan(&urn, &text); err != nil {
			rows.Close()
			return nil, err
		}
		if mapping.Hits(text, q.Keywords) >= q.MinHits() {
			qualified[urn] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if q.Strength == 0 {
		linked, err := s.postsLinkedFor(ctx, q.Keywords, since, true)
		if err != nil {
			return nil, err
		}
		for _, urn := range linked {
			qualified[urn] = true
		}
	}
	out := make([]string, 0, len(qualified))
	for urn := range qualified {
		out = append(out, urn)
	}
	slices.Sort(out)
	return out, nil
}

// binary makes an ORDER BY of text compare bytes, as Go does.
func (s *Store) binary() string {
	if s.dialect == Postgres {
		return ` COLLATE "C"`
	}
	return ""
}

// postsLinkedFor are the posts that a topic with one of the keywords among
// its own linked: engaged with since (engaged, for mapping) or published
// since (for creators, whose posts need no engagement).
func (s *Store) postsLinkedFor(ctx context.Context, keywords []string, since int64, engaged bool) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, definition FROM topics`)
	if err != nil {
		return nil, fmt.Errorf("topics: %w", err)
	}
	var ids []string
	for rows.Next() {
		var (
			id  string
			raw []byte
			d   topic.Definition
		)
		if err := rows.Scan(&id, &raw); err != nil {
			rows.Close()
			return nil, err
		}
		if json.Unmarshal(raw, &d) == nil && sharesKeyword(d.Keywords, keywords) {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return nil, err
	}
	idList, _ := json.Marshal(ids)
	recent := `EXISTS (SELECT 1 FROM pronet_engagements e WHERE e.post_urn = tp.post_urn AND e.engaged_at >= $2)`
	if !engaged {
		recent = `EXISTS (SELECT 1 FROM pronet_posts p WHERE p.urn = tp.post_urn AND p.posted_at >= $2)`
	}
	rows, err = s.read.QueryContext(ctx,
		`SELECT DISTINCT tp.post_urn FROM topic_posts tp
		  WHERE CAST(tp.topic_id AS TEXT) IN (`+s.jsonTextList(1)+`) AND `+recent,
		string(idList), since)
	if err != nil {
		return nil, fmt.Errorf("linked posts: %w", err)
	}
	return scanStrings(rows, "linked posts")
}

func sharesKeyword(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(y)) {
				return true
			}
		}
	}
	return false
}

// fillPosts reads the posts of the results.
func (s *Store) fillPosts(ctx context.Context, rs []MappingResult) error {
	if len(rs) == 0 {
		return nil
	}
	urns := make([]string, len(rs))
	for i, r := range rs {
		urns[i] = r.PostURN
	}
	list, _ := json.Marshal(urns)
	rows, err := s.read.QueryContext(ctx, `SELECT urn, record FROM pronet_posts WHERE urn IN (`+s.jsonTextList(1)+`)`, string(list))
	if err != nil {
		return fmt.Errorf("posts: %w", err)
	}
	defer rows.Close()
	type rec struct {
		Text                string `json:"text"`
		PostURL             string `json:"postUrl"`
		PostedDateTimestamp int64  `json:"postedDateTimestamp"`
		TotalReactionCount  int64  `json:"totalReactionCount"`
		CommentsCount       int64  `json:"commentsCount"`
	}
	byURN := map[string]rec{}
	for rows.Next() {
		var (
			urn string
			raw []byte
			r   rec
		)
		if err := rows.Scan(&urn, &raw); err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("decode post %s: %w", urn, err)
		}
		byURN[urn] = r
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range rs {
		r := byURN[rs[i].PostURN]
		rs[i].PostText, rs[i].PostURL, rs[i].PostLikes, rs[i].PostComments = r.Text, r.PostURL, r.TotalReactionCount, r.CommentsCount
		rs[i].PostDate = time.UnixMilli(r.PostedDateTimestamp).UTC()
	}
	return nil
}

// jsonTextList is a subquery listing the strings of the JSON array argument
// $n, for IN (…).
func (s *Store) jsonTextList(n int) string {
	if s.dialect == Postgres {
		return fmt.Sprintf("SELECT jsonb_array_elements_text($%d::jsonb)", n)
	}
	return fmt.Sprintf("SELECT value FROM json_each($%d)", n)
}

// ftsMatch is an FTS5 query for any of the keywords, each a phrase.
func ftsMatch(keywords []string) string {
	parts := make([]string, 0, len(keywords))
	for _, k := range keywords {
		parts = append(parts, `"`+strings.ReplaceAll(strings.TrimSpace(k), `"`, `""`)+`"`)
	}
	return strings.Join(parts, " OR ")
}

// pgTSQuery ORs a phrase query per keyword, the keywords being the elements
// of the JSON array $1.
func pgTSQuery(keywords []string) string {
	parts := make([]string, len(keywords))
	for i := range keywords {
		parts[i] = fmt.Sprintf(`phraseto_tsquery('simple', regexp_replace($1::jsonb ->> %d, '[^[:alnum:]_]+', ' ', 'g'))`, i)
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

func pgKeywordArgs(keywords []string) string {
	raw, _ := json.Marshal(keywords)
	return string(raw)
}

// Creator is one author of a creator discovery answer.
type Creator struct {
	Person          mapping.Person
	QualifyingPosts int
	AvgEngagement   float64  // reactions + comments over their 10 most recent known posts
	AvgDaysBetween  *float64 // between those posts; nil with fewer than 2
}

// DiscoverCreators answers a creator query: the members who wrote pool
// posts about the keywords within the window, filtered on the author,
// ordered by qualifying posts, then average engagement.
func (s *Store) DiscoverCreators(ctx context.Context, q mapping.Query, now time.Time, maxCandidates int) ([]Creator, int64, error) {
	since := ms(now.Add(-time.Duration(q.Days) * 24 * time.Hour))
	byAuthor := map[string]int{}
	var rows *sql.Rows
	var err error
	if s.dialect == Postgres {
		rows, err = s.read.QueryContext(ctx,
			`SELECT m.urn, m.author_urn, m.text FROM mapping_posts m
			  WHERE m.text_search @@ `+pgTSQuery(q.Keywords)+` AND m.posted_at >= $2 AND m.author_urn <> ''`,
			pgKeywordArgs(q.Keywords), since)
	} else {
		rows, err = s.read.QueryContext(ctx,
			`SELECT p.urn, p.author_urn, p.text FROM pronet_posts_fts f JOIN pronet_posts p ON p.rowid = f.rowid
			  WHERE pronet_posts_fts MATCH $1 AND p.posted_at >= $2 AND p.author_urn <> ''`, ftsMatch(q.Keywords), since)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
	}
	counted := map[string]bool{}
	for rows.Next() {
		var urn, author, text string
		if err := rows.Scan(&urn, &author, &text); err != nil {
			rows.Close()
			return nil, 0, fmt.Errorf("store: discover creators: %w", err)
		}
		if mapping.Hits(text, q.Keywords) >= q.MinHits() {
			byAuthor[author]++
			counted[urn] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
	}
	if q.Strength == 0 {
		if err := s.addLinkedPostAuthors(ctx, q.Keywords, since, counted, byAuthor); err != nil {
			return nil, 0, fmt.Errorf("store: discover creators: %w", err)
		}
	}
	if len(byAuthor) > maxCandidates {
		return nil, 0, &ErrQueryTooBroad{Engagements: int64(len(byAuthor)), Limit: maxCandidates}
	}
	authors := make([]string, 0, len(byAuthor))
	for a := range byAuthor {
		authors = append(authors, a)
	}
	people, err := s.people(ctx, authors)
	if err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
	}
	var kept []string
	for _, p := range people {
		if q.Filters.Match(p) {
			kept = append(kept, p.URN)
		}
	}
	stats, err := s.authorStats(ctx, kept)
	if err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
	}
	all := make([]Creator, 0, len(kept))
	for _, urn := range kept {
		c := stats[urn]
		c.Person, c.QualifyingPosts = people[urn], byAuthor[urn]
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b Creator) int {
		if c := cmp.Compare(b.QualifyingPosts, a.QualifyingPosts); c != 0 {
			return c
		}
		if c := cmp.Compare(b.AvgEngagement, a.AvgEngagement); c != 0 {
			return c
		}
		return cmp.Compare(a.Person.URN, b.Person.URN)
	})
	lo, hi := pageBounds(q.Page, q.PageSize, len(all))
	return all[lo:hi], int64(len(all)), nil
}

// pageBounds are the bounds of page (from 1) of size items among n: empty
// past the end, however large the page number (no overflow).
func pageBounds(page, size, n int) (int, int) {
	if page < 1 || size < 1 || page-1 >= (n+size-1)/size {
		return n, n
	}
	lo := (page - 1) * size
	return lo, min(lo+size, n)
}

// addLinkedPostAuthors counts, for strength 0, the posts within the window
// that a topic linked for one of the keywords, once each.
func (s *Store) addLinkedPostAuthors(ctx context.Context, keywords []string, since int64, counted map[string]bool, byAuthor map[string]int) error {
	linked, err := s.postsLinkedFor(ctx, keywords, since, false)
	if err != nil || len(linked) == 0 {
		return err
	}
	list, _ := json.Marshal(linked)
	rows, err := s.read.QueryContext(ctx,
		`SELECT urn, author_urn FROM pronet_posts WHERE urn IN (`+s.jsonTextList(1)+`) AND posted_at >= $2 AND author_urn <> ''`,
		string(list), since)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var urn, author string
		if err := rows.Scan(&urn, &author); err != nil {
			return err
		}
		if !counted[urn] {
			counted[urn] = true
			byAuthor[author]++
		}
	}
	return rows.Err()
}

// people reads the collected people of the urns.
func (s *Store) people(ctx context.Context, urns []string) (map[string]mapping.Person, error) {
	out := map[string]mapping.Person{}
	if len(urns) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(urns)
	rows, err := s.read.QueryContext(ctx,
		`SELECT urn, first_name, last_name, full_name, pronet_url, avatar, country, company, company_domain, company_size,
		        industry, job_title, headline, followers
		   FROM pronet_people WHERE urn IN (`+s.jsonTextList(1)+`)`, string(list))
	if err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			p         mapping.Person
			headline  string
			followers sql.NullInt64
		)
		if err := rows.Scan(&p.URN, &p.FirstName, &p.LastName, &p.FullName, &p.PronetURL, &p.Avatar, &p.Country, &p.Company,
			&p.CompanyDomain, &p.CompanySize, &p.Industry, &p.JobTitle, &headline, &followers); err != nil {
			return nil, err
		}
		if followers.Valid {
			p.Followers = &followers.Int64
		}
		if p.JobTitle == "" {
			p.JobTitle = headline
		}
		out[p.URN] = p
	}
	return out, rows.Err()
}

// authorStats computes each author's average engagement and days between
// posts over their 10 most recent known posts.
func (s *Store) authorStats(ctx context.Context, authors []string) (map[string]Creator, error) {
	out := map[string]Creator{}
	if len(authors) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(authors)
	engagement := `COALESCE(json_extract(record, '$.totalReactionCount'), 0) + COALESCE(json_extract(record, '$.commentsCount'), 0)`
	if s.dialect == Postgres {
		engagement = `COALESCE((record ->> 'totalReactionCount')::bigint, 0) + COALESCE((record ->> 'commentsCount')::bigint, 0)`
	}
	rows, err := s.read.QueryContext(ctx,
		`SELECT author_urn, posted_at, engagement FROM (
		   SELECT author_urn, posted_at, `+engagement+` AS engagement,
		          ROW_NUMBER() OVER (PARTITION BY author_urn ORDER BY posted_at DESC, urn DESC) AS rn
		     FROM pronet_posts WHERE author_urn IN (`+s.jsonTextList(1)+`)) recent
		  WHERE rn <= 10 ORDER BY author_urn, posted_at DESC`, string(list))
	if err != nil {
		return nil, fmt.Errorf("author stats: %w", err)
	}
	defer rows.Close()
	type acc struct {
		n            int
		sum          int64
		newest, last int64
	}
	accs := map[string]*acc{}
	for rows.Next() {
		var (
			author       string
			posted, engs int64
		)
		if err := rows.Scan(&author, &posted, &engs); err != nil {
			return nil, err
		}
		a := accs[author]
		if a == nil {
			a = &acc{newest: posted}
			accs[author] = a
		}
		a.n++
		a.sum += engs
		a.last = posted
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for author, a := range accs {
		c := Creator{AvgEngagement: float64(a.sum) / float64(a.n)}
		if a.n >= 2 {
			days := float64(a.newest-a.last) / float64(24*time.Hour/time.Millisecond) / float64(a.n-1)
			c.AvgDaysBetween = &days
		}
		out[author] = c
	}
	return out, nil
}

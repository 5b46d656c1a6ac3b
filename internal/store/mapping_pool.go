package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/topic"
)

// mappingPool is the pool the mapping engine reads (mapping.Pool), in
// plain SQL on both engines: the posts, people and engagements collection
// stored, what it precomputed of them (mapping_index.go) and the logs of
// their changes (mapping_log.go).
type mappingPool struct{ s *Store }

// MappingPool is the pool a mapping.Engine reads.
func (s *Store) MappingPool() mapping.Pool { return mappingPool{s} }

func (p mappingPool) PrunedPast(pruned, pos uint64) bool { return p.s.prunedPast(pruned, pos) }
func (p mappingPool) SharesMatches() bool                { return p.s.sharesMatches() }
func (p mappingPool) PacksPostings() bool                { return p.s.PacksKeywordPostings() }

// PlanKeyword is how this engine's index is asked about keyword.
func (p mappingPool) PlanKeyword(keyword string) mapping.Keyword {
	k := mapping.PlanKeyword(keyword)
	if k.Kind == mapping.KeywordPhrase && k.Pair != "" && p.s.dialect == SQLite {
		// Two different words: counted like a word, by its pair lexeme
		// (mapping.TSVector says why not on PostgreSQL).
		k = mapping.Keyword{Kind: mapping.KeywordCounted, Lexemes: []string{k.Pair}}
	}
	return k
}

// TermsQuery is an index query (an FTS5 MATCH expression, or a tsquery
// literal) for posts that mention the keyword at least `level` times,
// level > 1 for counted keywords only; phrases and loose keywords by their
// words' positions.
func (p mappingPool) TermsQuery(k mapping.Keyword, level int) string {
	pg := p.s.dialect == Postgres
	if k.Kind == mapping.KeywordCounted {
		lex := mapping.LevelLexeme(k.Lexemes[0], level)
		if pg {
			return "'" + lex + "'"
		}
		return `"` + lex + `"`
	}
	var sb strings.Builder
	for i, lex := range k.Lexemes {
		switch {
		case i == 0:
		case pg && k.Gaps[i] == 1:
			sb.WriteString(" <-> ")
		case pg:
			fmt.Fprintf(&sb, " <%d> ", k.Gaps[i])
		case k.Gaps[i] == 1:
			sb.WriteByte(' ')
		default:
			sb.WriteString(" _ ") // the filler the index puts where words are not one space apart
		}
		if pg {
			sb.WriteString("'" + lex + "'")
		} else {
			sb.WriteString(lex)
		}
	}
	if pg {
		return sb.String()
	}
	return `"` + sb.String() + `"`
}

// PagePosts reads posts by id, in one statement.
func (p mappingPool) PagePosts(ctx context.Context, ids []int64) (map[int64]mapping.PagePost, error) {
	s := p.s
	out := make(map[int64]mapping.PagePost, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.read.QueryContext(ctx, `SELECT m.id, m.urn, p.record FROM (`+s.int64Rows(1)+`) q
	  JOIN mapping_posts m ON m.id = q.id LEFT JOIN pronet_posts p ON p.urn = m.urn`, s.int64List(ids))
	if err != nil {
		return nil, fmt.Errorf("posts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   int64
			urn  string
			post mapping.PagePost
			raw  []byte
		)
		if err := rows.Scan(&id, &urn, &raw); err != nil {
			return nil, fmt.Errorf("posts: %w", err)
		}
		if raw != nil {
			if err := json.Unmarshal(raw, &post); err != nil {
				return nil, fmt.Errorf("decode post %s: %w", urn, err)
			}
		}
		post.URN = urn
		out[id] = post
	}
	return out, rows.Err()
}

// PostTexts reads the text of the posts of ids.
func (p mappingPool) PostTexts(ctx context.Context, ids []int64) ([]mapping.PostText, error) {
	s := p.s
	return readTexts(ctx, s.read, `SELECT m.id, TRUE, p.text FROM mapping_posts m JOIN pronet_posts p ON p.urn = m.urn WHERE m.id IN (`+s.int64Rows(1)+`)`,
		[]any{s.int64List(ids)})
}

// Engagements reads the engagements of posts since `since` from the pool
// tables.
func (p mappingPool) Engagements(ctx context.Context, posts []int64, since int64) (map[int64][]mapping.Engagement, error) {
	return p.s.readEngagers(ctx, p.s.read, posts, since)
}

// Topics reads the topics' keywords, newest first.
func (p mappingPool) Topics(ctx context.Context) ([]mapping.Topic, error) {
	rows, err := p.s.read.QueryContext(ctx, `SELECT id, definition FROM topics ORDER BY created_at DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []mapping.Topic
	for rows.Next() {
		var (
			id  string
			raw []byte
			d   topic.Definition
		)
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, err
		}
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		out = append(out, mapping.Topic{ID: id, Keywords: d.Keywords, KeywordsAnd: d.KeywordsAnd})
	}
	return out, rows.Err()
}

// LinkedPosts reads the posts (ids) the topics linked: engaged with since
// (for mapping) or published since (for creators).
func (p mappingPool) LinkedPosts(ctx context.Context, topics []string, since int64, engaged bool) ([]int64, error) {
	s := p.s
	idList, _ := json.Marshal(topics)
	recent := `EXISTS (SELECT 1 FROM pronet_engagements e WHERE e.post_urn = tp.post_urn AND e.engaged_at >= $2)`
	if !engaged {
		recent = `m.posted_at >= $2`
	}
	rows, err := s.read.QueryContext(ctx,
		`SELECT DISTINCT m.id FROM topic_posts tp JOIN mapping_posts m ON m.urn = tp.post_urn
		  WHERE CAST(tp.topic_id AS TEXT) IN (`+s.jsonTextList(1)+`) AND `+recent,
		string(idList), since)
	if err != nil {
		return nil, err
	}
	return scanInt64s(rows)
}

// jsonTextList is a subquery listing the strings of the JSON array argument
// $n, for IN (…).
func (s *Store) jsonTextList(n int) string {
	if s.dialect == Postgres {
		return fmt.Sprintf("SELECT jsonb_array_elements_text($%d::jsonb)", n)
	}
	return fmt.Sprintf("SELECT value FROM json_each($%d)", n)
}

// AuthorsOf reads the person ids of the authors of posts who are people.
func (p mappingPool) AuthorsOf(ctx context.Context, posts []int64) ([]int64, error) {
	s := p.s
	rows, err := s.read.QueryContext(ctx,
		`SELECT p.id FROM (`+s.int64Rows(1)+`) q JOIN mapping_posts m ON m.id = q.id JOIN pronet_people p ON p.urn = m.author_urn
		  WHERE p.id IS NOT NULL`, s.int64List(posts))
	if err != nil {
		return nil, err
	}
	return scanInt64s(rows)
}

// AuthorStats reads each author's URN and the statistics of their 10 most
// recent known posts, by person id.
func (p mappingPool) AuthorStats(ctx context.Context, authors []int64) (map[int64]mapping.AuthorStat, error) {
	s := p.s
	out := map[int64]mapping.AuthorStat{}
	// Each author's 10 most recent posts from the covering index on
	// mapping_posts (author, date, urn, engagement; migration 00012), read
	// backwards, cut at 10 and summed in SQL: no post record is read, nor
	// any table row, nor the older posts of prolific authors.
	query := `SELECT p.id, p.urn, (SELECT json_array(COUNT(*), SUM(engagement), MAX(posted_at), MIN(posted_at))
	                                 FROM (SELECT posted_at, engagement FROM mapping_posts WHERE author_urn = p.urn
	                                        ORDER BY posted_at DESC, urn DESC LIMIT 10))
	           FROM pronet_people p WHERE p.id IN (` + s.int64Rows(1) + `)`
	if s.dialect == Postgres {
		query = `SELECT p.id, p.urn, json_build_array(r.n, r.total, r.newest, r.oldest)::text FROM pronet_people p
		           CROSS JOIN LATERAL (SELECT COUNT(*) AS n, SUM(engagement)::bigint AS total, MAX(posted_at) AS newest, MIN(posted_at) AS oldest
		                                 FROM (SELECT posted_at, engagement FROM mapping_posts WHERE author_urn = p.urn
		                                        ORDER BY posted_at DESC, urn DESC LIMIT 10) recent) r
		          WHERE p.id IN (` + s.int64Rows(1) + `)`
	}
	rows, err := s.read.QueryContext(ctx, query, s.int64List(authors))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id  int64
			st  mapping.AuthorStat
			raw []byte
			v   [4]*int64 // posts, their engagement, newest and oldest date
		)
		if err := rows.Scan(&id, &st.URN, &raw); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		for i, to := range []*int64{&st.Posts, &st.Engagement, &st.Newest, &st.Oldest} {
			if v[i] != nil {
				*to = *v[i]
			}
		}
		out[id] = st
	}
	return out, rows.Err()
}

// ShareMatches stores keyword matches for the other processes, each in
// place of one stored at an older position.
func (p mappingPool) ShareMatches(ctx context.Context, entries []mapping.SharedMatch) error {
	for _, e := range entries {
		if _, err := p.s.db.ExecContext(ctx,
			`INSERT INTO mapping_keyword_matches (key, position, ids) VALUES ($1, $2, $3)
			 ON CONFLICT (key) DO UPDATE SET position = excluded.position, ids = excluded.ids
			  WHERE mapping_keyword_matches.position < excluded.position`,
			e.Key, e.Position, e.Packed); err != nil {
			return err
		}
	}
	return nil
}

// personColumns are the columns scanPerson reads.
const personColumns = `id, urn, first_name, last_name, full_name, pronet_url, avatar, country, company, company_domain, company_size,
	company_logo, industry, job_title, headline, followers`

func scanPerson(rows *sql.Rows) (int64, mapping.Person, error) {
	var (
		id        int64
		p         mapping.Person
		headline  string
		followers sql.NullInt64
	)
	if err := rows.Scan(&id, &p.URN, &p.FirstName, &p.LastName, &p.FullName, &p.PronetURL, &p.Avatar, &p.Country, &p.Company,
		&p.CompanyDomain, &p.CompanySize, &p.CompanyLogo, &p.Industry, &p.JobTitle, &headline, &followers); err != nil {
		return 0, mapping.Person{}, err
	}
	if followers.Valid {
		p.Followers = &followers.Int64
	}
	if p.JobTitle == "" {
		p.JobTitle = headline // until the profile is read
	}
	return id, p, nil
}

// PeopleByID reads the collected people of the ids.
func (p mappingPool) PeopleByID(ctx context.Context, ids []int64) (map[int64]mapping.Person, error) {
	s := p.s
	out := make(map[int64]mapping.Person, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+personColumns+` FROM pronet_people WHERE id IN (`+s.int64Rows(1)+`)`, s.int64List(ids))
	if err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		id, person, err := scanPerson(rows)
		if err != nil {
			return nil, fmt.Errorf("people: %w", err)
		}
		out[id] = person
	}
	return out, rows.Err()
}

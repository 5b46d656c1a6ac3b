package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/topic"
)

// What social mapping precomputes when collection stores posts, engagements
// and profiles (migration 00010; docs/decisions.md): the keyword index of
// each post, each post's engagements packed in one value, and people's
// filter columns folded. The triggers of the migration remove a stale row
// whatever wrote the pool; the functions here write the fresh one, called
// by the writers (SaveDiscovery, SaveHydration, SaveProfile, the seeders),
// and a query reads the pool tables for whatever has none.

// indexPosts puts the posts of urns whose keyword index is pending (new,
// or their text changed) into the index, in the writer's transaction.
func (s *Store) indexPosts(ctx context.Context, tx *sql.Tx, urns []string) error {
	for args := range inChunks(urns) {
		if _, err := s.indexPending(ctx, tx, `AND m.urn IN (`+inList(0, len(args))+`)`, args...); err != nil {
			return err
		}
	}
	return nil
}

// indexDiscoveredPosts indexes the posts a discovery stored (SaveDiscovery).
func (s *Store) indexDiscoveredPosts(ctx context.Context, tx *sql.Tx, posts []topic.Post) error {
	urns := make([]string, len(posts))
	for i, p := range posts {
		urns[i] = p.URN
	}
	if err := s.indexPosts(ctx, tx, urns); err != nil {
		return fmt.Errorf("index posts: %w", err)
	}
	return nil
}

// IndexPendingPosts indexes every post whose keyword index is pending, in
// batches, and returns how many it indexed. Migrate calls it: the
// migration that made the index could not cut text as Go does.
func (s *Store) IndexPendingPosts(ctx context.Context) (int, error) {
	const batch = 2000
	total := 0
	for after := int64(0); ; {
		var (
			ids     []int64
			indexed int
		)
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			ids = ids[:0]
			rows, err := tx.QueryContext(ctx,
				`SELECT id FROM mapping_posts m WHERE `+s.pending("m")+` AND id > $1 ORDER BY id LIMIT `+strconv.Itoa(batch), after)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				ids = append(ids, id)
			}
			rows.Close()
			if err := rows.Err(); err != nil || len(ids) == 0 {
				return err
			}
			indexed, err = s.indexPending(ctx, tx, `AND m.id BETWEEN $1 AND $2`, ids[0], ids[len(ids)-1])
			return err
		})
		if err != nil {
			return total, fmt.Errorf("store: index pending posts: %w", err)
		}
		total += indexed
		if len(ids) < batch {
			return total, nil
		}
		after = ids[len(ids)-1]
	}
}

// pending is the condition "the keyword index of this mapping_posts row is
// pending".
func (s *Store) pending(alias string) string {
	if s.dialect == Postgres {
		return alias + ".pending"
	}
	return alias + ".pending = 1"
}

// indexPending indexes the pending posts that cond (on mapping_posts m)
// selects and returns how many. A PostgreSQL tsvector cannot hold the
// positions of a text of more than 16,383 words; such a post stays pending,
// and queries read its text.
func (s *Store) indexPending(ctx context.Context, tx *sql.Tx, cond string, args ...any) (int, error) {
	rows, err := tx.QueryContext(ctx,
		`SELECT m.id, p.text FROM mapping_posts m JOIN pronet_posts p ON p.urn = m.urn WHERE `+s.pending("m")+` `+cond, args...)
	if err != nil {
		return 0, fmt.Errorf("pending posts: %w", err)
	}
	type post struct {
		id    int64
		terms string
	}
	var posts []post
	for rows.Next() {
		var (
			id   int64
			text string
		)
		if err := rows.Scan(&id, &text); err != nil {
			rows.Close()
			return 0, fmt.Errorf("pending posts: %w", err)
		}
		terms := mapping.IndexText(text)
		if s.dialect == Postgres {
			v, ok := terms.TSVector()
			if !ok {
				continue
			}
			posts = append(posts, post{id, v})
		} else {
			posts = append(posts, post{id, terms.FTSText()})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("pending posts: %w", err)
	}
	if len(posts) == 0 {
		return 0, nil
	}
	if s.dialect == Postgres {
		err = s.batchInsert(ctx, tx, `UPDATE mapping_posts m SET terms = v.terms::tsvector, pending = FALSE FROM (VALUES `,
			`) v (id, terms) WHERE m.id = v.id::bigint`, 2, len(posts),
			// VALUES columns are typed text from their parameters: the id goes as text too.
			func(i int) []any { return []any{strconv.FormatInt(posts[i].id, 10), posts[i].terms} }, nil)
		if err != nil {
			return 0, fmt.Errorf("index posts: %w", err)
		}
		return len(posts), nil
	}
	if err := s.batchInsert(ctx, tx, `INSERT INTO mapping_terms (rowid, terms) VALUES `, ``, 2, len(posts),
		func(i int) []any { return []any{posts[i].id, posts[i].terms} }, nil); err != nil {
		return 0, fmt.Errorf("index posts: %w", err)
	}
	ids := make([]any, len(posts))
	for i, p := range posts {
		ids[i] = p.id
	}
	for chunk := range slices.Chunk(ids, insertBatch) {
		if _, err := tx.ExecContext(ctx, `UPDATE mapping_posts SET pending = 0 WHERE id IN (`+inList(0, len(chunk))+`)`, chunk...); err != nil {
			return 0, fmt.Errorf("index posts: %w", err)
		}
	}
	return len(posts), nil
}

// indexEngagers packs the engagements of the posts of urns whose packed
// list is missing (new engagements took it away), in the writer's
// transaction.
func (s *Store) indexEngagers(ctx context.Context, tx *sql.Tx, urns []string) error {
	for args := range inChunks(urns) {
		if s.dialect == Postgres {
			// One statement, no round trips: packed in SQL as mapping.PackEngagements
			// packs (as migration 00010 does; its test compares the two).
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO mapping_engagers (post_id, engagers)
				 SELECT m.id, COALESCE(string_agg(int8send(e.engaged_at) || int8send(p.id * 2 + CASE WHEN e.type = 'comment' THEN 1 ELSE 0 END), ''::bytea
				                                  ORDER BY e.engaged_at, p.id * 2 + CASE WHEN e.type = 'comment' THEN 1 ELSE 0 END), ''::bytea)
				   FROM mapping_posts m
				   LEFT JOIN pronet_engagements e ON e.post_urn = m.urn
				   LEFT JOIN pronet_people p ON p.urn = e.person_urn
				  WHERE m.urn IN (`+inList(0, len(args))+`) AND NOT EXISTS (SELECT 1 FROM mapping_engagers b WHERE b.post_id = m.id)
				  GROUP BY m.id
				 ON CONFLICT (post_id) DO UPDATE SET engagers = excluded.engagers`, args...); err != nil {
				return fmt.Errorf("pack engagements: %w", err)
			}
			continue
		}
		rows, err := tx.QueryContext(ctx,
			`SELECT m.id FROM mapping_posts m
			  WHERE m.urn IN (`+inList(0, len(args))+`) AND NOT EXISTS (SELECT 1 FROM mapping_engagers b WHERE b.post_id = m.id)`, args...)
		if err != nil {
			return fmt.Errorf("posts to pack: %w", err)
		}
		ids, err := scanInt64s(rows)
		if err != nil {
			return fmt.Errorf("posts to pack: %w", err)
		}
		if err := s.packPosts(ctx, tx, ids); err != nil {
			return err
		}
	}
	return nil
}

// packPosts writes the packed engagements of posts (mapping_posts ids)
// from the pool tables.
func (s *Store) packPosts(ctx context.Context, tx *sql.Tx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	byPost, err := s.readEngagers(ctx, tx, ids, math.MinInt64)
	if err != nil {
		return err
	}
	err = s.batchInsert(ctx, tx, `INSERT INTO mapping_engagers (post_id, engagers) VALUES `,
		`ON CONFLICT (post_id) DO UPDATE SET engagers = excluded.engagers`, 2, len(ids),
		func(i int) []any { return []any{ids[i], mapping.PackEngagements(byPost[ids[i]])} }, nil)
	if err != nil {
		return fmt.Errorf("pack engagements: %w", err)
	}
	return nil
}

// packPost writes the packed list of the post of urn from its engagements
// es (all it has), in the writer's transaction.
func (s *Store) packPost(ctx context.Context, tx *sql.Tx, urn string, es []topic.Candidate) error {
	entries := make([]mapping.Engagement, len(es))
	for i, e := range es {
		entries[i] = mapping.Engagement{At: e.Engaged, Key: mapping.EngagementKey(e.PersonID, e.Comment)}
	}
	if _, err := s.execTx(ctx, tx,
		`INSERT INTO mapping_engagers (post_id, engagers) SELECT id, $2 FROM mapping_posts WHERE urn = $1
		 ON CONFLICT (post_id) DO UPDATE SET engagers = excluded.engagers`, urn, mapping.PackEngagements(entries)); err != nil {
		return fmt.Errorf("pack engagements of %s: %w", urn, err)
	}
	return nil
}

func scanInt64s(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// readEngagers reads the engagements of posts (mapping_posts ids) since
// `since` from the pool tables, by post (mapping.Pool.Engagements).
func (s *Store) readEngagers(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, posts []int64, since int64) (map[int64][]mapping.Engagement, error) {
	out := make(map[int64][]mapping.Engagement, len(posts))
	if len(posts) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx,
		`SELECT m.id, e.engaged_at, p.id * 2 + CASE WHEN e.type = 'comment' THEN 1 ELSE 0 END
		   FROM (`+s.int64Rows(1)+`) q JOIN mapping_posts m ON m.id = q.id
		   JOIN pronet_engagements e ON e.post_urn = m.urn AND e.engaged_at >= $2
		   JOIN pronet_people p ON p.urn = e.person_urn`, s.int64List(posts), since)
	if err != nil {
		return nil, fmt.Errorf("engagements: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			post int64
			e    mapping.Engagement
		)
		if err := rows.Scan(&post, &e.At, &e.Key); err != nil {
			return nil, fmt.Errorf("engagements: %w", err)
		}
		out[post] = append(out[post], e)
	}
	return out, rows.Err()
}

// foldPeople writes the folded filter columns of the people of urns from
// their rows, in the writer's transaction (SaveProfile, after it stored a
// profile). On PostgreSQL the rows are locked as they are read, so another
// profile write of the same person waits and its trigger then drops what
// this one wrote.
func (s *Store) foldPeople(ctx context.Context, tx *sql.Tx, urns []string) error {
	for args := range inChunks(urns) {
		if err := s.foldWhere(ctx, tx, `urn IN (`+inList(0, len(args))+`)`, args...); err != nil {
			return err
		}
	}
	return nil
}

// foldPeopleByID is foldPeople by person id.
func (s *Store) foldPeopleByID(ctx context.Context, tx *sql.Tx, ids []int64) error {
	return s.foldWhere(ctx, tx, `id IN (`+s.int64Rows(1)+`)`, s.int64List(ids))
}

// foldWhere folds the people that cond (on pronet_people) selects.
func (s *Store) foldWhere(ctx context.Context, tx *sql.Tx, cond string, args ...any) error {
	rows, err := tx.QueryContext(ctx,
		`SELECT id, job_title, headline, company_domain, company_size, industry, country, followers
		   FROM pronet_people WHERE id IS NOT NULL AND `+cond+` ORDER BY id`+s.forUpdate(), args...)
	if err != nil {
		return fmt.Errorf("fold people: %w", err)
	}
	var folded [][]any
	for rows.Next() {
		var (
			id                                               int64
			title, headline, domain, size, industry, country string
			followers                                        sql.NullInt64
		)
		if err := rows.Scan(&id, &title, &headline, &domain, &size, &industry, &country, &followers); err != nil {
			rows.Close()
			return fmt.Errorf("fold people: %w", err)
		}
		if title == "" {
			title = headline // as Match sees a person whose profile shows no title
		}
		t, f := any(mapping.FoldTitle(title)), any(nil)
		if followers.Valid {
			f = followers.Int64
		}
		// As Filters.Match compares them (mapping.FoldKey: equal exactly when strings.EqualFold).
		folded = append(folded, []any{id, t, strings.ToLower(domain), mapping.FoldKey(size),
			mapping.FoldKey(strings.ToLower(industry)), mapping.FoldKey(country), f})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("fold people: %w", err)
	}
	err = s.batchInsert(ctx, tx, `INSERT INTO mapping_people (id, title, domain, size, industry, country, followers) VALUES `,
		`ON CONFLICT (id) DO UPDATE SET title = excluded.title, domain = excluded.domain, size = excluded.size,
		     industry = excluded.industry, country = excluded.country, followers = excluded.followers`, 7, len(folded),
		func(i int) []any { return folded[i] }, nil)
	if err != nil {
		return fmt.Errorf("fold people: %w", err)
	}
	return nil
}

// MappingPrecomputed is what PrecomputeMapping made.
type MappingPrecomputed struct {
	Posts, Packed, People int
}

// PrecomputeMapping makes whatever social mapping precomputes and is
// missing: the keyword index of pending posts, the packed engagements of
// posts without them, the folded filter columns of people without them.
// Collection keeps all three as it writes; a bulk load that bypasses it
// (the benchmark's seeders) calls this after it, with no writer beside it.
func (s *Store) PrecomputeMapping(ctx context.Context) (MappingPrecomputed, error) {
	var out MappingPrecomputed
	var err error
	if out.Posts, err = s.IndexPendingPosts(ctx); err != nil {
		return out, err
	}
	const batch = 5000
	for _, step := range []struct {
		missing string
		do      func(tx *sql.Tx, ids []int64) error
		n       *int
	}{
		{`SELECT m.id FROM mapping_posts m
		   WHERE m.id > $1 AND NOT EXISTS (SELECT 1 FROM mapping_engagers b WHERE b.post_id = m.id) ORDER BY m.id LIMIT $2`,
			func(tx *sql.Tx, ids []int64) error { return s.packPosts(ctx, tx, ids) }, &out.Packed},
		{`SELECT p.id FROM pronet_people p
		   WHERE p.id > $1 AND NOT EXISTS (SELECT 1 FROM mapping_people m WHERE m.id = p.id) ORDER BY p.id LIMIT $2`,
			func(tx *sql.Tx, ids []int64) error { return s.foldPeopleByID(ctx, tx, ids) }, &out.People},
	} {
		for after := int64(0); ; {
			var ids []int64
			err := s.inTx(ctx, func(tx *sql.Tx) error {
				rows, err := tx.QueryContext(ctx, step.missing, after, batch)
				if err != nil {
					return err
				}
				if ids, err = scanInt64s(rows); err != nil || len(ids) == 0 {
					return err
				}
				return step.do(tx, ids)
			})
			if err != nil {
				return out, fmt.Errorf("store: precompute mapping: %w", err)
			}
			*step.n += len(ids)
			if len(ids) < batch {
				break
			}
			after = ids[len(ids)-1]
		}
	}
	return out, nil
}

// int64List is ids as a list argument: a JSON array for SQLite's
// json_each, an array literal for PostgreSQL.
func (s *Store) int64List(ids []int64) string {
	var sb strings.Builder
	open, close := "[", "]"
	if s.dialect == Postgres {
		open, close = "{", "}"
	}
	sb.WriteString(open)
	for i, id := range ids {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatInt(id, 10))
	}
	sb.WriteString(close)
	return sb.String()
}

// int64Rows is a subquery of the ids of argument $n (int64List), column
// "id".
func (s *Store) int64Rows(n int) string {
	if s.dialect == Postgres {
		return fmt.Sprintf("SELECT unnest($%d::bigint[]) AS id", n)
	}
	return fmt.Sprintf("SELECT value AS id FROM json_each($%d)", n)
}

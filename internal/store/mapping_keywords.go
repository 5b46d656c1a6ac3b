package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/mapping"
)

// qualifyingPosts are the posts (mapping_posts ids, sorted) whose text
// mentions the keywords at least q.MinHits() times, and with strength 0
// also those a topic linked for one of the keywords: with an engagement
// since `since` (mapping), or published since then (published, for
// creators). Posts without an engagement in the window may be among them.
//
// The keyword index decides alone what it knows exactly (mapping.Keyword):
// how often a word, a hashtag or a phrase of two different words occurs,
// up to mapping.MaxStrength, and whether any phrase occurs. The text
// decides the rest: how often a longer phrase occurs, where that matters,
// keywords the index can only narrow down ("product-led"), and posts whose
// index is pending.
func (s *Store) qualifyingPosts(ctx context.Context, q mapping.Query, since int64, published bool) ([]int64, error) {
	need := q.MinHits()
	var counted, phrases, loose []mapping.Keyword
	for _, k := range q.Keywords {
		switch p := mapping.PlanKeyword(k); p.Kind {
		case mapping.KeywordCounted:
			counted = append(counted, p)
		case mapping.KeywordPhrase:
			if p.Pair != "" && s.dialect == SQLite {
				// Two different words: counted like a word, by its pair
				// lexeme (mapping.TSVector says why not on PostgreSQL).
				counted = append(counted, mapping.Keyword{Kind: mapping.KeywordCounted, Lexemes: []string{p.Pair}})
				continue
			}
			phrases = append(phrases, p)
		case mapping.KeywordLoose:
			loose = append(loose, p)
		}
	}
	qualified := s.postSet()
	defer s.postSets.Put(qualified)
	// Posts that may qualify on their text.
	var check []mapping.Keyword
	if need == 1 {
		if err := s.matchPosts(ctx, []string{s.termsQuery(append(counted, phrases...), 1)}, qualified.add); err != nil {
			return nil, err
		}
		check = loose
	} else {
		// Each level of each counted keyword adds one: a post mentioning a
		// keyword c times gets min(c, need) from it. A phrase of two
		// different words is counted too: level 1 is the phrase, the
		// others its pair lexeme's levels.
		var levels []string
		for _, k := range counted {
			for level := 1; level <= need; level++ {
				levels = append(levels, s.termsQuery([]mapping.Keyword{k}, level))
			}
		}
		for _, k := range phrases {
			if k.Pair == "" {
				check = append(check, k)
				continue
			}
			levels = append(levels, s.termsQuery([]mapping.Keyword{k}, 1))
			pair := mapping.Keyword{Kind: mapping.KeywordCounted, Lexemes: []string{k.Pair}}
			for level := 2; level <= need; level++ {
				levels = append(levels, s.termsQuery([]mapping.Keyword{pair}, level))
			}
		}
		sums := map[int64]int{}
		if err := s.matchPosts(ctx, levels, func(id int64) { sums[id]++ }); err != nil {
			return nil, err
		}
		for id, n := range sums {
			if n >= need {
				qualified.add(id)
			}
		}
		check = append(check, loose...)
	}
	if len(check) > 0 {
		var candidates idSet
		if err := s.matchPosts(ctx, []string{s.termsQuery(check, 1)}, candidates.add); err != nil {
			return nil, err
		}
		if ids := slices.DeleteFunc(candidates.ids(), qualified.has); len(ids) > 0 {
			if err := s.postsByText(ctx, q, ids, qualified); err != nil {
				return nil, err
			}
		}
	}
	if err := s.postsByText(ctx, q, nil, qualified); err != nil {
		return nil, err
	}
	if q.Strength == 0 {
		linked, err := s.postsLinkedFor(ctx, q.Keywords, since, !published)
		if err != nil {
			return nil, err
		}
		for _, id := range linked {
			qualified.add(id)
		}
	}
	return qualified.ids(), nil
}

// postSet is an empty set of posts, reused (Store.postSets).
func (s *Store) postSet() *idSet {
	if set, ok := s.postSets.Get().(*idSet); ok {
		*set = (*set)[:0]
		return set
	}
	return new(idSet)
}

// termsQuery is an index query (an FTS5 MATCH expression, or a tsquery
// literal) for posts that mention any of the keywords at least `level`
// times, level > 1 for counted keywords only; phrases and loose keywords
// by their words' positions.
func (s *Store) termsQuery(keywords []mapping.Keyword, level int) string {
	parts := make([]string, 0, len(keywords))
	for _, k := range keywords {
		if k.Kind == mapping.KeywordCounted {
			lex := mapping.LevelLexeme(k.Lexemes[0], level)
			if s.dialect == Postgres {
				parts = append(parts, "'"+lex+"'")
			} else {
				parts = append(parts, `"`+lex+`"`)
			}
			continue
		}
		var sb strings.Builder
		for i, lex := range k.Lexemes {
			switch {
			case i == 0:
			case s.dialect == Postgres && k.Gaps[i] == 1:
				sb.WriteString(" <-> ")
			case s.dialect == Postgres:
				fmt.Fprintf(&sb, " <%d> ", k.Gaps[i])
			case k.Gaps[i] == 1:
				sb.WriteByte(' ')
			default:
				sb.WriteString(" _ ") // the filler the index puts where words are not one space apart
			}
			if s.dialect == Postgres {
				sb.WriteString("'" + lex + "'")
			} else {
				sb.WriteString(lex)
			}
		}
		if s.dialect == Postgres {
			parts = append(parts, "("+sb.String()+")")
		} else {
			parts = append(parts, `"`+sb.String()+`"`)
		}
	}
	if s.dialect == Postgres {
		return strings.Join(parts, " | ")
	}
	return strings.Join(parts, " OR ")
}

// matchPosts runs the index queries and calls match with each post that
// one of them matches, once per query.
func (s *Store) matchPosts(ctx context.Context, queries []string, match func(id int64)) error {
	var parts []string
	args := make([]any, 0, len(queries))
	for _, q := range queries {
		if q == "" {
			continue
		}
		args = append(args, q)
		if s.dialect == Postgres {
			parts = append(parts, fmt.Sprintf(`SELECT id FROM mapping_posts WHERE terms @@ $%d::tsquery`, len(args)))
		} else {
			parts = append(parts, fmt.Sprintf(`SELECT rowid AS id FROM mapping_terms WHERE mapping_terms MATCH $%d`, len(args)))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	// The ids come back as one comma-separated list: tens of thousands of
	// rows one by one cost more than the index lookup that finds them.
	list := `group_concat(id)`
	if s.dialect == Postgres {
		list = `string_agg(id::text, ',')`
	}
	var ids sql.NullString
	if err := s.read.QueryRowContext(ctx, `SELECT `+list+` FROM (`+strings.Join(parts, ` UNION ALL `)+`) matched`, args...).
		Scan(&ids); err != nil {
		return fmt.Errorf("match posts: %w", err)
	}
	for field := range strings.SplitSeq(ids.String, ",") {
		if field == "" {
			continue
		}
		id, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return fmt.Errorf("match posts: id %q: %w", field, err)
		}
		match(id)
	}
	return nil
}

// postsByText counts the keywords in the text of the posts of ids, or
// with ids nil of the posts whose index is pending, and adds those that
// qualify.
func (s *Store) postsByText(ctx context.Context, q mapping.Query, ids []int64, qualified *idSet) error {
	where, args := s.pending("m"), []any(nil)
	if ids != nil {
		if len(ids) == 0 {
			return nil
		}
		where, args = `m.id IN (`+s.int64Rows(1)+`)`, []any{s.int64List(ids)}
	}
	rows, err := s.read.QueryContext(ctx, `SELECT m.id, p.text FROM mapping_posts m JOIN pronet_posts p ON p.urn = m.urn WHERE `+where, args...)
	if err != nil {
		return fmt.Errorf("posts' text: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   int64
			text string
		)
		if err := rows.Scan(&id, &text); err != nil {
			return fmt.Errorf("posts' text: %w", err)
		}
		if mapping.Hits(text, q.Keywords) >= q.MinHits() {
			qualified.add(id)
		}
	}
	return rows.Err()
}

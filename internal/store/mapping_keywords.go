package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/trawlhq/trawl/internal/mapping"
)

// qualifyingPosts are the posts (mapping_posts ids, sorted) whose text
// mentions the keywords at least q.MinHits() times, and with strength 0
// also those a topic linked for one of the keywords: with an engagement
// since `since` (mapping), or published since then (published, for
// creators). Posts without an engagement in the window may be among them.
//
// The keyword index (through this process's keywordMatches) decides alone
// what it knows exactly (mapping.Keyword): how often a word, a hashtag or
// a phrase of two different words occurs, up to mapping.MaxStrength, and
// whether any phrase occurs. The text decides the rest: how often a longer
// phrase occurs, where that matters, and keywords the index can only
// narrow down ("product-led").
func (s *Store) qualifyingPosts(ctx context.Context, q mapping.Query, since int64, published bool) ([]int64, error) {
	need := q.MinHits()
	// Each index query goes to qualify (a post it matches qualifies),
	// count (a post qualifies when `need` of them match it) or check (it
	// may qualify: the text decides).
	var qualify, count, check []indexQuery
	ask := func(to *[]indexQuery, keyword string, k mapping.Keyword, level int) {
		*to = append(*to, s.indexQuery(keyword, k, level))
	}
	for _, keyword := range q.Keywords {
		k := s.planKeyword(keyword)
		switch {
		case k.Kind == mapping.KeywordNone:
		case k.Kind == mapping.KeywordLoose, k.Kind == mapping.KeywordPhrase && k.Pair == "" && need > 1:
			ask(&check, keyword, k, 1)
		case need == 1:
			ask(&qualify, keyword, k, 1)
		case k.Kind == mapping.KeywordCounted:
			// Each level of each counted keyword adds one: a post
			// mentioning a keyword c times gets min(c, need) from it.
			for level := 1; level <= need; level++ {
				ask(&count, keyword, k, level)
			}
		default:
			// A phrase of two different words is counted too: level 1
			// is the phrase, the others its pair lexeme's levels.
			ask(&count, keyword, k, 1)
			pair := mapping.Keyword{Kind: mapping.KeywordCounted, Lexemes: []string{k.Pair}}
			for level := 2; level <= need; level++ {
				ask(&count, keyword, pair, level)
			}
		}
	}
	qualified := s.postSet()
	defer s.postSets.put(qualified)
	candidates := s.postSet()
	defer s.postSets.put(candidates)
	// How many count queries matched each post, by post id; emptied
	// before it goes back.
	sums := s.postCounts()
	defer s.postCountSets.put(sums)
	defer func() { clear(*sums) }()
	err := s.matchPosts(ctx, slices.Concat(qualify, count, check), func(i int, ids []int64) {
		switch {
		case i < len(qualify):
			for _, id := range ids {
				qualified.add(id)
			}
		case i < len(qualify)+len(count):
			if n := len(ids); n > 0 && ids[n-1] >= int64(len(*sums)) {
				*sums = append(*sums, make([]uint8, int(ids[n-1])+1-len(*sums))...)
			}
			for _, id := range ids {
				if (*sums)[id]++; int((*sums)[id]) == need {
					qualified.add(id)
				}
			}
		default:
			for _, id := range ids {
				candidates.add(id)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if ids := slices.DeleteFunc(candidates.ids(), qualified.has); len(ids) > 0 {
		if err := s.postsByText(ctx, q, ids, qualified); err != nil {
			return nil, err
		}
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

// planKeyword is how this engine's index is asked about keyword.
func (s *Store) planKeyword(keyword string) mapping.Keyword {
	k := mapping.PlanKeyword(keyword)
	if k.Kind == mapping.KeywordPhrase && k.Pair != "" && s.dialect == SQLite {
		// Two different words: counted like a word, by its pair lexeme
		// (mapping.TSVector says why not on PostgreSQL).
		k = mapping.Keyword{Kind: mapping.KeywordCounted, Lexemes: []string{k.Pair}}
	}
	return k
}

// postSet is an empty set of posts, reused (Store.postSets).
func (s *Store) postSet() *idSet {
	if set := s.postSets.get(); set != nil {
		*set = (*set)[:0]
		return set
	}
	return new(idSet)
}

// postCounts is an empty count per post id, reused (Store.postCountSets).
func (s *Store) postCounts() *[]uint8 {
	if c := s.postCountSets.get(); c != nil {
		return c
	}
	return new([]uint8)
}

// termsQuery is an index query (an FTS5 MATCH expression, or a tsquery
// literal) for posts that mention the keyword at least `level` times,
// level > 1 for counted keywords only; phrases and loose keywords by their
// words' positions.
func (s *Store) termsQuery(k mapping.Keyword, level int) string {
	if k.Kind == mapping.KeywordCounted {
		lex := mapping.LevelLexeme(k.Lexemes[0], level)
		if s.dialect == Postgres {
			return "'" + lex + "'"
		}
		return `"` + lex + `"`
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
		return sb.String()
	}
	return `"` + sb.String() + `"`
}

// postsByText counts the keywords in the text of the posts of ids and adds
// those that qualify.
func (s *Store) postsByText(ctx context.Context, q mapping.Query, ids []int64, qualified *idSet) error {
	rows, err := s.read.QueryContext(ctx, `SELECT m.id, p.text FROM mapping_posts m JOIN pronet_posts p ON p.urn = m.urn WHERE m.id IN (`+s.int64Rows(1)+`)`,
		s.int64List(ids))
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

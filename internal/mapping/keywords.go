package mapping

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// qualifyingPosts are the posts (mapping_posts ids, sorted) whose text
// mentions the keywords at least q.MinHits() times, and with strength 0
// also those a topic linked for one of the keywords: with an engagement
// since `since` (mapping), or published since then (published, for
// creators). Posts without an engagement in the window may be among them.
//
// The keyword index (through this process's keywordMatches) decides alone
// what it knows exactly (Keyword): how often a word, a hashtag or
// a phrase of two different words occurs, up to MaxStrength, and
// whether any phrase occurs. The text decides the rest: how often a longer
// phrase occurs, where that matters, and keywords the index can only
// narrow down ("product-led").
func (e *Engine) qualifyingPosts(ctx context.Context, q Query, since int64, published bool) ([]int64, error) {
	need := q.MinHits()
	// Each index query goes to qualify (a post it matches qualifies),
	// count (a post qualifies when `need` of them match it) or check (it
	// may qualify: the text decides).
	var qualify, count, check []indexQuery
	ask := func(to *[]indexQuery, keyword string, k Keyword, level int) {
		*to = append(*to, e.indexQuery(keyword, k, level))
	}
	for _, keyword := range q.Keywords {
		k := e.pool.PlanKeyword(keyword)
		switch {
		case k.Kind == KeywordNone:
		case k.Kind == KeywordLoose, k.Kind == KeywordPhrase && k.Pair == "" && need > 1:
			ask(&check, keyword, k, 1)
		case need == 1:
			ask(&qualify, keyword, k, 1)
		case k.Kind == KeywordCounted:
			// Each level of each counted keyword adds one: a post
			// mentioning a keyword c times gets min(c, need) from it.
			for level := 1; level <= need; level++ {
				ask(&count, keyword, k, level)
			}
		default:
			// A phrase of two different words is counted too: level 1
			// is the phrase, the others its pair lexeme's levels.
			ask(&count, keyword, k, 1)
			pair := Keyword{Kind: KeywordCounted, Lexemes: []string{k.Pair}}
			for level := 2; level <= need; level++ {
				ask(&count, keyword, pair, level)
			}
		}
	}
	qualified := e.postSet()
	defer e.postSets.put(qualified)
	candidates := e.postSet()
	defer e.postSets.put(candidates)
	// How many count queries matched each post, by post id; emptied
	// before it goes back.
	sums := e.postCounts()
	defer e.postCountSets.put(sums)
	defer func() { clear(*sums) }()
	err := e.matchPosts(ctx, slices.Concat(qualify, count, check), func(i int, ids []int64) {
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
		if err := e.postsByText(ctx, q, ids, qualified); err != nil {
			return nil, err
		}
	}
	if q.Strength == 0 {
		linked, err := e.postsLinkedFor(ctx, q.Keywords, since, !published)
		if err != nil {
			return nil, err
		}
		for _, id := range linked {
			qualified.add(id)
		}
	}
	return qualified.ids(), nil
}

// postSet is an empty set of posts, reused (Engine.postSets).
func (e *Engine) postSet() *idSet {
	if set := e.postSets.get(); set != nil {
		*set = (*set)[:0]
		return set
	}
	return new(idSet)
}

// postCounts is an empty count per post id, reused (Engine.postCountSets).
func (e *Engine) postCounts() *[]uint8 {
	if c := e.postCountSets.get(); c != nil {
		return c
	}
	return new([]uint8)
}

// postsByText counts the keywords in the text of the posts of ids and adds
// those that qualify.
func (e *Engine) postsByText(ctx context.Context, q Query, ids []int64, qualified *idSet) error {
	texts, err := e.pool.PostTexts(ctx, ids)
	if err != nil {
		return fmt.Errorf("posts' text: %w", err)
	}
	for _, p := range texts {
		if Hits(p.Text, q.Keywords) >= q.MinHits() {
			qualified.add(p.ID)
		}
	}
	return nil
}

// postsLinkedFor are the posts (ids) that a topic with one of the keywords
// among its own linked: engaged with since (for mapping) or published
// since (for creators, whose posts need no engagement).
func (e *Engine) postsLinkedFor(ctx context.Context, keywords []string, since int64, engaged bool) ([]int64, error) {
	topics, err := e.pool.Topics(ctx)
	if err != nil {
		return nil, fmt.Errorf("topics: %w", err)
	}
	var ids []string
	for _, t := range topics {
		if sharesKeyword(t.Keywords, keywords) {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	linked, err := e.pool.LinkedPosts(ctx, ids, since, engaged)
	if err != nil {
		return nil, fmt.Errorf("linked posts: %w", err)
	}
	return linked, nil
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

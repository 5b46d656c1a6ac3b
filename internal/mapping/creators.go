package mapping

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// Creator is one author of a creator discovery answer.
type Creator struct {
	id              int64 // the person's
	Person          Person
	QualifyingPosts int
	AvgEngagement   float64 // reactions + comments over their 10 most recent known posts
	// AvgDaysBetween is the mean gap between those posts, 0 with fewer
	// than 2: the spec gives a number, and no gap was measured.
	AvgDaysBetween float64
}

// DiscoverCreators answers a creator query: the members who wrote pool
// posts about the keywords within the window, filtered on the author,
// ordered by qualifying posts, then average engagement.
func (e *Engine) DiscoverCreators(ctx context.Context, q Query, now time.Time, maxCandidates int) ([]Creator, int64, error) {
	since := now.Add(-time.Duration(q.Days) * 24 * time.Hour).UnixMilli()
	posts, err := e.qualifyingPosts(ctx, q, since, true)
	if err != nil {
		return nil, 0, fmt.Errorf("mapping: discover creators: %w", err)
	}
	byAuthor, err := e.authorsOf(ctx, posts, since)
	if err != nil {
		return nil, 0, fmt.Errorf("mapping: discover creators: %w", err)
	}
	// In no order: the sort by count below leaves the authors of one count
	// in any order, and those the page spans are sorted fully.
	authors := make([]int64, 0, len(byAuthor))
	for id := range byAuthor {
		authors = append(authors, id)
	}
	// The limit weighs the authors the filters leave (filterPeople checks
	// it), so that narrowing a query by them helps.
	if !q.Filters.Empty() {
		keep, err := e.filterPeople(ctx, authors, q.Filters, maxCandidates)
		if err != nil {
			return nil, 0, fmt.Errorf("mapping: discover creators: %w", err)
		}
		authors = slices.DeleteFunc(authors, func(id int64) bool { return !keep.has(id) })
	} else if len(authors) > maxCandidates {
		return nil, 0, &ErrQueryTooBroad{Engagements: int64(len(authors)), Limit: maxCandidates}
	}
	all := make([]Creator, len(authors))
	for i, id := range authors {
		all[i] = Creator{id: id, QualifyingPosts: byAuthor[id]}
	}
	// By qualifying posts; the statistics (and the URN, the last tie
	// breaker) order the authors of the same count, so they are read only
	// for the counts the page spans.
	slices.SortFunc(all, func(a, b Creator) int { return cmp.Compare(b.QualifyingPosts, a.QualifyingPosts) })
	lo, hi := pageBounds(q.Page, q.PageSize, len(all))
	if lo == hi {
		return []Creator{}, int64(len(all)), nil
	}
	glo, ghi := lo, hi
	for glo > 0 && all[glo-1].QualifyingPosts == all[lo].QualifyingPosts {
		glo--
	}
	for ghi < len(all) && all[ghi].QualifyingPosts == all[hi-1].QualifyingPosts {
		ghi++
	}
	spanned := all[glo:ghi]
	ids := make([]int64, len(spanned))
	for i, c := range spanned {
		ids[i] = c.id
	}
	slices.Sort(ids)
	stats, err := e.authorStats(ctx, ids)
	if err != nil {
		return nil, 0, fmt.Errorf("mapping: discover creators: %w", err)
	}
	for i := range spanned {
		st := stats[spanned[i].id]
		spanned[i].Person.URN, spanned[i].AvgEngagement, spanned[i].AvgDaysBetween = st.Person.URN, st.AvgEngagement, st.AvgDaysBetween
	}
	slices.SortFunc(spanned, func(a, b Creator) int {
		if c := cmp.Compare(b.QualifyingPosts, a.QualifyingPosts); c != 0 {
			return c
		}
		if c := cmp.Compare(b.AvgEngagement, a.AvgEngagement); c != 0 {
			return c
		}
		return cmp.Compare(a.Person.URN, b.Person.URN)
	})
	page := all[lo:hi]
	pageIDs := make([]int64, len(page))
	for i, c := range page {
		pageIDs[i] = c.id
	}
	people, err := e.pool.PeopleByID(ctx, pageIDs)
	if err != nil {
		return nil, 0, fmt.Errorf("mapping: discover creators: %w", err)
	}
	for i := range page {
		page[i].Person = people[pageIDs[i]]
	}
	return page, int64(len(all)), nil
}

// authorsOf counts the posts published since `since` among posts by
// author, for the authors who are collected people, by person id. The
// copy of the posts' authors answers, but for the posts whose author it
// found no person for: whether that author became one since is read.
func (e *Engine) authorsOf(ctx context.Context, posts []int64, since int64) (map[int64]int, error) {
	c, err := e.authorsCopy(ctx)
	if err != nil {
		return nil, err
	}
	byAuthor := map[int64]int{}
	var open []int64
	for _, id := range posts {
		if id < 0 || id >= int64(len(c.author)) || c.posted[id] < since {
			continue
		}
		switch a := c.author[id]; {
		case a > 0:
			byAuthor[a]++
		case a == UnresolvedAuthor:
			open = append(open, id)
		}
	}
	c.mu.RUnlock()
	if len(open) == 0 {
		return byAuthor, nil
	}
	found, err := e.pool.AuthorsOf(ctx, open)
	if err != nil {
		return nil, fmt.Errorf("authors: %w", err)
	}
	for _, id := range found {
		byAuthor[id]++
	}
	return byAuthor, nil
}

// authorStats computes each author's average engagement and days between
// posts over their 10 most recent known posts, by person id; the Person of
// each holds the URN only.
func (e *Engine) authorStats(ctx context.Context, authors []int64) (map[int64]Creator, error) {
	out := map[int64]Creator{}
	if len(authors) == 0 {
		return out, nil
	}
	stats, err := e.pool.AuthorStats(ctx, authors)
	if err != nil {
		return nil, fmt.Errorf("author stats: %w", err)
	}
	for id, st := range stats {
		c := Creator{Person: Person{URN: st.URN}}
		if n := st.Posts; n > 0 {
			c.AvgEngagement = float64(st.Engagement) / float64(n)
			if n >= 2 {
				c.AvgDaysBetween = float64(st.Newest-st.Oldest) / float64(24*time.Hour/time.Millisecond) / float64(n-1)
			}
		}
		out[id] = c
	}
	return out, nil
}

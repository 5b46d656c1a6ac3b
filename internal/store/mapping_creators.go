package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/trawlhq/trawl/internal/mapping"
)

// Creator is one author of a creator discovery answer.
type Creator struct {
	id              int64 // the person's
	Person          mapping.Person
	QualifyingPosts int
	AvgEngagement   float64 // reactions + comments over their 10 most recent known posts
	// AvgDaysBetween is the mean gap between those posts, 0 with fewer
	// than 2: the spec gives a number, and no gap was measured.
	AvgDaysBetween float64
}

// DiscoverCreators answers a creator query: the members who wrote pool
// posts about the keywords within the window, filtered on the author,
// ordered by qualifying posts, then average engagement.
func (s *Store) DiscoverCreators(ctx context.Context, q mapping.Query, now time.Time, maxCandidates int) ([]Creator, int64, error) {
	since := ms(now.Add(-time.Duration(q.Days) * 24 * time.Hour))
	posts, err := s.qualifyingPosts(ctx, q, since, true)
	if err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
	}
	byAuthor, err := s.authorsOf(ctx, posts, since)
	if err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
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
		keep, err := s.filterPeople(ctx, authors, q.Filters, maxCandidates)
		if err != nil {
			return nil, 0, fmt.Errorf("store: discover creators: %w", err)
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
	stats, err := s.authorStats(ctx, ids)
	if err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
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
	people, err := s.peopleByID(ctx, pageIDs)
	if err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
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
func (s *Store) authorsOf(ctx context.Context, posts []int64, since int64) (map[int64]int, error) {
	c, err := s.authorsCopy(ctx)
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
		case a == unresolved:
			open = append(open, id)
		}
	}
	c.mu.RUnlock()
	if len(open) == 0 {
		return byAuthor, nil
	}
	rows, err := s.read.QueryContext(ctx,
		`SELECT p.id FROM (`+s.int64Rows(1)+`) q JOIN mapping_posts m ON m.id = q.id JOIN pronet_people p ON p.urn = m.author_urn
		  WHERE p.id IS NOT NULL`, s.int64List(open))
	if err != nil {
		return nil, fmt.Errorf("authors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("authors: %w", err)
		}
		byAuthor[id]++
	}
	return byAuthor, rows.Err()
}

// authorStats computes each author's average engagement and days between
// posts over their 10 most recent known posts, by person id; the Person of
// each holds the URN only.
func (s *Store) authorStats(ctx context.Context, authors []int64) (map[int64]Creator, error) {
	out := map[int64]Creator{}
	if len(authors) == 0 {
		return out, nil
	}
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
		return nil, fmt.Errorf("author stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id  int64
			c   Creator
			raw []byte
			v   [4]*int64 // posts, their engagement, newest and oldest date
		)
		if err := rows.Scan(&id, &c.Person.URN, &raw); err != nil {
			return nil, fmt.Errorf("author stats: %w", err)
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("author stats: %w", err)
		}
		if v[0] != nil && *v[0] > 0 {
			n := *v[0]
			c.AvgEngagement = float64(*v[1]) / float64(n)
			if n >= 2 {
				c.AvgDaysBetween = float64(*v[2]-*v[3]) / float64(24*time.Hour/time.Millisecond) / float64(n-1)
			}
		}
		out[id] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("author stats: %w", err)
	}
	return out, nil
}

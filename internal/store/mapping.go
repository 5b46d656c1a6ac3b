package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
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
// It reads what collection precomputed (mapping_index.go): the keyword
// index finds the qualifying posts (qualifyingPosts), each post's packed
// engagements, from this process's copy, give every person's latest
// qualifying engagement in one pass (engagersOf), and the copy of the
// folded filter columns narrows the people (filterPeople). Only the page's
// people and posts are read from the pool tables.
func (s *Store) SocialMapping(ctx context.Context, q mapping.Query, now time.Time, maxCandidates int) ([]MappingResult, int64, error) {
	steps, _ := ctx.Value(mappingStepsKey{}).(*MappingSteps)
	if steps == nil {
		steps = &MappingSteps{}
	}
	*steps = MappingSteps{}
	lap := time.Now()
	// With filters, who may pass is decided first, and only they get a
	// place in the per-person list. It does not depend on the posts, so it
	// is decided while the keywords are matched, on another core.
	var (
		admit     *admission
		admitErr  error
		admitted  = make(chan struct{})
		filtering = !q.Filters.Empty()
	)
	if filtering {
		go func() {
			defer close(admitted)
			start := time.Now()
			admit, admitErr = s.admission(ctx, q.Filters)
			steps.Filters = time.Since(start)
		}()
		defer func() { <-admitted }()
	}
	since := ms(now.Add(-time.Duration(q.Days) * 24 * time.Hour))
	posts, err := s.qualifyingPosts(ctx, q, since, false)
	if err != nil {
		return nil, 0, fmt.Errorf("store: social mapping: %w", err)
	}
	steps.Posts, steps.Match = len(posts), time.Since(lap)
	if len(posts) == 0 {
		return []MappingResult{}, 0, nil
	}
	if filtering {
		if <-admitted; admitErr != nil {
			return nil, 0, fmt.Errorf("store: social mapping: %w", admitErr)
		}
	}
	lap = time.Now()
	hits, engagements, err := s.engagersOf(ctx, posts, since, admit)
	if err != nil {
		return nil, 0, fmt.Errorf("store: social mapping: %w", err)
	}
	defer func() { s.hitLists.put(&hits.list) }()
	steps.Engagements, steps.People, steps.PerPerson, lap = engagements, len(hits.list), time.Since(lap), time.Now()
	if engagements > int64(maxCandidates) {
		return nil, 0, &ErrQueryTooBroad{Engagements: engagements, Limit: maxCandidates}
	}
	defer func() { steps.Page = time.Since(lap) }()
	if admit != nil {
		// People without a folded row, or whose headline stands in for
		// the title a title filter tests: Match decides from their row.
		var undecided []int64
		for _, h := range hits.list {
			if !admit.pass.has(h.person) {
				undecided = append(undecided, h.person)
			}
		}
		if len(undecided) > 0 {
			people, err := s.peopleByID(ctx, undecided)
			if err != nil {
				return nil, 0, fmt.Errorf("store: social mapping: %w", err)
			}
			hits.list = slices.DeleteFunc(hits.list, func(h engagerHit) bool {
				p, ok := people[h.person]
				return !admit.pass.has(h.person) && (!ok || !q.Filters.Match(p))
			})
		}
	}
	list := hits.list
	// Newest first; people of the same instant by URN, as the answer has
	// always ordered them: by id for now, by URN around the page below.
	total := int64(len(list))
	lo, hi := pageBounds(q.Page, q.PageSize, len(list))
	if lo == hi {
		return []MappingResult{}, total, nil
	}
	// Only what comes up to the page is sorted, then the people of the
	// same instant as its last result after it.
	sortFirst(list, hi, func(a, b engagerHit) int { return cmp.Or(cmp.Compare(b.at, a.at), cmp.Compare(a.person, b.person)) })
	glo, ghi := lo, hi
	for glo > 0 && list[glo-1].at == list[lo].at {
		glo--
	}
	for i := hi; i < len(list); i++ {
		if list[i].at == list[hi-1].at {
			list[ghi], list[i] = list[i], list[ghi]
			ghi++
		}
	}
	ids := make([]int64, 0, ghi-glo)
	for _, h := range list[glo:ghi] {
		ids = append(ids, h.person)
	}
	people, err := s.peopleByID(ctx, ids)
	if err != nil {
		return nil, 0, fmt.Errorf("store: social mapping: %w", err)
	}
	slices.SortFunc(list[glo:ghi], func(a, b engagerHit) int {
		return cmp.Or(cmp.Compare(b.at, a.at), strings.Compare(people[a.person].URN, people[b.person].URN))
	})
	page := list[lo:hi]
	// The post of each result: of a person's engagements of the same
	// instant and type on several posts, the one on the lowest URN.
	var postIDs []int64
	for _, h := range page {
		postIDs = append(postIDs, h.post)
		postIDs = append(postIDs, hits.ties[h.person]...)
	}
	shown, err := s.pagePosts(ctx, postIDs)
	if err != nil {
		return nil, 0, fmt.Errorf("store: social mapping: %w", err)
	}
	out := make([]MappingResult, len(page))
	for i, h := range page {
		post := shown[h.post]
		for _, p := range hits.ties[h.person] {
			if tie := shown[p]; tie.urn < post.urn {
				post = tie
			}
		}
		out[i] = MappingResult{Person: people[h.person], EngagementType: "like", EngagedAt: fromMS(h.at), PostURN: post.urn,
			PostText: post.Text, PostURL: post.PostURL, PostDate: time.UnixMilli(post.PostedDateTimestamp).UTC(),
			PostLikes: post.TotalReactionCount, PostComments: post.CommentsCount}
		if h.comment {
			out[i].EngagementType = "comment"
		}
	}
	return out, total, nil
}

// MappingSteps are how long the steps of one SocialMapping call took and
// what they weighed, for benchmarks (WithMappingSteps).
type MappingSteps struct {
	// Match: the qualifying posts (keyword index, text where it must decide).
	Match time.Duration
	// PerPerson: their packed engagements read, each person's latest in
	// the window, of the people the filters may let pass.
	PerPerson time.Duration
	// Filters: who may pass the filters, from the folded columns of
	// every person (alongside Match).
	Filters time.Duration
	// Page: the sort, the page's people and posts.
	Page time.Duration

	Posts       int   // qualifying posts
	Engagements int64 // qualifying engagements in the window
	People      int   // distinct people (with filters, those the folded columns let pass or cannot decide)
}

type mappingStepsKey struct{}

// WithMappingSteps returns a context whose SocialMapping calls record their
// steps in steps.
func WithMappingSteps(ctx context.Context, steps *MappingSteps) context.Context {
	return context.WithValue(ctx, mappingStepsKey{}, steps)
}

// engagerHit is a person's latest qualifying engagement.
type engagerHit struct {
	person  int64
	at      int64
	comment bool
	post    int64
}

// engagerHits are the people of a query's qualifying engagements, each at
// their latest (of two at the same instant, the comment).
type engagerHits struct {
	list []engagerHit
	// ties are, for a person whose latest engagement has the same instant
	// and type on several posts, the other posts; the answer shows the
	// one with the lowest URN.
	ties map[int64][]int64
}

// engagersOf reads the packed engagements of the posts (sorted ids) and
// returns each person's latest engagement since `since`, of the people
// admit may let pass (all with admit nil), and how many engagements that
// is in all, whoever made them. Posts whose packed list is missing (stale)
// are read from the pool tables.
//
// A query's posts are scattered over the copy, and each one's list is a
// cache miss, as is each person's place: with enough posts, the two
// halves are read side by side, on two cores, and merged.
func (s *Store) engagersOf(ctx context.Context, posts []int64, since int64, admit *admission) (engagerHits, int64, error) {
	first := s.personPass(admit)
	c, err := s.engagersCopy(ctx)
	if err != nil {
		first.release(s)
		return engagerHits{}, 0, fmt.Errorf("engagements: %w", err)
	}
	var stale []int64
	if len(posts) < cmp.Or(s.postsApart, minPostsApart) {
		stale = first.scan(c, posts, since)
		c.mu.RUnlock()
	} else {
		mid := len(posts) / 2
		second := s.personPass(admit)
		var staleLate []int64
		sideBySide(func() { stale = first.scan(c, posts[:mid], since) },
			func() { staleLate = second.scan(c, posts[mid:], since) })
		c.mu.RUnlock()
		first.merge(second)
		second.release(s)
		stale = append(stale, staleLate...)
	}
	defer first.clearSlots(s)
	byPost, err := s.readEngagers(ctx, s.read, stale, since)
	if err != nil {
		return first.hits, 0, err
	}
	for _, p := range stale {
		for _, e := range byPost[p] {
			first.add(p, e)
		}
	}
	return first.hits, first.n, nil
}

// sideBySide runs a and b at once, b on a goroutine of its own, and
// returns when both have: the halves of a query's work, on two cores.
func sideBySide(a, b func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		b()
	}()
	a()
	<-done
}

// minPostsApart is the fewest posts whose engagements are read in two
// halves side by side (engagersOf).
const minPostsApart = 2048

// personPass is a pass over posts' engagements: each person's latest.
type personPass struct {
	hits  engagerHits
	admit *admission
	// at is where each person is in hits.list, plus one (0: not yet), by
	// person id: ids are dense (given in first-seen order), and a slice is
	// several times faster than a map here. It is a megabyte per 250,000
	// people, so queries reuse it, and clear only the entries they set.
	at []int32
	n  int64 // engagements in the window, whoever made them
}

// personPass returns a pass with reused buffers.
func (s *Store) personPass(admit *admission) *personPass {
	p := &personPass{hits: engagerHits{ties: map[int64][]int64{}}, admit: admit}
	if buf := s.hitLists.get(); buf != nil {
		p.hits.list = (*buf)[:0]
	}
	if buf := s.personSlots.get(); buf != nil {
		p.at = *buf
	}
	return p
}

// clearSlots gives back the per-person slots, cleared.
func (p *personPass) clearSlots(s *Store) {
	for _, h := range p.hits.list {
		p.at[h.person] = 0
	}
	s.personSlots.put(&p.at)
}

// release gives back both buffers of a pass whose hits are not returned.
func (p *personPass) release(s *Store) {
	p.clearSlots(s)
	s.hitLists.put(&p.hits.list)
}

// slot returns where person is in the list, plus one, making room.
func (p *personPass) slot(person int64) *int32 {
	if person >= int64(len(p.at)) {
		p.at = append(p.at, make([]int32, int(person)+1+int(person)/4-len(p.at))...)
	}
	return &p.at[person]
}

// scan adds the engagements of posts since `since`, from the copy c, and
// returns the posts it has no list for.
func (p *personPass) scan(c *packedEngagers, posts []int64, since int64) (stale []int64) {
	for _, post := range posts {
		raw := c.list(post)
		if raw == nil {
			stale = append(stale, post)
			continue
		}
		m := len(raw) / engagerSize
		// Sorted by time: skip to the window.
		lo, hi := 0, m
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if int64(binary.BigEndian.Uint64(raw[mid*engagerSize:])) < since {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		for k := lo; k < m; k++ {
			e := raw[k*engagerSize:]
			p.add(post, engagerEntry{at: int64(binary.BigEndian.Uint64(e)), key: int64(binary.BigEndian.Uint64(e[8:]))})
		}
	}
	return stale
}

// add counts an engagement on post and keeps it when it is its person's
// latest (of two at the same instant, the comment).
func (p *personPass) add(post int64, e engagerEntry) {
	p.n++
	person, comment := e.key>>1, e.key&1 == 1
	if p.admit != nil && !p.admit.may(person) {
		return
	}
	slot := p.slot(person)
	if *slot == 0 {
		*slot = int32(len(p.hits.list)) + 1
		p.hits.list = append(p.hits.list, engagerHit{person: person, at: e.at, comment: comment, post: post})
		return
	}
	h := &p.hits.list[*slot-1]
	switch {
	case e.at > h.at || e.at == h.at && comment && !h.comment:
		h.at, h.comment, h.post = e.at, comment, post
		if len(p.hits.ties) > 0 {
			delete(p.hits.ties, person)
		}
	case e.at == h.at && comment == h.comment && post != h.post:
		p.hits.ties[person] = append(p.hits.ties[person], post)
	}
}

// merge folds in the hits of a pass over other posts, as add would have.
func (p *personPass) merge(o *personPass) {
	p.n += o.n
	for _, h := range o.hits.list {
		slot := p.slot(h.person)
		if *slot == 0 {
			*slot = int32(len(p.hits.list)) + 1
			p.hits.list = append(p.hits.list, h)
			if t := o.hits.ties[h.person]; t != nil {
				p.hits.ties[h.person] = t
			}
			continue
		}
		mine := &p.hits.list[*slot-1]
		switch {
		case h.at > mine.at || h.at == mine.at && h.comment && !mine.comment:
			*mine = h
			delete(p.hits.ties, h.person)
			if t := o.hits.ties[h.person]; t != nil {
				p.hits.ties[h.person] = t
			}
		case h.at == mine.at && h.comment == mine.comment:
			// The same instant and type on posts of both halves.
			p.hits.ties[h.person] = append(append(p.hits.ties[h.person], h.post), o.hits.ties[h.person]...)
		}
	}
}

// sortFirst orders list so that its first k elements are the k first in
// cmp's order, sorted, and the others follow in no order: a page needs
// its results and those before it sorted, not the tens of thousands
// after it.
func sortFirst[T any](list []T, k int, cmp func(a, b T) int) {
	lo, hi := 0, len(list)
	// Quickselect: narrow [lo, hi) to the part that holds position k.
	for hi-lo > 32 && lo < k && k < hi {
		// The median of three as the pivot, moved to hi-1.
		mid := lo + (hi-lo)/2
		if cmp(list[mid], list[lo]) < 0 {
			list[mid], list[lo] = list[lo], list[mid]
		}
		if cmp(list[hi-1], list[lo]) < 0 {
			list[hi-1], list[lo] = list[lo], list[hi-1]
		}
		if cmp(list[mid], list[hi-1]) < 0 {
			list[mid], list[hi-1] = list[hi-1], list[mid]
		}
		pivot := list[hi-1]
		p := lo
		for i := lo; i < hi-1; i++ {
			if cmp(list[i], pivot) < 0 {
				list[i], list[p] = list[p], list[i]
				p++
			}
		}
		list[p], list[hi-1] = list[hi-1], list[p]
		if p < k {
			lo = p + 1
		} else {
			hi = p
		}
	}
	// Everything before lo precedes everything from lo on, and position k
	// is in [lo, hi) unless lo passed it: what to sort ends at hi, or at
	// lo then.
	end := hi
	if lo >= k {
		end = lo
	}
	slices.SortFunc(list[:end], cmp)
}

// pagePost is a post as a social mapping result shows it: its URN, and
// the members of its record the result shows.
type pagePost struct {
	urn                 string
	Text                string `json:"text"`
	PostURL             string `json:"postUrl"`
	PostedDateTimestamp int64  `json:"postedDateTimestamp"`
	TotalReactionCount  int64  `json:"totalReactionCount"`
	CommentsCount       int64  `json:"commentsCount"`
}

// pagePosts reads posts by id, in one statement.
func (s *Store) pagePosts(ctx context.Context, ids []int64) (map[int64]pagePost, error) {
	out := make(map[int64]pagePost, len(ids))
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
			post pagePost
			raw  []byte
		)
		if err := rows.Scan(&id, &post.urn, &raw); err != nil {
			return nil, fmt.Errorf("posts: %w", err)
		}
		if raw != nil {
			if err := json.Unmarshal(raw, &post); err != nil {
				return nil, fmt.Errorf("decode post %s: %w", post.urn, err)
			}
		}
		out[id] = post
	}
	return out, rows.Err()
}

// postsLinkedFor are the posts (ids) that a topic with one of the keywords
// among its own linked: engaged with since (for mapping) or published
// since (for creators, whose posts need no engagement).
func (s *Store) postsLinkedFor(ctx context.Context, keywords []string, since int64, engaged bool) ([]int64, error) {
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
		recent = `m.posted_at >= $2`
	}
	rows, err = s.read.QueryContext(ctx,
		`SELECT DISTINCT m.id FROM topic_posts tp JOIN mapping_posts m ON m.urn = tp.post_urn
		  WHERE CAST(tp.topic_id AS TEXT) IN (`+s.jsonTextList(1)+`) AND `+recent,
		string(idList), since)
	if err != nil {
		return nil, fmt.Errorf("linked posts: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("linked posts: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
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

// jsonTextList is a subquery listing the strings of the JSON array argument
// $n, for IN (…).
func (s *Store) jsonTextList(n int) string {
	if s.dialect == Postgres {
		return fmt.Sprintf("SELECT jsonb_array_elements_text($%d::jsonb)", n)
	}
	return fmt.Sprintf("SELECT value FROM json_each($%d)", n)
}

// Creator is one author of a creator discovery answer.
type Creator struct {
	id              int64 // the person's
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
	posts, err := s.qualifyingPosts(ctx, q, since, true)
	if err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
	}
	byAuthor, err := s.authorsOf(ctx, posts, since)
	if err != nil {
		return nil, 0, fmt.Errorf("store: discover creators: %w", err)
	}
	if len(byAuthor) > maxCandidates {
		return nil, 0, &ErrQueryTooBroad{Engagements: int64(len(byAuthor)), Limit: maxCandidates}
	}
	// In no order: the sort by count below leaves the authors of one count
	// in any order, and those the page spans are sorted fully.
	authors := make([]int64, 0, len(byAuthor))
	for id := range byAuthor {
		authors = append(authors, id)
	}
	if !q.Filters.Empty() {
		keep, err := s.filterPeople(ctx, authors, q.Filters)
		if err != nil {
			return nil, 0, fmt.Errorf("store: discover creators: %w", err)
		}
		authors = slices.DeleteFunc(authors, func(id int64) bool { return !keep.has(id) })
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

// pageBounds are the bounds of page (from 1) of size items among n: empty
// past the end, however large the page number (no overflow).
func pageBounds(page, size, n int) (int, int) {
	if page < 1 || size < 1 || page-1 >= (n+size-1)/size {
		return n, n
	}
	lo := (page - 1) * size
	return lo, min(lo+size, n)
}

// storedPerson is a collected person with their integer id.
type storedPerson struct {
	mapping.Person
	id int64
}

// personColumns are the columns scanPerson reads.
const personColumns = `id, urn, first_name, last_name, full_name, pronet_url, avatar, country, company, company_domain, company_size,
	company_logo, industry, job_title, headline, followers`

func scanPerson(rows *sql.Rows) (storedPerson, error) {
	var (
		p         storedPerson
		headline  string
		followers sql.NullInt64
	)
	if err := rows.Scan(&p.id, &p.URN, &p.FirstName, &p.LastName, &p.FullName, &p.PronetURL, &p.Avatar, &p.Country, &p.Company,
		&p.CompanyDomain, &p.CompanySize, &p.CompanyLogo, &p.Industry, &p.JobTitle, &headline, &followers); err != nil {
		return storedPerson{}, err
	}
	if followers.Valid {
		p.Followers = &followers.Int64
	}
	if p.JobTitle == "" {
		p.JobTitle = headline // until the profile is read
	}
	return p, nil
}

// peopleByID reads the collected people of the ids.
func (s *Store) peopleByID(ctx context.Context, ids []int64) (map[int64]mapping.Person, error) {
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
		p, err := scanPerson(rows)
		if err != nil {
			return nil, fmt.Errorf("people: %w", err)
		}
		out[p.id] = p.Person
	}
	return out, rows.Err()
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
				days := float64(*v[2]-*v[3]) / float64(24*time.Hour/time.Millisecond) / float64(n-1)
				c.AvgDaysBetween = &days
			}
		}
		out[id] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("author stats: %w", err)
	}
	return out, nil
}

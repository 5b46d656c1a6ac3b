package store

import (
	"cmp"
	"context"
	"database/sql"
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

// ErrQueryTooBroad means a query leaves more engagements (authors, for
// creators) than the limit once its filters are applied.
type ErrQueryTooBroad struct {
	// Engagements the query leaves (authors, for creators): with Filtered,
	// those of the people its filters keep; with AtLeast, a lower bound,
	// as people the filters could not decide without reading them were
	// not read.
	Engagements int64
	Limit       int
	Filtered    bool
	AtLeast     bool
}

func (e *ErrQueryTooBroad) Error() string {
	return fmt.Sprintf("store: the query leaves %d engagements, more than the limit of %d", e.Engagements, e.Limit)
}

// SocialMapping answers a social mapping query over every post and
// engagement the deployment's topics collected: the people whose most
// recent qualifying engagement falls in the window, newest first, one per
// person, with the exact number of such people. A query that leaves more
// than maxCandidates qualifying engagements once its filters are applied
// is *ErrQueryTooBroad.
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
	hits, count, err := s.engagersOf(ctx, posts, since, admit)
	if err != nil {
		return nil, 0, fmt.Errorf("store: social mapping: %w", err)
	}
	defer func() { s.hitLists.put(&hits.list) }()
	kept := count.kept
	steps.Engagements, steps.Kept, steps.People, steps.PerPerson, lap = count.all, kept, len(hits.list), time.Since(lap), time.Now()
	// The limit weighs what the filters leave, so that narrowing a query
	// by them, as the 422 advises, helps. The engagements of the people
	// the folded columns pass are known already; those of the people Match
	// must decide count once their rows are read, which only happens when
	// the others fit.
	limit := int64(maxCandidates)
	if sure := kept - count.undecided; sure > limit {
		return nil, 0, &ErrQueryTooBroad{Engagements: sure, Limit: maxCandidates, Filtered: filtering, AtLeast: count.undecided > 0}
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
				drop := !admit.pass.has(h.person) && (!ok || !q.Filters.Match(p))
				if drop {
					kept -= int64(h.n)
				}
				return drop
			})
		}
	}
	if kept > limit {
		return nil, 0, &ErrQueryTooBroad{Engagements: kept, Limit: maxCandidates, Filtered: filtering}
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
	Engagements int64 // qualifying engagements in the window, whoever made them
	Kept        int64 // of those, the ones the filters leave: what the too-broad limit weighs
	People      int   // distinct people (with filters, those the folded columns let pass or cannot decide)
}

type mappingStepsKey struct{}

// WithMappingSteps returns a context whose SocialMapping calls record their
// steps in steps.
func WithMappingSteps(ctx context.Context, steps *MappingSteps) context.Context {
	return context.WithValue(ctx, mappingStepsKey{}, steps)
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

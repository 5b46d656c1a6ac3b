package mapping

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Result is one person of a social mapping answer: their most recent
// qualifying engagement and the post it was on.
type Result struct {
	Person         Person
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
	return fmt.Sprintf("mapping: the query leaves %d engagements, more than the limit of %d", e.Engagements, e.Limit)
}

// SocialMapping answers a social mapping query over every post and
// engagement the deployment's topics collected: the people whose most
// recent qualifying engagement falls in the window, newest first, one per
// person, with the exact number of such people. A query that leaves more
// than maxCandidates qualifying engagements once its filters are applied
// is *ErrQueryTooBroad.
//
// It reads what collection precomputed (internal/store/mapping_index.go):
// the keyword index finds the qualifying posts (qualifyingPosts), each
// post's packed engagements, from this process's copy, give every person's
// latest qualifying engagement in one pass (engagersOf), and the copy of
// the folded filter columns decides who may pass the filters (admission).
// Only the page's people and posts are read from the pool tables.
func (e *Engine) SocialMapping(ctx context.Context, q Query, now time.Time, maxCandidates int) ([]Result, int64, error) {
	steps, _ := ctx.Value(stepsKey{}).(*Steps)
	if steps == nil {
		steps = &Steps{}
	}
	*steps = Steps{}
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
			admit, admitErr = e.admission(ctx, q.Filters)
			steps.Filters = time.Since(start)
		}()
		defer func() { <-admitted }()
	}
	since := now.Add(-time.Duration(q.Days) * 24 * time.Hour).UnixMilli()
	posts, err := e.qualifyingPosts(ctx, q, since, false)
	if err != nil {
		return nil, 0, fmt.Errorf("mapping: social mapping: %w", err)
	}
	steps.Posts, steps.Match = len(posts), time.Since(lap)
	if len(posts) == 0 {
		return []Result{}, 0, nil
	}
	if filtering {
		if <-admitted; admitErr != nil {
			return nil, 0, fmt.Errorf("mapping: social mapping: %w", admitErr)
		}
	}
	lap = time.Now()
	hits, count, err := e.engagersOf(ctx, posts, since, admit)
	if err != nil {
		return nil, 0, fmt.Errorf("mapping: social mapping: %w", err)
	}
	defer func() { e.hitLists.put(&hits.list) }()
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
			people, err := e.pool.PeopleByID(ctx, undecided)
			if err != nil {
				return nil, 0, fmt.Errorf("mapping: social mapping: %w", err)
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
		return []Result{}, total, nil
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
	people, err := e.pool.PeopleByID(ctx, ids)
	if err != nil {
		return nil, 0, fmt.Errorf("mapping: social mapping: %w", err)
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
	shown, err := e.pool.PagePosts(ctx, postIDs)
	if err != nil {
		return nil, 0, fmt.Errorf("mapping: social mapping: %w", err)
	}
	out := make([]Result, len(page))
	for i, h := range page {
		post := shown[h.post]
		for _, p := range hits.ties[h.person] {
			if tie := shown[p]; tie.URN < post.URN {
				post = tie
			}
		}
		out[i] = Result{Person: people[h.person], EngagementType: "like", EngagedAt: time.UnixMilli(h.at).UTC(), PostURN: post.URN,
			PostText: post.Text, PostURL: post.PostURL, PostDate: time.UnixMilli(post.PostedDateTimestamp).UTC(),
			PostLikes: post.TotalReactionCount, PostComments: post.CommentsCount}
		if h.comment {
			out[i].EngagementType = "comment"
		}
	}
	return out, total, nil
}

// Steps are how long the steps of one SocialMapping call took and
// what they weighed, for benchmarks (WithSteps).
type Steps struct {
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

type stepsKey struct{}

// WithSteps returns a context whose SocialMapping calls record their
// steps in steps.
func WithSteps(ctx context.Context, steps *Steps) context.Context {
	return context.WithValue(ctx, stepsKey{}, steps)
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

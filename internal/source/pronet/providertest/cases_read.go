package providertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// readCases compare good answers with the contract client's.
func (s *suite) readCases(t *testing.T) {
	fx := s.fx
	s.caseProfilePosts(t, "profile_posts/paged", time.Time{})
	after := s.afterFixture(t)
	s.caseProfilePosts(t, "profile_posts/after", after)
	t.Run("profile_posts/after_future", func(t *testing.T) {
		p, _ := s.provider(Key)
		posts, next, err := p.ProfilePosts(t.Context(), pronet.ProfilePostsParams{Username: fx.user, After: Now().Add(time.Hour)})
		if !s.answered(t, "profile_posts/after_future", err) {
			return
		}
		if len(posts) != 0 || next != "" {
			t.Errorf("After in the future: %d posts and token %q, want none and \"\"", len(posts), next)
		}
	})
	t.Run("company_posts", func(t *testing.T) {
		p, _ := s.provider(Key)
		got, err := p.CompanyPosts(t.Context(), fx.company)
		if !s.answered(t, "company_posts", err) {
			return
		}
		want := oracle[[]pronet.Post](t)(s.oracle.CompanyPosts(t.Context(), fx.company))
		newestFirst(t, "company posts", got)
		sameList(t, "company posts", viewPosts(got), viewPosts(want))
	})

	day := pronet.SearchParams{Keywords: fx.keyword, DatePosted: pronet.DatePastDay}
	week := pronet.SearchParams{Keywords: fx.keyword, DatePosted: pronet.DatePastWeek}
	searches := []struct {
		name string
		q    pronet.SearchParams
	}{
		{"search/keywords", day},
		{"search/datePosted", week},
		{"search/sortBy", with(day, func(q *pronet.SearchParams) { q.SortBy = pronet.SortDate })},
		{"search/contentType", with(week, func(q *pronet.SearchParams) { q.ContentType = fx.content })},
		{"search/authorTitle", with(week, func(q *pronet.SearchParams) { q.AuthorTitle = fx.title })},
		{"search/mentionsMember", pronet.SearchParams{MentionsMember: []string{fx.member}, DatePosted: pronet.DatePastWeek}},
		{"search/mentionsOrganization", pronet.SearchParams{MentionsOrganization: []string{fx.org}, DatePosted: pronet.DatePastDay}},
		{"search/empty", pronet.SearchParams{Keywords: noMatch}},
	}
	for _, c := range searches {
		t.Run(c.name, func(t *testing.T) { s.caseSearch(t, c.name, c.q) })
	}

	for _, limit := range []int{0, 3} {
		name := fmt.Sprintf("comments/limit_%d", limit)
		t.Run(name, func(t *testing.T) {
			s.casePaged(t, name, limit, func(ctx context.Context, p pronet.Provider, page int) (int, []string, error) {
				cp, err := p.Comments(ctx, fx.post, page, limit)
				return cp.TotalPage, keys(viewComments(cp.Comments)), err
			})
		})
	}
	for _, limit := range []int{0, 20} {
		name := fmt.Sprintf("reactions/limit_%d", limit)
		t.Run(name, func(t *testing.T) {
			s.casePaged(t, name, limit, func(ctx context.Context, p pronet.Provider, page int) (int, []string, error) {
				rp, err := p.Reactions(ctx, fx.post, page, limit)
				return rp.TotalPage, keys(viewReactors(rp.Items)), err
			})
		})
	}
	t.Run("comments/empty", func(t *testing.T) {
		if fx.quietPost == "" {
			t.Skip("the suite's member has no post without comments")
		}
		p, _ := s.provider(Key)
		cp, err := p.Comments(t.Context(), fx.quietPost, 1, 0)
		if !s.answered(t, "comments/empty", err) {
			return
		}
		if len(cp.Comments) != 0 {
			t.Errorf("a post without comments: %d comments", len(cp.Comments))
		}
	})

	t.Run("post", func(t *testing.T) {
		p, _ := s.provider(Key)
		got, err := p.Post(t.Context(), fx.post)
		if !s.answered(t, "post", err) {
			return
		}
		want := oracle[pronet.Post](t)(s.oracle.Post(t.Context(), fx.post))
		if viewPost(got) != viewPost(want) {
			t.Errorf("post %v, the contract client reads %v", viewPost(got), viewPost(want))
		}
	})
	t.Run("profile", func(t *testing.T) {
		p, _ := s.provider(Key)
		got, err := p.Profile(t.Context(), fx.user)
		if !s.answered(t, "profile", err) {
			return
		}
		want := oracle[pronet.Profile](t)(s.oracle.Profile(t.Context(), fx.user))
		if viewProfile(got) != viewProfile(want) {
			t.Errorf("profile %+v, the contract client reads %+v", viewProfile(got), viewProfile(want))
		}
	})
	t.Run("check", func(t *testing.T) {
		p, _ := s.provider(Key)
		if err := p.Check(t.Context()); err != nil {
			t.Errorf("Check with a good key: %v", err)
		}
	})
}

func with(q pronet.SearchParams, f func(*pronet.SearchParams)) pronet.SearchParams {
	f(&q)
	return q
}

// afterFixture is the time of the user's tenth newest post, to the millisecond.
func (s *suite) afterFixture(t *testing.T) time.Time {
	posts, _ := oracle2[[]pronet.Post, string](t)(s.oracle.ProfilePosts(t.Context(), pronet.ProfilePostsParams{Username: s.fx.user}))
	if len(posts) < 11 {
		t.Fatalf("providertest: %s has %d posts", s.fx.user, len(posts))
	}
	return posts[9].PublishedAt()
}

// allProfilePosts reads every page of the user's posts (after the time, if set).
func allProfilePosts(t *testing.T, p pronet.Provider, user string, after time.Time) ([]pronet.Post, error) {
	t.Helper()
	var all []pronet.Post
	q := pronet.ProfilePostsParams{Username: user, After: after}
	for range maxPages {
		posts, next, err := p.ProfilePosts(t.Context(), q)
		if err != nil {
			return nil, err
		}
		all = append(all, posts...)
		if next == "" {
			return all, nil
		}
		if next == q.PaginationToken {
			t.Fatalf("profile posts: the same token %q twice", next)
		}
		q.PaginationToken = next
	}
	t.Fatalf("profile posts: no last page after %d pages", maxPages)
	return nil, nil
}

func (s *suite) caseProfilePosts(t *testing.T, name string, after time.Time) {
	t.Run(name, func(t *testing.T) {
		p, _ := s.provider(Key)
		got, err := allProfilePosts(t, p, s.fx.user, after)
		if !s.answered(t, name, err) {
			return
		}
		want, err := allProfilePosts(t, s.oracle, s.fx.user, after)
		oracle[[]pronet.Post](t)(want, err)
		noDuplicates(t, name, got, func(p pronet.Post) string { return p.URN })
		newestFirst(t, name, got)
		for _, p := range got {
			if !after.IsZero() && !p.PublishedAt().After(after) {
				t.Errorf("%s: post %s of %s is not after %s", name, p.URN, p.PublishedAt(), after)
			}
		}
		sameList(t, name, viewPosts(got), viewPosts(want))
	})
}

// searchAll reads pages 1, 2, … until an empty one.
func searchAll(t *testing.T, p pronet.Provider, q pronet.SearchParams) ([]pronet.Post, error) {
	t.Helper()
	var all []pronet.Post
	for page := 1; page <= maxPages; page++ {
		q.Page = page
		sp, err := p.SearchPosts(t.Context(), q)
		if err != nil {
			return nil, err
		}
		if len(sp.Items) > pronet.SearchPageSize {
			t.Errorf("search page %d has %d posts, more than %d", page, len(sp.Items), pronet.SearchPageSize)
		}
		if len(sp.Items) == 0 {
			return all, nil
		}
		all = append(all, sp.Items...)
	}
	t.Fatalf("search: no empty page after %d pages", maxPages)
	return nil, nil
}

func (s *suite) caseSearch(t *testing.T, name string, q pronet.SearchParams) {
	p, _ := s.provider(Key)
	got, err := searchAll(t, p, q)
	if !s.answered(t, name, err) {
		return
	}
	want, err := searchAll(t, s.oracle, q)
	oracle[[]pronet.Post](t)(want, err)
	if name != "search/empty" && len(want) == 0 {
		t.Fatalf("providertest: the oracle finds nothing for %+v", q)
	}
	noDuplicates(t, name, got, func(p pronet.Post) string { return p.URN })
	if q.SortBy == pronet.SortDate {
		newestFirst(t, name, got)
		sameList(t, name, viewPosts(got), viewPosts(want))
		return
	}
	sameSet(t, name, viewPosts(got), viewPosts(want), func(v postView) string { return v.URN })
}

// casePaged reads pages of limit items (0: the provider's size) until an empty page or the
// last one, and compares the items with the contract client's.
func (s *suite) casePaged(t *testing.T, name string, limit int, read func(ctx context.Context, p pronet.Provider, page int) (int, []string, error)) {
	all := func(p pronet.Provider) ([]string, error) {
		var out []string
		for page := 1; page <= maxPages; page++ {
			totalPage, items, err := read(t.Context(), p, page)
			if err != nil {
				return nil, err
			}
			if limit > 0 && len(items) > limit {
				t.Errorf("page %d has %d items, more than the limit %d", page, len(items), limit)
			}
			out = append(out, items...)
			if len(items) == 0 || totalPage > 0 && page >= totalPage {
				return out, nil
			}
		}
		t.Fatalf("no last page after %d pages", maxPages)
		return nil, nil
	}
	p, _ := s.provider(Key)
	got, err := all(p)
	if !s.answered(t, name, err) {
		return
	}
	want, err := all(s.oracle)
	oracle[[]string](t)(want, err)
	if len(want) <= max(limit, 10) {
		t.Fatalf("providertest: the fixture post has only %d items", len(want))
	}
	noDuplicates(t, name, got, func(k string) string { return k })
	sameSet(t, name, got, want, func(k string) string { return k })
}

// keys turns views into comparable strings.
func keys[T any](vs []T) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%+v", v))
	}
	return out
}

package providertest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// The projections are what every provider must carry of a record, whatever its vendor sends
// beside: the suite compares them with the contract client's over the same world.

type postView struct {
	URN                         string
	Text                        string
	Posted                      string // to the second: vendors give dates at different precisions
	Author                      string
	Reactions, Comments, Shares int
}

func (v postView) String() string {
	return fmt.Sprintf("{urn %s by %s at %s, %d/%d/%d, %.40q}", v.URN, v.Author, v.Posted, v.Reactions, v.Comments, v.Shares, v.Text)
}

func viewPost(p pronet.Post) postView {
	return postView{URN: p.URN, Text: p.Text, Posted: postedAt(p).Format(time.RFC3339), Author: p.Author.Username,
		Reactions: p.TotalReactionCount, Comments: p.CommentsCount, Shares: p.RepostsCount}
}

func postedAt(p pronet.Post) time.Time { return p.PublishedAt().Truncate(time.Second) }

func viewPosts(ps []pronet.Post) []postView {
	out := make([]postView, 0, len(ps))
	for _, p := range ps {
		out = append(out, viewPost(p))
	}
	return out
}

type commentView struct{ URN, Text, Author string }

func viewComments(cs []pronet.Comment) []commentView {
	out := make([]commentView, 0, len(cs))
	for _, c := range cs {
		out = append(out, commentView{URN: c.URN, Text: c.Text, Author: c.Author.Username})
	}
	return out
}

type reactorView struct{ Username, Type string }

func viewReactors(rs []pronet.Reactor) []reactorView {
	out := make([]reactorView, 0, len(rs))
	for _, r := range rs {
		out = append(out, reactorView{Username: r.Username, Type: r.ReactionType})
	}
	return out
}

type profileView struct {
	Username, FirstName, LastName, Headline, Title, Company string
}

func viewProfile(p pronet.Profile) profileView {
	v := profileView{Username: p.Username, FirstName: p.FirstName, LastName: p.LastName, Headline: p.Headline}
	if len(p.Position) > 0 && p.Position[0].End.IsZero() {
		v.Title, v.Company = p.Position[0].Title, p.Position[0].CompanyName
	}
	return v
}

// sameList fails t unless got equals want item for item; what names the list in the message.
func sameList[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d items, the contract client reads %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: item %d is %v, the contract client reads %v", what, i, got[i], want[i])
			return
		}
	}
}

// sameSet is sameList regardless of order, for answers whose order a vendor may choose.
func sameSet[T comparable](t *testing.T, what string, got, want []T, key func(T) string) {
	t.Helper()
	byKey := func(a, b T) int { return strings.Compare(key(a), key(b)) }
	g, w := slices.Clone(got), slices.Clone(want)
	slices.SortStableFunc(g, byKey)
	slices.SortStableFunc(w, byKey)
	sameList(t, what+" (in any order)", g, w)
}

// noDuplicates fails t when two items share a key.
func noDuplicates[T any](t *testing.T, what string, items []T, key func(T) string) {
	t.Helper()
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		k := key(it)
		if seen[k] {
			t.Errorf("%s: %s appears twice", what, k)
		}
		seen[k] = true
	}
}

// newestFirst fails t unless the posts are ordered by time, newest first.
func newestFirst(t *testing.T, what string, posts []pronet.Post) {
	t.Helper()
	for i := 1; i < len(posts); i++ {
		if postedAt(posts[i]).After(postedAt(posts[i-1])) {
			t.Errorf("%s: post %s (%s) comes after an older one (%s)", what, posts[i].URN,
				postedAt(posts[i]).Format(time.RFC3339), postedAt(posts[i-1]).Format(time.RFC3339))
			return
		}
	}
}

package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// Pronet is the part of the pronet connector collection uses.
type Pronet interface {
	SearchPosts(ctx context.Context, p pronet.SearchParams) (pronet.SearchPage, error)
	ProfilePosts(ctx context.Context, p pronet.ProfilePostsParams) ([]pronet.Post, string, error)
}

// People is what the service knows about pronet members: the people topics
// collect, with the firmographics read from their profiles.
type People interface {
	// KnownAuthors returns, by member URN, what is known of the members
	// among urns; members it knows nothing of are absent.
	KnownAuthors(ctx context.Context, urns []string) (map[string]KnownAuthor, error)
	// SeePronetAuthors records the authors of collected posts as people,
	// so that their profiles are read like those of topic engagers.
	SeePronetAuthors(ctx context.Context, authors []PronetAuthor, at time.Time) error
}

// KnownAuthor is what is known of a member.
type KnownAuthor struct {
	// JobTitle is the current title; TitleKnown is false while the member's
	// profile has not been read.
	JobTitle   string
	TitleKnown bool
	Followers  *int
}

// PronetAuthor is a member who wrote a collected post.
type PronetAuthor struct {
	URN, Username, FullName, Headline, ProfileURL, Avatar string
	// SearchID is the saved search the post is a result of: reading the
	// member's profile is paid by it when no topic links the member.
	SearchID string
}

// fetchPronet reads the posts a run of a pronet search collects, as items,
// with the newest post id and the member authors of the items.
func (c *Collector) fetchPronet(ctx context.Context, s Search, now time.Time) ([]source.Item, string, []PronetAuthor, error) {
	if c.Pronet == nil {
		return nil, "", nil, fmt.Errorf("search %s: no pronet source", s.ID)
	}
	var (
		posts []pronet.Post
		err   error
	)
	if s.Kind == KindPronetProfile {
		posts, err = c.pronetProfilePosts(ctx, s, now)
	} else {
		posts, err = c.pronetSearchPosts(ctx, s, now)
	}
	if err != nil {
		return nil, "", nil, err
	}
	known, err := c.knownAuthors(ctx, posts)
	if err != nil {
		return nil, "", nil, err
	}
	if titles := s.Definition.JobTitles; len(titles) > 0 && s.Kind == KindPronetPosts {
		posts = slices.DeleteFunc(posts, func(p pronet.Post) bool {
			a, ok := known[p.Author.URN]
			return ok && a.TitleKnown && !titleMatches(a.JobTitle, titles)
		})
	}
	// Newest first, at most max_results: what the search keeps of the run.
	slices.SortFunc(posts, func(a, b pronet.Post) int {
		if NewerID(a.URN, b.URN) {
			return -1
		}
		if NewerID(b.URN, a.URN) {
			return 1
		}
		return 0
	})
	if len(posts) > s.Definition.MaxResults {
		posts = posts[:s.Definition.MaxResults]
	}
	var (
		items   = make([]source.Item, 0, len(posts))
		newest  string
		authors []PronetAuthor
		seen    = map[string]bool{}
	)
	for _, p := range posts {
		it := p.Item(now)
		if a, ok := known[p.Author.URN]; ok && a.Followers != nil {
			it.Author.Followers = a.Followers
		}
		items = append(items, it)
		if NewerID(p.URN, newest) {
			newest = p.URN
		}
		// Members on the contract, profile URNs on the vendors: either is the person's key.
		if pronet.IsPersonURN(p.Author.URN) && !seen[p.Author.URN] {
			seen[p.Author.URN] = true
			authors = append(authors, PronetAuthor{URN: p.Author.URN, Username: p.Author.Username, FullName: it.Author.Name,
				Headline: p.Author.Headline, ProfileURL: it.Author.ProfileURL, Avatar: it.Author.Avatar, SearchID: s.ID})
		}
	}
	return items, newest, authors, nil
}

func (c *Collector) knownAuthors(ctx context.Context, posts []pronet.Post) (map[string]KnownAuthor, error) {
	if c.People == nil || len(posts) == 0 {
		return nil, nil
	}
	var urns []string
	for _, p := range posts {
		if p.Author.URN != "" && !slices.Contains(urns, p.Author.URN) {
			urns = append(urns, p.Author.URN)
		}
	}
	known, err := c.People.KnownAuthors(ctx, urns)
	if err != nil {
		return nil, fmt.Errorf("authors of pronet posts: %w", err)
	}
	return known, nil
}

// titleMatches reports whether a current title contains one of titles,
// case-insensitively.
func titleMatches(title string, titles []string) bool {
	t := strings.ToLower(title)
	for _, want := range titles {
		if strings.Contains(t, strings.ToLower(want)) {
			return true
		}
	}
	return false
}

// maxPronetPages bounds the pages one run reads per author title.
const maxPronetPages = 10

// pronetSearchPosts runs a keyword (or mention) search: one query per job
// title (the provider filters by one title at a time), each read page by
// page until max_results, the last page, or, sorted by date, the first post
// the search already has. After a first run the date window is the
// narrowest that still reaches back to the newest post collected, so a run
// asks only for what is new.
func (c *Collector) pronetSearchPosts(ctx context.Context, s Search, now time.Time) ([]pronet.Post, error) {
	d := s.Definition
	since := Since(d.TimeFrame, now)
	p := pronet.SearchParams{
		Keywords:    pronet.BooleanQuery(d.Keywords, d.KeywordsAnd, d.KeywordsNot),
		DatePosted:  d.TimeFrame,
		SortBy:      d.PronetSortBy,
		ContentType: d.ContentType,
		// Copies: the connector must not share the definition's arrays.
		MentionsMember:       slices.Clone(d.MentionsMember),
		MentionsOrganization: slices.Clone(d.MentionsOrganization),
	}
	byDate := d.PronetSortBy != pronet.SortRelevance
	if t, ok := pronet.ActivityTime(s.Watermark); ok {
		p.DatePosted = narrowestWindow(now.Sub(t), d.TimeFrame)
		if t.After(since) {
			since = t
		}
	}
	titles := d.JobTitles
	if len(titles) == 0 {
		titles = []string{""}
	}
	pages := min((d.MaxResults+pronet.SearchPageSize-1)/pronet.SearchPageSize, maxPronetPages)
	var out []pronet.Post
	seen := map[string]bool{}
	for _, title := range titles {
		p.AuthorTitle = title
		kept := 0
		for page := 1; page <= pages && kept < d.MaxResults; page++ {
			p.Page = page
			pg, err := c.Pronet.SearchPosts(ctx, p)
			if err != nil {
				return nil, err
			}
			reachedOld := false
			for _, post := range pg.Items {
				if s.Watermark != "" && !NewerID(post.URN, s.Watermark) || post.PublishedAt().Before(since) {
					// Sorted by date, everything after it is older still.
					reachedOld = reachedOld || byDate
					continue
				}
				if !seen[post.URN] {
					seen[post.URN] = true
					out = append(out, post)
					kept++
				}
			}
			if reachedOld || len(pg.Items) < pronet.SearchPageSize || (pg.TotalPage > 0 && page >= pg.TotalPage) {
				break
			}
		}
	}
	return out, nil
}

// narrowestWindow is the smallest datePosted that covers the last age and
// is no wider than the search's time frame.
func narrowestWindow(age time.Duration, timeFrame string) string {
	windows := []struct {
		name string
		d    time.Duration
	}{{pronet.DatePastDay, 24 * time.Hour}, {pronet.DatePastWeek, 7 * 24 * time.Hour}}
	for _, w := range windows {
		if w.name == timeFrame {
			return timeFrame
		}
		// A margin of an hour, for posts indexed a little after they were published.
		if age+time.Hour <= w.d {
			return w.name
		}
	}
	return timeFrame
}

// pronetProfilePosts follows a member's posts: those after the newest one
// collected (the provider's after), on the first run those of the search's
// time frame, page by page until max_results or the last page.
func (c *Collector) pronetProfilePosts(ctx context.Context, s Search, now time.Time) ([]pronet.Post, error) {
	d := s.Definition
	after := Since(cmp.Or(d.TimeFrame, DefaultTimeFrame), now)
	if t, ok := pronet.ActivityTime(s.Watermark); ok {
		after = t
	}
	p := pronet.ProfilePostsParams{Username: d.ProfileUsername, After: after}
	var out []pronet.Post
	for range maxPages {
		posts, next, err := c.Pronet.ProfilePosts(ctx, p)
		if err != nil {
			return nil, err
		}
		for _, post := range posts {
			// A provider that ignores after must not make the monitor refetch.
			if (s.Watermark == "" || NewerID(post.URN, s.Watermark)) && post.PublishedAt().After(after) {
				out = append(out, post)
			}
		}
		if len(out) >= d.MaxResults || next == "" {
			break
		}
		p.PaginationToken = next
	}
	return out, nil
}

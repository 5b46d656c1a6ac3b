package apify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/harvestapi"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// How many items one run may push per operation (its maxPosts/maxItems, and Apify's maxItems
// that caps what a pay-per-result run bills). Lists longer than a run are read in chunks: a
// chunk is one run over a range of the actor's own pages (startPage/page and scrapePages), and
// Trawl's pages are slices of a chunk's dataset.
const (
	searchRunItems       = 100 // one search chunk: two of the actor's pages of 50
	searchActorPageSize  = 50
	searchMaxChunks      = 10  // 1,000 posts, the most any Trawl search reads
	profilePostsRunItems = 100 // one profile posts chunk: five of the actor's pages of 20
	profilePostsPageSize = 20
	companyPostsRunItems = 50
	commentsRunItems     = 5000 // a run bills what it pushes, so the cap only bounds a runaway post
	reactionsRunItems    = 5000
	postsPageSize        = 50
	defaultPageLimit     = 100
)

// profileMode is the profile actor's mode without e-mail search, the enum value its input
// schema declares ($4 per 1,000 profiles).
const profileMode = "Profile details no email ($4 per 1k)"

func profileURL(username string) string {
	return "https://www.linkedin.com/in/" + username + "/"
}

func companyURL(slug string) string {
	return "https://www.linkedin.com/company/" + slug + "/"
}

func postURL(id string) string {
	return "https://www.linkedin.com/feed/update/urn:li:activity:" + id + "/"
}

// postsInput is the input of harvestapi~linkedin-profile-posts.
type postsInput struct {
	TargetURLs        []string `json:"targetUrls"`
	MaxPosts          int      `json:"maxPosts"`
	Page              int      `json:"page,omitempty"`
	ScrapePages       int      `json:"scrapePages,omitempty"`
	PostedLimitDate   string   `json:"postedLimitDate,omitempty"`
	IncludeQuotePosts bool     `json:"includeQuotePosts"`
	IncludeReposts    bool     `json:"includeReposts"`
	ScrapeReactions   bool     `json:"scrapeReactions"`
	ScrapeComments    bool     `json:"scrapeComments"`
}

// ProfilePosts implements pronet.Provider. The actor has no paging token and only a day for
// its date limit, so Trawl pages through it in chunks of 100 posts: chunk k is one run from
// the actor's page 5k+1 over 5 pages of 20 (cached by its input, so pages 2..n of a chunk read
// its dataset), back to the day of After. The token is the offset of the next post; Trawl drops
// posts at or before After and hands out pages of 50.
func (c *Client) ProfilePosts(ctx context.Context, p pronet.ProfilePostsParams) ([]pronet.Post, string, error) {
	if p.Username == "" {
		return nil, "", errors.New("apify: profile posts: empty username")
	}
	offset := max(p.Start, 0)
	if p.PaginationToken != "" {
		n, err := strconv.Atoi(p.PaginationToken)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("apify: profile %q posts: pagination token %q is not one of this provider's", p.Username, p.PaginationToken)
		}
		offset = n
	}
	const chunkPages = profilePostsRunItems / profilePostsPageSize
	chunk, within := offset/profilePostsRunItems, offset%profilePostsRunItems
	in := postsInput{TargetURLs: []string{profileURL(p.Username)}, MaxPosts: profilePostsRunItems,
		Page: chunk*chunkPages + 1, ScrapePages: chunkPages, IncludeQuotePosts: true, IncludeReposts: true}
	if !p.After.IsZero() {
		in.PostedLimitDate = p.After.UTC().Format("2006-01-02")
	}
	items, total, err := c.page(ctx, pronet.OpProfilePosts, in, profilePostsRunItems, within, postsPageSize)
	if err != nil {
		return nil, "", fmt.Errorf("apify: profile %q posts: %w", p.Username, err)
	}
	posts, err := postsOf(items)
	if err != nil {
		return nil, "", fmt.Errorf("apify: profile %q posts: %w", p.Username, err)
	}
	older := false // the page ends at or before After: the posts are newest first, so the list ends here
	if !p.After.IsZero() {
		after := p.After.UnixMilli()
		dropped := func(po pronet.Post) bool { return po.PostedDateTimestamp != 0 && po.PostedDateTimestamp <= after }
		older = len(posts) > 0 && dropped(posts[len(posts)-1])
		posts = slices.DeleteFunc(posts, dropped)
	}
	next := ""
	switch end := within + len(items); {
	case older:
	case end < total:
		next = strconv.Itoa(offset + len(items))
	case total >= profilePostsRunItems:
		next = strconv.Itoa((chunk + 1) * profilePostsRunItems) // a full chunk: the next run may find more
	}
	return posts, next, nil
}

// CompanyPosts implements pronet.Provider: the company page's latest 50 posts.
func (c *Client) CompanyPosts(ctx context.Context, companySlug string) ([]pronet.Post, error) {
	if companySlug == "" {
		return nil, errors.New("apify: company posts: empty company")
	}
	in := postsInput{TargetURLs: []string{companyURL(companySlug)}, MaxPosts: companyPostsRunItems,
		IncludeQuotePosts: true, IncludeReposts: true}
	posts, err := c.allPosts(ctx, pronet.OpCompanyPosts, in, companyPostsRunItems)
	if err != nil {
		return nil, fmt.Errorf("apify: company %q posts: %w", companySlug, err)
	}
	return posts, nil
}

// allPosts reads the whole dataset of one posts run (at most n items) as posts.
func (c *Client) allPosts(ctx context.Context, op string, input any, n int) ([]pronet.Post, error) {
	items, _, err := c.page(ctx, op, input, n, 0, n)
	if err != nil {
		return nil, err
	}
	return postsOf(items)
}

// Post implements pronet.Provider: a synchronous run of the posts actor on the post's URL.
// A run that pushes no post is source.ErrNotFound.
func (c *Client) Post(ctx context.Context, postURN string) (pronet.Post, error) {
	if postURN == "" {
		return pronet.Post{}, errors.New("apify: post: empty post urn")
	}
	in := postsInput{TargetURLs: []string{postURL(postURN)}, MaxPosts: 1, IncludeQuotePosts: true, IncludeReposts: true}
	items, err := c.runSync(ctx, pronet.OpPost, in, 1)
	if err != nil {
		return pronet.Post{}, fmt.Errorf("apify: post %s: %w", postURN, err)
	}
	raw, err := lookupItem(items, "post")
	if err != nil {
		return pronet.Post{}, fmt.Errorf("apify: post %s: %w", postURN, err)
	}
	post, err := harvestapi.PostFromItem(raw)
	if err != nil {
		return pronet.Post{}, fmt.Errorf("apify: post %s: %w", postURN, source.DecodeError(Name, http.StatusOK, err))
	}
	return post, nil
}

// Profile implements pronet.Provider: a synchronous run of the profile actor. The actor pushes
// nothing for a profile that does not exist (it pushes only what HarvestAPI billed).
func (c *Client) Profile(ctx context.Context, username string) (pronet.Profile, error) {
	if username == "" {
		return pronet.Profile{}, errors.New("apify: profile: empty username")
	}
	in := map[string]any{"publicIdentifiers": []string{username}, "profileScraperMode": profileMode}
	items, err := c.runSync(ctx, pronet.OpProfile, in, 1)
	if err != nil {
		return pronet.Profile{}, fmt.Errorf("apify: profile %q: %w", username, err)
	}
	raw, err := lookupItem(items)
	if err != nil {
		return pronet.Profile{}, fmt.Errorf("apify: profile %q: %w", username, err)
	}
	prof, err := harvestapi.ProfileFromItem(raw)
	if err != nil {
		return pronet.Profile{}, fmt.Errorf("apify: profile %q: %w", username, source.DecodeError(Name, http.StatusOK, err))
	}
	return prof, nil
}

// engagementInput is the input of the comments and reactions actors.
type engagementInput struct {
	Posts              []string `json:"posts"`
	MaxItems           int      `json:"maxItems"`
	ProfileScraperMode string   `json:"profileScraperMode"`
	ScrapeReplies      *bool    `json:"scrapeReplies,omitempty"`
}

// pageBounds turns Trawl's (page from 1, limit 1-100 or 0 for 100) into an offset and limit.
func pageBounds(page, limit int) (int, int, int) {
	if limit <= 0 {
		limit = defaultPageLimit
	}
	limit = min(limit, defaultPageLimit)
	page = max(page, 1)
	return page, (page - 1) * limit, limit
}

func totalPages(total, limit int) int { return (total + limit - 1) / limit }

// Comments implements pronet.Provider: one run reads up to 5,000 top-level comments (replies
// come inside them when the vendor gives them); pages are slices of its dataset.
func (c *Client) Comments(ctx context.Context, postURN string, page, limit int) (pronet.CommentsPage, error) {
	if postURN == "" {
		return pronet.CommentsPage{}, errors.New("apify: comments: empty post urn")
	}
	page, offset, limit := pageBounds(page, limit)
	no := false
	in := engagementInput{Posts: []string{postURL(postURN)}, MaxItems: commentsRunItems, ProfileScraperMode: "short", ScrapeReplies: &no}
	items, total, err := c.page(ctx, pronet.OpComments, in, commentsRunItems, offset, limit)
	if err != nil {
		return pronet.CommentsPage{}, fmt.Errorf("apify: post %s comments: %w", postURN, err)
	}
	out := pronet.CommentsPage{Comments: pronet.List[pronet.Comment]{}, Total: total, TotalPage: totalPages(total, limit), CurrentPage: page}
	if err := eachItem(items, func(raw json.RawMessage, kind string) error {
		if kind != "" && !strings.EqualFold(kind, "comment") {
			return nil // a reply pushed on its own
		}
		cm, err := harvestapi.CommentFromItem(raw)
		if err != nil {
			return nil // malformed: skipped
		}
		if cm.Replies == nil {
			cm.Replies = pronet.List[pronet.Comment]{}
		}
		out.Comments = append(out.Comments, cm)
		return nil
	}); err != nil {
		return pronet.CommentsPage{}, fmt.Errorf("apify: post %s comments: %w", postURN, err)
	}
	return out, nil
}

// Reactions implements pronet.Provider: one run reads up to 5,000 reactors; pages are slices of
// its dataset.
func (c *Client) Reactions(ctx context.Context, postURN string, page, limit int) (pronet.ReactionsPage, error) {
	if postURN == "" {
		return pronet.ReactionsPage{}, errors.New("apify: reactions: empty post urn")
	}
	page, offset, limit := pageBounds(page, limit)
	in := engagementInput{Posts: []string{postURL(postURN)}, MaxItems: reactionsRunItems, ProfileScraperMode: "short"}
	items, total, err := c.page(ctx, pronet.OpReactions, in, reactionsRunItems, offset, limit)
	if err != nil {
		return pronet.ReactionsPage{}, fmt.Errorf("apify: post %s reactions: %w", postURN, err)
	}
	out := pronet.ReactionsPage{Items: []pronet.Reactor{}, Total: total, TotalPage: totalPages(total, limit), CurrentPage: page}
	if err := eachItem(items, func(raw json.RawMessage, _ string) error {
		r, err := harvestapi.ReactorFromItem(raw)
		if err != nil {
			return nil
		}
		out.Items = append(out.Items, r)
		return nil
	}); err != nil {
		return pronet.ReactionsPage{}, fmt.Errorf("apify: post %s reactions: %w", postURN, err)
	}
	return out, nil
}

// searchInput is the input of harvestapi~linkedin-post-search.
type searchInput struct {
	SearchQueries      []string `json:"searchQueries"`
	MaxPosts           int      `json:"maxPosts"`
	StartPage          int      `json:"startPage,omitempty"`
	ScrapePages        int      `json:"scrapePages,omitempty"`
	PostedLimit        string   `json:"postedLimit"`
	SortBy             string   `json:"sortBy"`
	ProfileScraperMode string   `json:"profileScraperMode"`
	ScrapeReactions    bool     `json:"scrapeReactions"`
	ScrapeComments     bool     `json:"scrapeComments"`
}

// SearchPosts implements pronet.Provider. The keywords, date window and order go to the actor;
// its results are read in chunks of 100 (searchChunk), at most 10, each a run cached by its
// input. Without filters a page of 10 is a slice of the chunk that holds it; the content type
// and author title are applied by Trawl after the fetch, so a filtered page is a slice of what
// passes them in chunks 1..k. Total counts what is known, plus one while more chunks may
// follow. Mention filters and the content types an item cannot show (live videos,
// collaborative articles) are unsupported.
func (c *Client) SearchPosts(ctx context.Context, p pronet.SearchParams) (pronet.SearchPage, error) {
	if len(p.MentionsMember) > 0 || len(p.MentionsOrganization) > 0 {
		return pronet.SearchPage{}, pronet.Unsupported(Name,
			"searching by mentioned members or companies (the post search actor has no mention filter and its posts carry no member or company ids)")
	}
	if strings.TrimSpace(p.Keywords) == "" {
		return pronet.SearchPage{}, errors.New("apify: search posts: empty keywords")
	}
	in := searchInput{SearchQueries: []string{p.Keywords}, MaxPosts: searchRunItems, ProfileScraperMode: "short"}
	switch p.DatePosted {
	case pronet.DatePastDay:
		in.PostedLimit = "24h"
	case pronet.DatePastWeek:
		in.PostedLimit = "week"
	case "", pronet.DatePastMonth:
		in.PostedLimit = "month" // the contract's default window
	default:
		return pronet.SearchPage{}, fmt.Errorf("apify: search posts: datePosted %q is not past-24h, past-week or past-month", p.DatePosted)
	}
	switch p.SortBy {
	case pronet.SortDate:
		in.SortBy = "date"
	case "", pronet.SortRelevance:
		in.SortBy = "relevance"
	default:
		return pronet.SearchPage{}, fmt.Errorf("apify: search posts: sortBy %q is not date_posted or relevance", p.SortBy)
	}
	keep, err := contentFilter(p.ContentType)
	if err != nil {
		return pronet.SearchPage{}, err
	}
	title := strings.ToLower(strings.TrimSpace(p.AuthorTitle))
	page := max(p.Page, 1)
	offset, limit := (page-1)*pronet.SearchPageSize, pronet.SearchPageSize
	keeps := func(raw json.RawMessage, kind string) (pronet.Post, bool) {
		if kind != "" && !strings.EqualFold(kind, "post") || title != "" && !authorTitleMatches(raw, title) {
			return pronet.Post{}, false
		}
		post, err := harvestapi.PostFromItem(raw)
		if err != nil || keep != nil && !keep(post) {
			return pronet.Post{}, false
		}
		return post, true
	}
	var posts []pronet.Post
	total := 0
	if keep == nil && title == "" {
		// Unfiltered: the page is a slice of the one chunk that holds it.
		chunk := offset / searchRunItems
		if chunk >= searchMaxChunks {
			return emptySearch(page, offset), nil
		}
		items, n, err := c.searchChunk(ctx, in, chunk, offset%searchRunItems, limit)
		if err != nil {
			return pronet.SearchPage{}, fmt.Errorf("apify: search posts %q: %w", p.Keywords, err)
		}
		if err := eachItem(items, func(raw json.RawMessage, kind string) error {
			if post, ok := keeps(raw, kind); ok {
				posts = append(posts, post)
			}
			return nil
		}); err != nil {
			return pronet.SearchPage{}, fmt.Errorf("apify: search posts %q: %w", p.Keywords, err)
		}
		total = chunk*searchRunItems + n
		if n >= searchRunItems && chunk+1 < searchMaxChunks {
			total++ // a full chunk: the next run may find more
		}
	} else {
		// Filtered after the fetch: the page is a slice of what passes the filters in the
		// chunks read so far, each read whole, until the page is full or the results end.
		var kept []pronet.Post
		more := true
		for chunk := 0; chunk < searchMaxChunks && more && len(kept) < offset+limit; chunk++ {
			items, n, err := c.searchChunk(ctx, in, chunk, 0, searchRunItems)
			if err != nil {
				return pronet.SearchPage{}, fmt.Errorf("apify: search posts %q: %w", p.Keywords, err)
			}
			if err := eachItem(items, func(raw json.RawMessage, kind string) error {
				if post, ok := keeps(raw, kind); ok {
					kept = append(kept, post)
				}
				return nil
			}); err != nil {
				return pronet.SearchPage{}, fmt.Errorf("apify: search posts %q: %w", p.Keywords, err)
			}
			more = n >= searchRunItems && chunk+1 < searchMaxChunks
		}
		total = len(kept)
		if more {
			total++ // stopped with a full page while more chunks may follow
		}
		posts = kept[min(offset, len(kept)):min(offset+limit, len(kept))]
	}
	if posts == nil {
		posts = []pronet.Post{}
	}
	return pronet.SearchPage{Items: posts, Total: total, TotalPage: totalPages(total, limit), CurrentPage: page}, nil
}

// searchChunk reads items [offset, offset+limit) of search chunk k: one run over the actor's
// pages 2k+1 and 2k+2 (cached by its input), and how many items the chunk holds.
func (c *Client) searchChunk(ctx context.Context, in searchInput, k, offset, limit int) ([]json.RawMessage, int, error) {
	const chunkPages = searchRunItems / searchActorPageSize
	in.StartPage, in.ScrapePages = k*chunkPages+1, chunkPages
	return c.page(ctx, pronet.OpSearch, in, searchRunItems, offset, limit)
}

func emptySearch(page, offset int) pronet.SearchPage {
	return pronet.SearchPage{Items: []pronet.Post{}, Total: offset, TotalPage: totalPages(offset, pronet.SearchPageSize), CurrentPage: page}
}

// contentFilter is the test a post must pass for a content type, applied after the fetch;
// nil keeps every post.
func contentFilter(ct string) (func(pronet.Post) bool, error) {
	switch ct {
	case "", "posts":
		return nil, nil
	case "photos":
		return func(p pronet.Post) bool { return len(p.Image) > 0 }, nil
	case "videos":
		return func(p pronet.Post) bool { return len(p.Video) > 0 }, nil
	case "documents":
		return pronet.Post.HasDocument, nil
	case "liveVideos", "collaborativeArticles":
		return nil, pronet.Unsupported(Name, "searching for content type "+ct+" (the actor's posts do not show it)")
	default:
		return nil, fmt.Errorf("apify: search posts: contentType %q is not one of %s", ct, strings.Join(pronet.ContentTypes(), ", "))
	}
}

// authorTitleMatches approximates the contract's author title filter with the headline the
// item carries for its author (HarvestAPI's author.info); company pages drop out.
func authorTitleMatches(raw json.RawMessage, lowerTitle string) bool {
	var it struct {
		Author struct {
			Type string `json:"type"`
			Info string `json:"info"`
		} `json:"author"`
	}
	if json.Unmarshal(raw, &it) != nil || it.Author.Type == "company" {
		return false
	}
	return strings.Contains(strings.ToLower(it.Author.Info), lowerTitle)
}

// postsOf translates a posts dataset, skipping malformed items and the comments or reactions
// an actor may push beside its posts.
func postsOf(items []json.RawMessage) ([]pronet.Post, error) {
	posts := []pronet.Post{}
	err := eachItem(items, func(raw json.RawMessage, kind string) error {
		if kind != "" && !strings.EqualFold(kind, "post") {
			return nil
		}
		if post, err := harvestapi.PostFromItem(raw); err == nil {
			posts = append(posts, post)
		}
		return nil
	})
	return posts, err
}

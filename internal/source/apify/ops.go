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
// that caps what a pay-per-result run bills). Trawl's pages are slices of that one run, so a
// list is cut at these sizes: 10 search pages of 10, two pages of 50 profile posts, one page
// of company posts, two pages of 100 comments or reactions.
const (
	searchRunItems       = 100
	profilePostsRunItems = 100
	companyPostsRunItems = 50
	commentsRunItems     = 200
	reactionsRunItems    = 200
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
	PostedLimitDate   string   `json:"postedLimitDate,omitempty"`
	IncludeQuotePosts bool     `json:"includeQuotePosts"`
	IncludeReposts    bool     `json:"includeReposts"`
	ScrapeReactions   bool     `json:"scrapeReactions"`
	ScrapeComments    bool     `json:"scrapeComments"`
}

// ProfilePosts implements pronet.Provider. The actor has no paging token and only a day for
// its date limit: one run reads up to 100 posts back to the day of After, Trawl drops those at
// or before After and hands out pages of 50 whose token is the next offset.
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
	in := postsInput{TargetURLs: []string{profileURL(p.Username)}, MaxPosts: profilePostsRunItems,
		IncludeQuotePosts: true, IncludeReposts: true}
	if !p.After.IsZero() {
		in.PostedLimitDate = p.After.UTC().Format("2006-01-02")
	}
	posts, err := c.allPosts(ctx, OpProfilePosts, in, profilePostsRunItems)
	if err != nil {
		return nil, "", fmt.Errorf("apify: profile %q posts: %w", p.Username, err)
	}
	if !p.After.IsZero() {
		after := p.After.UnixMilli()
		posts = slices.DeleteFunc(posts, func(po pronet.Post) bool {
			return po.PostedDateTimestamp != 0 && po.PostedDateTimestamp <= after
		})
	}
	if offset >= len(posts) {
		return []pronet.Post{}, "", nil
	}
	end := min(offset+postsPageSize, len(posts))
	next := ""
	if end < len(posts) {
		next = strconv.Itoa(end)
	}
	return posts[offset:end], next, nil
}

// CompanyPosts implements pronet.Provider: the company page's latest 50 posts.
func (c *Client) CompanyPosts(ctx context.Context, companySlug string) ([]pronet.Post, error) {
	if companySlug == "" {
		return nil, errors.New("apify: company posts: empty company")
	}
	in := postsInput{TargetURLs: []string{companyURL(companySlug)}, MaxPosts: companyPostsRunItems,
		IncludeQuotePosts: true, IncludeReposts: true}
	posts, err := c.allPosts(ctx, OpCompanyPosts, in, companyPostsRunItems)
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
	items, err := c.runSync(ctx, OpPost, in, 1)
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
	items, err := c.runSync(ctx, OpProfile, in, 1)
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

// Comments implements pronet.Provider: one run reads up to 200 top-level comments (replies
// come inside them when the vendor gives them); pages are slices of its dataset.
func (c *Client) Comments(ctx context.Context, postURN string, page, limit int) (pronet.CommentsPage, error) {
	if postURN == "" {
		return pronet.CommentsPage{}, errors.New("apify: comments: empty post urn")
	}
	page, offset, limit := pageBounds(page, limit)
	no := false
	in := engagementInput{Posts: []string{postURL(postURN)}, MaxItems: commentsRunItems, ProfileScraperMode: "short", ScrapeReplies: &no}
	items, total, err := c.page(ctx, OpComments, in, commentsRunItems, offset, limit)
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

// Reactions implements pronet.Provider: one run reads up to 200 reactors; pages are slices of
// its dataset.
func (c *Client) Reactions(ctx context.Context, postURN string, page, limit int) (pronet.ReactionsPage, error) {
	if postURN == "" {
		return pronet.ReactionsPage{}, errors.New("apify: reactions: empty post urn")
	}
	page, offset, limit := pageBounds(page, limit)
	in := engagementInput{Posts: []string{postURL(postURN)}, MaxItems: reactionsRunItems, ProfileScraperMode: "short"}
	items, total, err := c.page(ctx, OpReactions, in, reactionsRunItems, offset, limit)
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
	PostedLimit        string   `json:"postedLimit"`
	SortBy             string   `json:"sortBy"`
	ProfileScraperMode string   `json:"profileScraperMode"`
	ScrapeReactions    bool     `json:"scrapeReactions"`
	ScrapeComments     bool     `json:"scrapeComments"`
}

// SearchPosts implements pronet.Provider. One run reads up to 100 posts for the keywords,
// date window and order; the content type and author title are applied by Trawl to what it
// returns, and the pages of 10 are slices of that. Mention filters and the content types an
// item cannot show (live videos, collaborative articles) are unsupported.
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
	filtered := keep != nil || title != ""
	readOffset, readLimit := offset, limit
	if filtered {
		// Filtered pages are slices of what passes the filters: read the whole run.
		readOffset, readLimit = 0, searchRunItems
	}
	items, total, err := c.page(ctx, OpSearch, in, searchRunItems, readOffset, readLimit)
	if err != nil {
		return pronet.SearchPage{}, fmt.Errorf("apify: search posts %q: %w", p.Keywords, err)
	}
	var posts []pronet.Post
	if err := eachItem(items, func(raw json.RawMessage, kind string) error {
		if kind != "" && !strings.EqualFold(kind, "post") {
			return nil
		}
		if title != "" && !authorTitleMatches(raw, title) {
			return nil
		}
		post, err := harvestapi.PostFromItem(raw)
		if err != nil || keep != nil && !keep(post) {
			return nil
		}
		posts = append(posts, post)
		return nil
	}); err != nil {
		return pronet.SearchPage{}, fmt.Errorf("apify: search posts %q: %w", p.Keywords, err)
	}
	if filtered {
		total = len(posts)
		posts = posts[min(offset, len(posts)):min(offset+limit, len(posts))]
	}
	if posts == nil {
		posts = []pronet.Post{}
	}
	return pronet.SearchPage{Items: posts, Total: total, TotalPage: totalPages(total, limit), CurrentPage: page}, nil
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

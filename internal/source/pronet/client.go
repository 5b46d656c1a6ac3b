package pronet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// SourceName prefixes this package's errors.
const SourceName = "pronet"

// Config of a Client. Zero HTTP, Sleep and Now fall back to a 30 s client, a real sleep and time.Now.
type Config struct {
	BaseURL string
	APIKey  string
	HTTP    *http.Client
	Sleep   func(context.Context, time.Duration) error
	Now     func() time.Time // only to turn a Retry-After into a reset time
}

// Client talks to a pronet provider (a real one or the sandbox).
type Client struct {
	base  string
	key   string
	retry source.Retrier
}

// New returns a Client for cfg.
func New(cfg Config) *Client {
	return &Client{base: strings.TrimRight(cfg.BaseURL, "/"), key: cfg.APIKey,
		retry: source.NewRetrier(SourceName, cfg.HTTP, cfg.Sleep, cfg.Now)}
}

// envelope is every provider answer: {success, message, data}; profile posts add a top-level
// paginationToken. Data holds a pointer to where get decodes the data, in the same pass.
type envelope struct {
	Success         *bool   `json:"success"`
	Message         string  `json:"message"`
	Data            any     `json:"data"`
	PaginationToken *string `json:"paginationToken"`
}

// get sends GET base+path?q and decodes the envelope's data into out.
func (c *Client) get(ctx context.Context, path string, q url.Values, out any) (envelope, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	resp, err := c.retry.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("x-api-key", c.key)
		req.Header.Set("Accept", "application/json")
		return req, nil
	})
	if err != nil {
		return envelope{}, err
	}
	env := envelope{Data: out} // data: null leaves out as it was (nothing found on this page)
	decodeErr := json.Unmarshal(resp.Body, &env)
	if resp.Status != http.StatusOK {
		msg := env.Message
		if decodeErr != nil || msg == "" {
			msg = http.StatusText(resp.Status)
		}
		return envelope{}, source.StatusError(SourceName, resp.Status, msg)
	}
	if decodeErr != nil {
		return envelope{}, source.DecodeError(SourceName, resp.Status, decodeErr)
	}
	if env.Success != nil && !*env.Success {
		return envelope{}, &source.UpstreamError{Source: SourceName, Status: resp.Status,
			Err: fmt.Errorf("provider reported failure: %s", env.Message)}
	}
	return env, nil
}

// ProfilePostsParams ask for one page of a member's posts.
type ProfilePostsParams struct {
	Username        string
	PaginationToken string    // from the previous page; takes precedence over Start
	Start           int       // offset of the page, when there is no token
	After           time.Time // only posts published after it; zero for all
}

// ProfilePosts returns a page of a member's posts (up to 50), newest first, and the token of
// the next page ("" on the last page). With After, the provider leaves older posts out of every
// page, so a monitor reads only what is new.
func (c *Client) ProfilePosts(ctx context.Context, p ProfilePostsParams) ([]Post, string, error) {
	if p.Username == "" {
		return nil, "", fmt.Errorf("pronet: profile posts: empty username")
	}
	q := url.Values{"username": {p.Username}}
	if p.PaginationToken != "" {
		q.Set("paginationToken", p.PaginationToken)
	}
	if p.Start > 0 {
		q.Set("start", strconv.Itoa(p.Start))
	}
	if !p.After.IsZero() {
		q.Set("after", p.After.UTC().Format(source.TimeLayout))
	}
	var raw []json.RawMessage
	env, err := c.get(ctx, "/profile/posts", q, &raw)
	if err != nil {
		return nil, "", fmt.Errorf("pronet: profile %q posts: %w", p.Username, err)
	}
	next := ""
	if env.PaginationToken != nil {
		next = *env.PaginationToken
	}
	return decodeItems[Post](raw), next, nil
}

// CompanyPosts returns a company page's recent posts (up to 50).
func (c *Client) CompanyPosts(ctx context.Context, companySlug string) ([]Post, error) {
	if companySlug == "" {
		return nil, fmt.Errorf("pronet: company posts: empty company")
	}
	var raw []json.RawMessage
	if _, err := c.get(ctx, "/company/posts", url.Values{"username": {companySlug}}, &raw); err != nil {
		return nil, fmt.Errorf("pronet: company %q posts: %w", companySlug, err)
	}
	return decodeItems[Post](raw), nil
}

// Comments returns a page (from 1) of a post's comments, pages of limit comments (1-100; 0 for
// the provider's size). postURN is the numeric post id.
func (c *Client) Comments(ctx context.Context, postURN string, page, limit int) (CommentsPage, error) {
	if postURN == "" {
		return CommentsPage{}, fmt.Errorf("pronet: comments: empty post urn")
	}
	var raw rawPage
	if _, err := c.get(ctx, "/post/comments", pageQuery("urn", postURN, page, limit), &raw); err != nil {
		return CommentsPage{}, fmt.Errorf("pronet: post %s comments: %w", postURN, err)
	}
	out := CommentsPage{Comments: decodeItems[Comment](raw.Comments), Total: raw.Total, TotalPage: raw.TotalPage,
		CurrentPage: raw.CurrentPage}
	for i := range out.Comments {
		out.Comments[i].Replies = nonNil(out.Comments[i].Replies)
		for j := range out.Comments[i].Replies {
			out.Comments[i].Replies[j].Replies = nonNil(out.Comments[i].Replies[j].Replies)
		}
	}
	return out, nil
}

// Reactions returns a page (from 1) of the people who reacted to a post, pages of limit
// reactors (1-100; 0 for the provider's size).
func (c *Client) Reactions(ctx context.Context, postURN string, page, limit int) (ReactionsPage, error) {
	if postURN == "" {
		return ReactionsPage{}, fmt.Errorf("pronet: reactions: empty post urn")
	}
	var raw rawPage
	if _, err := c.get(ctx, "/post/reactions", pageQuery("urn", postURN, page, limit), &raw); err != nil {
		return ReactionsPage{}, fmt.Errorf("pronet: post %s reactions: %w", postURN, err)
	}
	return ReactionsPage{Items: decodeItems[Reactor](raw.Items), Total: raw.Total, TotalPage: raw.TotalPage,
		CurrentPage: raw.CurrentPage}, nil
}

// Post returns one post by its numeric id: GET /post?urn=N. A 200 without a post (no urn)
// is source.ErrNotFound.
func (c *Client) Post(ctx context.Context, postURN string) (Post, error) {
	if postURN == "" {
		return Post{}, fmt.Errorf("pronet: post: empty post urn")
	}
	var out Post
	if _, err := c.get(ctx, "/post", url.Values{"urn": {postURN}}, &out); err != nil {
		return Post{}, fmt.Errorf("pronet: post %s: %w", postURN, err)
	}
	if out.URN == "" {
		return Post{}, fmt.Errorf("pronet: post %s: empty post: %w", postURN, source.ErrNotFound)
	}
	return out, nil
}

// Date filters and sort orders of SearchPosts.
const (
	DatePastDay   = "past-24h"
	DatePastWeek  = "past-week"
	DatePastMonth = "past-month"
	SortDate      = "date_posted"
	SortRelevance = "relevance"
)

// Content types of SearchPosts: posts keeps every post, the others only posts with that kind
// of attachment.
func ContentTypes() []string {
	return []string{"posts", "videos", "photos", "liveVideos", "collaborativeArticles", "documents"}
}

// SearchParams of a post search. Empty DatePosted, SortBy and ContentType leave the provider's
// defaults. Keywords may be empty only when a mention filter is given.
type SearchParams struct {
	Keywords    string
	DatePosted  string // past-24h, past-week, past-month
	SortBy      string // date_posted, relevance
	ContentType string // posts, videos, photos, liveVideos, collaborativeArticles, documents
	// AuthorTitle keeps posts whose author's current job title contains it (case-insensitive).
	AuthorTitle string
	// MentionsMember keeps posts that mention one of these members (urn:li:member:<id>).
	MentionsMember []string
	// MentionsOrganization keeps posts that mention one of these companies (numeric ids).
	MentionsOrganization []string
	Page                 int // from 1; 0 leaves the provider's default
}

// SearchPageSize is how many posts a page of SearchPosts holds.
const SearchPageSize = 10

// SearchPosts searches posts by keywords, mentions and author title.
func (c *Client) SearchPosts(ctx context.Context, p SearchParams) (SearchPage, error) {
	if strings.TrimSpace(p.Keywords) == "" && len(p.MentionsMember) == 0 && len(p.MentionsOrganization) == 0 {
		return SearchPage{}, fmt.Errorf("pronet: search posts: empty keywords and no mention filter")
	}
	switch p.DatePosted {
	case "", DatePastDay, DatePastWeek, DatePastMonth:
	default:
		return SearchPage{}, fmt.Errorf("pronet: search posts: datePosted %q is not past-24h, past-week or past-month", p.DatePosted)
	}
	switch p.SortBy {
	case "", SortDate, SortRelevance:
	default:
		return SearchPage{}, fmt.Errorf("pronet: search posts: sortBy %q is not date_posted or relevance", p.SortBy)
	}
	if p.ContentType != "" && !slices.Contains(ContentTypes(), p.ContentType) {
		return SearchPage{}, fmt.Errorf("pronet: search posts: contentType %q is not one of %s", p.ContentType, strings.Join(ContentTypes(), ", "))
	}
	for _, m := range p.MentionsMember {
		if _, err := ParseMemberURN(m); err != nil {
			return SearchPage{}, fmt.Errorf("pronet: search posts: %w", err)
		}
	}
	for _, o := range p.MentionsOrganization {
		if _, err := ParseCompanyID(o); err != nil {
			return SearchPage{}, fmt.Errorf("pronet: search posts: %w", err)
		}
	}
	q := url.Values{}
	if p.Keywords != "" {
		q.Set("keywords", p.Keywords)
	}
	if p.DatePosted != "" {
		q.Set("datePosted", p.DatePosted)
	}
	if p.SortBy != "" {
		q.Set("sortBy", p.SortBy)
	}
	if p.ContentType != "" {
		q.Set("contentType", p.ContentType)
	}
	if t := strings.TrimSpace(p.AuthorTitle); t != "" {
		q.Set("authorTitle", t)
	}
	if len(p.MentionsMember) > 0 {
		q.Set("mentionsMember", strings.Join(p.MentionsMember, ","))
	}
	if len(p.MentionsOrganization) > 0 {
		q.Set("mentionsOrganization", strings.Join(p.MentionsOrganization, ","))
	}
	if p.Page > 0 {
		q.Set("page", strconv.Itoa(p.Page))
	}
	var raw rawPage
	if _, err := c.get(ctx, "/posts/search", q, &raw); err != nil {
		return SearchPage{}, fmt.Errorf("pronet: search posts %q: %w", p.Keywords, err)
	}
	return SearchPage{Items: decodeItems[Post](raw.Items), Total: raw.Total, TotalPage: raw.TotalPage,
		CurrentPage: raw.CurrentPage}, nil
}

// Profile returns a member's profile; source.ErrNotFound when there is none.
func (c *Client) Profile(ctx context.Context, username string) (Profile, error) {
	if username == "" {
		return Profile{}, fmt.Errorf("pronet: profile: empty username")
	}
	var out Profile
	if _, err := c.get(ctx, "/profile", url.Values{"username": {username}}, &out); err != nil {
		return Profile{}, fmt.Errorf("pronet: profile %q: %w", username, err)
	}
	if out.Username == "" && out.URN == "" && out.ID == 0 {
		// A provider that answers 200 with no profile means the member does not exist.
		return Profile{}, fmt.Errorf("pronet: profile %q: empty profile: %w", username, source.ErrNotFound)
	}
	return out, nil
}

func pageQuery(key, urn string, page, limit int) url.Values {
	q := url.Values{key: {urn}}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return q
}

// rawPage is a paged answer whose items are decoded one by one (decodeItems).
type rawPage struct {
	Items       []json.RawMessage `json:"items"`
	Comments    []json.RawMessage `json:"comments"`
	Total       int               `json:"total"`
	TotalPage   int               `json:"totalPage"`
	CurrentPage int               `json:"currentPage"`
}

// decodeItems decodes a list item by item and leaves out the items that do not decode (or are
// null): one broken record, such as a proxy's HTML where an object should be, must not cost the
// rest of the page. A single object that does not decode is still an error.
func decodeItems[T any](raw []json.RawMessage) []T {
	out := make([]T, 0, len(raw))
	for _, r := range raw {
		var v T
		if string(r) == "null" || json.Unmarshal(r, &v) != nil {
			continue
		}
		out = append(out, v)
	}
	return out
}

// nonNil makes empty lists marshal as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

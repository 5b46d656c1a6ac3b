package harvestapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// postsPageSize is the size of the vendor's pages of posts when its pagination does not say.
const postsPageSize = 20

// companyPostsMax is how many posts CompanyPosts reads, as the contract's one page.
const companyPostsMax = 50

// postedLimits are the vendor's scrapePostedLimit windows, narrowest first.
var postedLimits = []struct {
	name string
	d    time.Duration
}{
	{"24h", 24 * time.Hour}, {"week", 7 * 24 * time.Hour}, {"month", 30 * 24 * time.Hour},
	{"3months", 90 * 24 * time.Hour}, {"6months", 180 * 24 * time.Hour}, {"year", 365 * 24 * time.Hour},
}

// postedLimitFor is the narrowest window that still holds every post after after (an hour of
// slack for the vendor's rounding), "" when none does.
func postedLimitFor(after, now time.Time) string {
	age := now.Sub(after) + time.Hour
	for _, l := range postedLimits {
		if age <= l.d {
			return l.name
		}
	}
	return ""
}

// ProfilePosts implements pronet.Provider with GET /linkedin/profile-posts
// ?profilePublicIdentifier=U&page=P[&paginationToken=T][&scrapePostedLimit=W]: one vendor page
// (newest first) per call. The token handed back is Trawl's own, "<page>:<vendor token>". With
// After, older posts are dropped and paging ends at the first page that reaches past After.
func (c *Client) ProfilePosts(ctx context.Context, p pronet.ProfilePostsParams) ([]pronet.Post, string, error) {
	if p.Username == "" {
		return nil, "", fmt.Errorf("harvestapi: profile posts: empty username")
	}
	page, token := 1, ""
	if p.PaginationToken != "" {
		var err error
		if page, token, err = parsePageToken(p.PaginationToken); err != nil {
			return nil, "", fmt.Errorf("harvestapi: profile %q posts: %w", p.Username, err)
		}
	} else if p.Start > 0 {
		page = p.Start/postsPageSize + 1
	}
	q := profileQuery(p.Username)
	q.Set("page", strconv.Itoa(page))
	if token != "" {
		q.Set("paginationToken", token)
	}
	if !p.After.IsZero() {
		if w := postedLimitFor(p.After, c.now()); w != "" {
			q.Set("scrapePostedLimit", w)
		}
	}
	env, err := c.get(ctx, "/linkedin/profile-posts", q)
	if err != nil {
		return nil, "", fmt.Errorf("harvestapi: profile %q posts: %w", p.Username, err)
	}
	raw := env.Elements
	c.bill(ctx, pronet.OpProfilePosts, len(raw))
	posts := postsPage(raw)
	vp := vendorPage{items: raw, pag: env.Pagination}
	more := vp.more(page, pageSize(env.Pagination, postsPageSize))
	if !p.After.IsZero() {
		// Newest first: once the oldest post of a page is at or before After, so is the rest.
		if len(posts) > 0 && !posts[len(posts)-1].PublishedAt().After(p.After) {
			more = false
		}
		posts = slices.DeleteFunc(posts, func(post pronet.Post) bool { return !post.PublishedAt().After(p.After) })
	}
	next := ""
	if more {
		next = strconv.Itoa(page+1) + ":" + vp.token()
	}
	return posts, next, nil
}

// profileQuery names a member by public identifier, or by profile id when it is an encoded
// id (ACoA…, or its urn:li:fsd_profile: URN) as reactors carry them.
func profileQuery(username string) url.Values {
	if id, ok := strings.CutPrefix(username, "urn:li:fsd_profile:"); ok {
		return url.Values{"profileId": {id}}
	}
	if isEncodedID(username) {
		return url.Values{"profileId": {username}}
	}
	return url.Values{"profilePublicIdentifier": {username}}
}

// isEncodedID reports whether s looks like LinkedIn's encoded member id (ACoAA…, 39 characters).
func isEncodedID(s string) bool {
	if !strings.HasPrefix(s, "ACoA") || len(s) < 30 || len(s) > 60 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func parsePageToken(t string) (int, string, error) {
	n, rest, _ := strings.Cut(t, ":")
	page, err := strconv.Atoi(n)
	if err != nil || page < 1 {
		return 0, "", fmt.Errorf("pagination token %q is not one this provider handed out", t)
	}
	return page, rest, nil
}

func pageSize(p *pagination, def int) int {
	if p != nil && p.PageSize > 0 {
		return int(p.PageSize)
	}
	return def
}

// CompanyPosts implements pronet.Provider with GET /linkedin/company-posts
// ?companyUniversalName=SLUG&page=P, reading pages until it has the contract's 50 posts or the
// page's posts end.
func (c *Client) CompanyPosts(ctx context.Context, companySlug string) ([]pronet.Post, error) {
	if companySlug == "" {
		return nil, fmt.Errorf("harvestapi: company posts: empty company")
	}
	var raw []json.RawMessage
	token := ""
	for page := 1; len(raw) < companyPostsMax; page++ {
		q := url.Values{"companyUniversalName": {companySlug}, "page": {strconv.Itoa(page)}}
		if token != "" {
			q.Set("paginationToken", token)
		}
		env, err := c.get(ctx, "/linkedin/company-posts", q)
		if err != nil {
			return nil, fmt.Errorf("harvestapi: company %q posts: %w", companySlug, err)
		}
		items := env.Elements
		c.bill(ctx, pronet.OpCompanyPosts, len(items))
		raw = append(raw, items...)
		vp := vendorPage{items: items, pag: env.Pagination}
		if !vp.more(page, pageSize(env.Pagination, postsPageSize)) {
			break
		}
		token = vp.token()
	}
	if len(raw) > companyPostsMax {
		raw = raw[:companyPostsMax]
	}
	return postsPage(raw), nil
}

// Post implements pronet.Provider with GET /linkedin/post?post=<id>. An answer without a post
// is source.ErrNotFound; a post that does not decode is an upstream failure.
func (c *Client) Post(ctx context.Context, postURN string) (pronet.Post, error) {
	if postURN == "" {
		return pronet.Post{}, fmt.Errorf("harvestapi: post: empty post urn")
	}
	env, err := c.get(ctx, "/linkedin/post", url.Values{"post": {postURN}})
	if err != nil {
		return pronet.Post{}, fmt.Errorf("harvestapi: post %s: %w", postURN, err)
	}
	if len(env.Element) == 0 || string(env.Element) == "null" {
		return pronet.Post{}, fmt.Errorf("harvestapi: post %s: empty answer: %w", postURN, source.ErrNotFound)
	}
	p, err := PostFromItem(env.Element)
	switch {
	case errors.Is(err, ErrNoID):
		return pronet.Post{}, fmt.Errorf("harvestapi: post %s: %w", postURN, source.ErrNotFound)
	case err != nil:
		return pronet.Post{}, fmt.Errorf("harvestapi: post %s: %w", postURN, decodeErr(err))
	}
	c.bill(ctx, pronet.OpPost, 1)
	return p, nil
}

// Contract search values and the vendor's names for them.
var (
	vendorPostedLimit = map[string]string{pronet.DatePastDay: "24h", pronet.DatePastWeek: "week", pronet.DatePastMonth: "month"}
	vendorSortBy      = map[string]string{pronet.SortDate: "date", pronet.SortRelevance: "relevance"}
	vendorContentType = map[string]string{"posts": "", "videos": "videos", "photos": "images", "liveVideos": "live_videos",
		"collaborativeArticles": "collaborative_articles", "documents": "documents"}
)

// SearchPosts implements pronet.Provider with GET /linkedin/post-search: search = keywords (the
// same boolean syntax), postedLimit, sortBy, contentType, mentioningMember, mentioningCompany
// and authorKeywords = authorTitle. Trawl's pages of 10 are cut from the vendor's pages. The
// vendor matches authorKeywords anywhere in the author; Trawl then keeps member posts whose
// headline contains the title (a company page has none, so its posts drop out, as in the
// contract).
func (c *Client) SearchPosts(ctx context.Context, p pronet.SearchParams) (pronet.SearchPage, error) {
	q, err := searchQuery(p)
	if err != nil {
		return pronet.SearchPage{}, fmt.Errorf("harvestapi: search posts: %w", err)
	}
	page := max(p.Page, 1)
	fetch := func(ctx context.Context, n int, token string) ([]json.RawMessage, *pagination, error) {
		q.Set("page", strconv.Itoa(n))
		if token != "" {
			q.Set("paginationToken", token)
		} else {
			q.Del("paginationToken")
		}
		env, err := c.get(ctx, "/linkedin/post-search", q)
		if err != nil {
			return nil, nil, err
		}
		c.bill(ctx, pronet.OpSearch, len(env.Elements))
		return env.Elements, env.Pagination, nil
	}
	raw, total, err := window(ctx, fetch, postsPageSize, (page-1)*pronet.SearchPageSize, pronet.SearchPageSize)
	if err != nil {
		return pronet.SearchPage{}, fmt.Errorf("harvestapi: search posts %q: %w", p.Keywords, err)
	}
	items := postsPage(raw)
	if title := strings.ToLower(strings.TrimSpace(p.AuthorTitle)); title != "" {
		items = slices.DeleteFunc(items, func(post pronet.Post) bool {
			if post.Company.Name != "" || post.Company.URL != "" {
				return true
			}
			h := strings.ToLower(post.Author.Headline)
			return h != "" && !strings.Contains(h, title)
		})
	}
	return pronet.SearchPage{Items: items, Total: total, TotalPage: ceilDiv(total, pronet.SearchPageSize), CurrentPage: page}, nil
}

// searchQuery checks p as the contract client does and names it in the vendor's parameters.
func searchQuery(p pronet.SearchParams) (url.Values, error) {
	if strings.TrimSpace(p.Keywords) == "" && len(p.MentionsMember) == 0 && len(p.MentionsOrganization) == 0 {
		return nil, fmt.Errorf("empty keywords and no mention filter")
	}
	q := url.Values{}
	if k := strings.TrimSpace(p.Keywords); k != "" {
		q.Set("search", k)
	}
	if p.DatePosted != "" {
		v, ok := vendorPostedLimit[p.DatePosted]
		if !ok {
			return nil, fmt.Errorf("datePosted %q is not past-24h, past-week or past-month", p.DatePosted)
		}
		q.Set("postedLimit", v)
	}
	if p.SortBy != "" {
		v, ok := vendorSortBy[p.SortBy]
		if !ok {
			return nil, fmt.Errorf("sortBy %q is not date_posted or relevance", p.SortBy)
		}
		q.Set("sortBy", v)
	}
	if p.ContentType != "" {
		v, ok := vendorContentType[p.ContentType]
		if !ok {
			return nil, fmt.Errorf("contentType %q is not one of %s", p.ContentType, strings.Join(pronet.ContentTypes(), ", "))
		}
		if v != "" {
			q.Set("contentType", v)
		}
	}
	if t := strings.TrimSpace(p.AuthorTitle); t != "" {
		q.Set("authorKeywords", t)
	}
	if len(p.MentionsMember) > 0 {
		ids := make([]string, 0, len(p.MentionsMember))
		for _, m := range p.MentionsMember {
			if id, ok := strings.CutPrefix(strings.TrimSpace(m), "urn:li:fsd_profile:"); ok && id != "" {
				ids = append(ids, id)
				continue
			}
			urn, err := pronet.ParseMemberURN(m)
			if err != nil {
				return nil, err
			}
			ids = append(ids, strings.TrimPrefix(urn, "urn:li:member:"))
		}
		q.Set("mentioningMember", strings.Join(ids, ","))
	}
	if len(p.MentionsOrganization) > 0 {
		ids := make([]string, 0, len(p.MentionsOrganization))
		for _, o := range p.MentionsOrganization {
			id, err := pronet.ParseCompanyID(o)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		q.Set("mentioningCompany", strings.Join(ids, ","))
	}
	return q, nil
}

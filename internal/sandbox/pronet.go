package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	pronetPageSize    = 50 // profile and company posts
	commentsPageSize  = 10
	reactionsPageSize = 50
	searchPageSize    = 10
	maxPageLimit      = 100 // the largest limit of a comments or reactions page
	pronetRetryAfterS = "2"
	activityURNPrefix = "urn:li:activity:"
)

func (s *Sandbox) pronetHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /profile/posts", s.pronetProfilePosts)
	mux.HandleFunc("GET /company/posts", s.pronetCompanyPosts)
	mux.HandleFunc("GET /post", s.pronetPost)
	mux.HandleFunc("GET /post/comments", s.pronetComments)
	mux.HandleFunc("GET /post/reactions", s.pronetReactions)
	mux.HandleFunc("GET /posts/search", s.pronetSearch)
	mux.HandleFunc("GET /profile", s.pronetProfile)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		pronetError(w, http.StatusNotFound, "Endpoint not found")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A key starting with "invalid" is the sandbox's wrong key, so that key checks can fail.
		if key := strings.TrimSpace(r.Header.Get("x-api-key")); key == "" || pronetInvalidKey(key) {
			pronetError(w, http.StatusUnauthorized, "Invalid or missing API key")
			return
		}
		// The parameters too, so that tests (and people building against the sandbox) see what
		// a client asked for.
		s.logger.Debug("sandbox pronet request", "path", r.URL.Path, "query", r.URL.RawQuery)
		mux.ServeHTTP(w, r)
	})
}

func pronetError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"success": false, "message": msg, "data": nil})
}

func pronetOK(w http.ResponseWriter, data any, extra map[string]any) {
	body := map[string]any{"success": true, "message": "ok", "data": data}
	for k, v := range extra {
		body[k] = v
	}
	writeJSON(w, http.StatusOK, body)
}

// pronetLookupError writes the provider's answer to a failed look-up and reports whether it did.
func pronetLookupError(w http.ResponseWriter, err error, what string) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrNotFound):
		pronetError(w, http.StatusNotFound, what+" not found")
	case errors.Is(err, ErrRateLimited):
		w.Header().Set("Retry-After", pronetRetryAfterS)
		pronetError(w, http.StatusTooManyRequests, "Too many requests")
	case errors.Is(err, ErrUpstream):
		pronetError(w, http.StatusInternalServerError, "Upstream provider failed")
	default:
		pronetError(w, http.StatusBadRequest, "Invalid "+strings.ToLower(what))
	}
	return true
}

// intParam reads a non-negative integer parameter with a default; ok is false when malformed.
func intParam(q url.Values, name string, def, minV int) (int, bool) {
	if !q.Has(name) {
		return def, true
	}
	n, err := strconv.Atoi(q.Get(name))
	if err != nil || n < minV || n > 1_000_000 {
		return 0, false
	}
	return n, true
}

func (s *Sandbox) pronetProfilePosts(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	q := r.URL.Query()
	if q.Get("username") == "" {
		pronetError(w, http.StatusBadRequest, "username is required")
		return
	}
	start, ok := intParam(q, "start", 0, 0)
	if !ok {
		pronetError(w, http.StatusBadRequest, "start must be a non-negative integer")
		return
	}
	cursor := ^uint64(0)
	if tok := q.Get("paginationToken"); tok != "" {
		t, ok := parseXToken(tok)
		if !ok {
			pronetError(w, http.StatusBadRequest, "invalid paginationToken")
			return
		}
		cursor, start = t.Cursor, 0
	}
	from := now.Add(-pronetWindow)
	if v := q.Get("after"); v != "" {
		after, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			pronetError(w, http.StatusBadRequest, "after must be an ISO 8601 date-time such as 2026-11-01T00:00:00.000Z")
			return
		}
		// Strictly after: the first millisecond that can hold a newer post.
		from = maxTime(from, after.Truncate(time.Millisecond).Add(time.Millisecond))
	}
	username, shape, ok := pronetIdent(w, q.Get("username"))
	if !ok {
		return
	}
	p, err := s.world.PersonByPronet(username)
	if pronetLookupError(w, err, "Profile") {
		return
	}
	var all []PronetPost
	for _, post := range s.world.ProfilePosts(p, from, now.Add(time.Millisecond)) {
		if post.URN < cursor {
			all = append(all, post)
		}
	}
	page := all[min(start, len(all)):min(start+pronetPageSize, len(all))]
	var token any
	if start+len(page) < len(all) && len(page) > 0 {
		token = xToken{Cursor: page[len(page)-1].URN}.String()
	}
	pronetOK(w, pronetShapeList(s.postRecords(page, now), shape, pronetSparsePost), map[string]any{"paginationToken": token})
}

func (s *Sandbox) pronetCompanyPosts(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	q := r.URL.Query()
	if q.Get("username") == "" {
		pronetError(w, http.StatusBadRequest, "username is required")
		return
	}
	start, ok := intParam(q, "start", 0, 0)
	if !ok {
		pronetError(w, http.StatusBadRequest, "start must be a non-negative integer")
		return
	}
	slug, shape, ok := pronetIdent(w, q.Get("username"))
	if !ok {
		return
	}
	c, err := s.world.Company(slug)
	if pronetLookupError(w, err, "Company") {
		return
	}
	all := s.world.CompanyPosts(c, now.Add(-pronetWindow), now.Add(time.Millisecond))
	page := all[min(start, len(all)):min(start+pronetPageSize, len(all))]
	pronetOK(w, pronetShapeList(s.postRecords(page, now), shape, pronetSparsePost), nil)
}

// postURN parses the urn parameter: digits, or urn:li:activity:digits; error-path prefixes
// apply, and malformed- or sparse- before the digits shape the answer about that post.
func (s *Sandbox) postURN(w http.ResponseWriter, q url.Values, now time.Time) (uint64, pronetShape, bool) {
	raw := strings.TrimPrefix(q.Get("urn"), activityURNPrefix)
	if raw == "" {
		pronetError(w, http.StatusBadRequest, "urn is required")
		return 0, pronetShapeNormal, false
	}
	raw, shape, ok := pronetIdent(w, raw)
	if !ok {
		return 0, pronetShapeNormal, false
	}
	if pronetLookupError(w, checkIdent(raw), "Post") {
		return 0, pronetShapeNormal, false
	}
	urn, ok := pronetIDs.parse(raw)
	if !ok {
		pronetError(w, http.StatusBadRequest, "urn must be a numeric post identifier")
		return 0, pronetShapeNormal, false
	}
	if pronetIDs.timeOf(urn).After(now) {
		pronetError(w, http.StatusNotFound, "Post not found")
		return 0, pronetShapeNormal, false
	}
	return urn, shape, true
}

func pageOf[T any](all []T, page, size int) []T {
	lo := min((page-1)*size, len(all))
	return all[lo:min(lo+size, len(all))]
}

func totalPages(n, size int) int { return (n + size - 1) / size }

// postPage reads the urn and page of a request about one post's comments or
// reactions, answering the error itself when they are wrong.
// limit (1-100) sets the page's size; without it, the page is size items.
func (s *Sandbox) postPage(w http.ResponseWriter, r *http.Request, size int) (urn uint64, shape pronetShape, page, limit int, now time.Time, ok bool) {
	now = s.now()
	q := r.URL.Query()
	if page, ok = intParam(q, "page", 1, 1); !ok {
		pronetError(w, http.StatusBadRequest, "page must be an integer >= 1")
		return 0, pronetShapeNormal, 0, 0, now, false
	}
	if limit, ok = intParam(q, "limit", size, 1); !ok || limit > maxPageLimit {
		pronetError(w, http.StatusBadRequest, "limit must be an integer from 1 to 100")
		return 0, pronetShapeNormal, 0, 0, now, false
	}
	urn, shape, ok = s.postURN(w, q, now)
	return urn, shape, page, limit, now, ok
}

func (s *Sandbox) pronetComments(w http.ResponseWriter, r *http.Request) {
	urn, shape, page, limit, now, ok := s.postPage(w, r, commentsPageSize)
	if !ok {
		return
	}
	all := s.world.Comments(urn, now)
	items := make([]any, 0, limit)
	for _, c := range pageOf(all, page, limit) {
		items = append(items, commentRecord(c, true))
	}
	pronetOK(w, map[string]any{"comments": pronetShapeList(items, shape, pronetSparseComment), "total": len(all), "totalPage": totalPages(len(all), limit),
		"currentPage": page}, nil)
}

func commentURN(c Comment) string {
	return fmt.Sprintf("urn:li:comment:(activity:%d,%d)", c.PostURN, c.ID)
}

func commentRecord(c Comment, top bool) map[string]any {
	author := map[string]any{"name": c.Person.FullName(), "urn": c.Person.PronetURN(), "username": c.Person.PronetUsername,
		"pronetUrl": c.Person.PronetURL(), "title": c.Person.Headline}
	o := map[string]any{
		"isPinned": c.Pinned, "isEdited": c.Edited, "urn": commentURN(c),
		"createdAt": c.Time.UnixMilli(), "createdAtString": c.Time.Format(xTime),
		"permalink": fmt.Sprintf("https://www.linkedin.com/feed/update/urn:li:activity:%d?commentUrn=%s", c.PostURN,
			url.QueryEscape(commentURN(c))),
		"text": c.Text, "author": author,
		"totalSocialActivityCounts": map[string]any{"numComments": len(c.Replies), "likeCount": c.Likes,
			"appreciationCount": 0, "empathyCount": 0, "InterestCount": 0, "praiseCount": 0, "funnyCount": 0,
			"maybeCount": 0, "totalReactionCount": c.Likes, "numShares": 0},
	}
	replies := make([]any, 0, len(c.Replies))
	for _, rc := range c.Replies {
		replies = append(replies, commentRecord(rc, false))
	}
	o["replies"] = replies
	if top {
		o["threadUrn"] = fmt.Sprintf("urn:li:comment:(urn:li:activity:%d,%d)", c.PostURN, c.ID)
		author["id"] = strconv.FormatInt(c.Person.PronetID, 10)
	}
	return o
}

func (s *Sandbox) pronetReactions(w http.ResponseWriter, r *http.Request) {
	urn, shape, page, limit, now, ok := s.postPage(w, r, reactionsPageSize)
	if !ok {
		return
	}
	all := s.world.Reactors(urn, now)
	items := make([]any, 0, limit)
	for _, rc := range pageOf(all, page, limit) {
		p := rc.Person
		items = append(items, map[string]any{"urn": p.PronetURN(), "username": p.PronetUsername, "fullName": p.FullName(),
			"headline": p.Headline, "profileUrl": p.PronetURL(), "profilePicture": p.Avatar(), "reactionType": rc.Type})
	}
	pronetOK(w, map[string]any{"items": pronetShapeList(items, shape, pronetSparseReactor), "total": len(all), "totalPage": totalPages(len(all), limit),
		"currentPage": page}, nil)
}

// countWord counts occurrences of term in s that start and end at word boundaries.
func countWord(s, term string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(s[i:], term)
		if j < 0 {
			return n
		}
		a, b := i+j, i+j+len(term)
		if (a == 0 || !isWordByte(s[a-1], false)) && (b == len(s) || !isWordByte(s[b], false)) {
			n++
		}
		i = a + 1
	}
}

// pronetContentTypes are the search's content filters: which posts each keeps.
var pronetContentTypes = map[string]func(PronetPost) bool{
	"":                      func(PronetPost) bool { return true },
	"posts":                 func(PronetPost) bool { return true },
	"videos":                func(p PronetPost) bool { return p.Video },
	"liveVideos":            func(p PronetPost) bool { return p.Live },
	"photos":                func(p PronetPost) bool { return len(p.Images) > 0 },
	"collaborativeArticles": func(p PronetPost) bool { return p.Link != "" },
	"documents":             func(p PronetPost) bool { return p.Document },
}

func (s *Sandbox) pronetSearch(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	q := r.URL.Query()
	f, msg := parseSearchFilters(q)
	if msg != "" {
		pronetError(w, http.StatusBadRequest, msg)
		return
	}
	kw, shape, ok := pronetKeywordFaults(w, strings.TrimSpace(q.Get("keywords")))
	if !ok {
		return
	}
	if kw == "" && len(f.members) == 0 && len(f.companies) == 0 {
		pronetError(w, http.StatusBadRequest, "keywords is required unless mentionsMember or mentionsOrganization is given")
		return
	}
	window := map[string]time.Duration{"past-24h": 24 * time.Hour, "past-week": 7 * 24 * time.Hour,
		"past-month": pronetSearchMax, "": pronetSearchMax}
	d, ok := window[q.Get("datePosted")]
	if !ok {
		pronetError(w, http.StatusBadRequest, "datePosted must be one of past-24h, past-week, past-month")
		return
	}
	sortBy := q.Get("sortBy")
	if sortBy != "" && sortBy != "date_posted" && sortBy != "relevance" {
		pronetError(w, http.StatusBadRequest, "sortBy must be one of date_posted, relevance")
		return
	}
	page, ok := intParam(q, "page", 1, 1)
	if !ok {
		pronetError(w, http.StatusBadRequest, "page must be an integer >= 1")
		return
	}
	kind, ok := pronetContentTypes[q.Get("contentType")]
	if !ok {
		pronetError(w, http.StatusBadRequest,
			"contentType must be one of posts, videos, photos, liveVideos, collaborativeArticles, documents")
		return
	}
	var m *pronetQuery
	if kw != "" {
		var err error
		if m, err = parsePronetQuery(kw); err != nil {
			pronetError(w, http.StatusBadRequest, err.Error())
			return
		}
		if pronetLookupError(w, m.fault(), "Search") {
			return
		}
	}
	hits, err := s.runVendorSearch(vendorSearch{keywords: kw, window: d, byDate: sortBy == "date_posted", kind: kind, filters: f}, now)
	if err != nil {
		pronetError(w, http.StatusBadRequest, err.Error())
		return
	}
	posts := pageOf(hits, page, searchPageSize)
	pronetOK(w, map[string]any{"items": pronetShapeList(s.postRecords(posts, now), shape, pronetSparsePost), "total": len(hits),
		"totalPage": totalPages(len(hits), searchPageSize), "currentPage": page}, nil)
}

// searchFilters are a post search's filters on who wrote a post and whom it mentions.
type searchFilters struct {
	authorTitle string          // lower case; "" keeps every author
	members     map[string]bool // member URNs
	companies   map[string]bool // numeric company ids
}

const maxMentionFilters = 20

// parseSearchFilters reads authorTitle, mentionsMember (comma-separated urn:li:member:<id>)
// and mentionsOrganization (comma-separated numeric company ids); msg says what is wrong.
func parseSearchFilters(q url.Values) (f searchFilters, msg string) {
	f.authorTitle = strings.ToLower(strings.TrimSpace(q.Get("authorTitle")))
	if len(f.authorTitle) > 200 {
		return f, "authorTitle must be at most 200 characters"
	}
	var ok bool
	if f.members, ok = idList(q.Get("mentionsMember"), func(v string) bool {
		id, found := strings.CutPrefix(v, "urn:li:member:")
		return found && isDigits(id)
	}); !ok {
		return f, fmt.Sprintf("mentionsMember must be up to %d comma-separated member URNs such as urn:li:member:123456789", maxMentionFilters)
	}
	if f.companies, ok = idList(q.Get("mentionsOrganization"), isDigits); !ok {
		return f, fmt.Sprintf("mentionsOrganization must be up to %d comma-separated numeric company ids such as 1441", maxMentionFilters)
	}
	return f, ""
}

// idList splits a comma-separated parameter; ok is false when an item is not valid or there
// are too many.
func idList(raw string, valid func(string) bool) (map[string]bool, bool) {
	if raw == "" {
		return nil, true
	}
	parts := strings.Split(raw, ",")
	if len(parts) > maxMentionFilters {
		return nil, false
	}
	out := make(map[string]bool, len(parts))
	for _, v := range parts {
		if v = strings.TrimSpace(v); !valid(v) {
			return nil, false
		}
		out[v] = true
	}
	return out, true
}

func isDigits(s string) bool {
	if s == "" || len(s) > 19 || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// keeps reports whether a post passes the filters: its author (a person, not a company page)
// holds a current title containing authorTitle, and it mentions what the mention filters ask.
func (f searchFilters) keeps(p PronetPost) bool {
	if f.authorTitle != "" && (p.Company != nil || !strings.Contains(strings.ToLower(p.Author.Title), f.authorTitle)) {
		return false
	}
	return p.Mentions(f.members, f.companies)
}

func (s *Sandbox) pronetProfile(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("username") == "" {
		pronetError(w, http.StatusBadRequest, "username is required")
		return
	}
	username, shape, ok := pronetIdent(w, q.Get("username"))
	if !ok {
		return
	}
	p, err := s.world.PersonByPronet(username)
	if pronetLookupError(w, err, "Profile") {
		return
	}
	pronetOK(w, pronetShapeObject(profileRecord(p), shape, "id", pronetSparseProfile), nil)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

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

// HarvestAPI's REST API (api.harvest-api.com, the @harvestapi/scraper SDK): GET /linkedin/…
// with an X-API-KEY header; every answer is the envelope {entityId, requestId, status, error,
// query, originalQuery, user, payments, cost} with element, or elements and pagination.
//
// Page sizes: search 50 posts, profile and company posts 20 (the actors' "page size is about
// 20 posts"), comments 20, reactions 100.
const (
	hvSearchPageSize    = 50
	hvPostsPageSize     = 20
	hvCommentsPageSize  = 20
	hvReactionsPageSize = 100
	hvMaxSearchPage     = 100 // LinkedIn's search stops at page 100; other lists page on
)

// hvCost is what a call costs at HarvestAPI (USD, the envelope's cost): the sandbox's own
// numbers, of the order of the vendor's price list.
var hvCost = map[string]float64{
	"post-search": 0.002, "profile-posts": 0.002, "company-posts": 0.002, "post": 0.002,
	"post-comments": 0.002, "post-reactions": 0.002, "profile": 0.004, "test": 0,
}

func (s *Sandbox) harvestAPIHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /linkedin/test", func(w http.ResponseWriter, r *http.Request) {
		env := s.hvEnvelope(r, http.StatusOK, nil)
		env["element"] = map[string]any{"ok": true}
		writeJSON(w, http.StatusOK, env)
	})
	mux.HandleFunc("GET /linkedin/post-search", s.hvPostSearch)
	mux.HandleFunc("GET /linkedin/profile-posts", s.hvProfilePosts)
	mux.HandleFunc("GET /linkedin/company-posts", s.hvCompanyPosts)
	mux.HandleFunc("GET /linkedin/post", s.hvPost)
	mux.HandleFunc("GET /linkedin/post-comments", s.hvComments)
	mux.HandleFunc("GET /linkedin/post-reactions", s.hvReactions)
	mux.HandleFunc("GET /linkedin/profile", s.hvProfile)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.hvError(w, r, http.StatusNotFound, "Not Found", "Endpoint not found")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimSpace(r.Header.Get("X-API-KEY"))
		if key == "" || strings.HasPrefix(strings.ToLower(key), "invalid") {
			s.hvError(w, r, http.StatusUnauthorized, "Unauthorized", "Invalid or missing API key")
			return
		}
		// As the contract's server does: tests (and people building against the sandbox) see
		// what a client asked for.
		s.logger.Debug("sandbox harvestapi request", "path", r.URL.Path, "query", r.URL.RawQuery)
		mux.ServeHTTP(w, r)
	})
}

// hvEnvelope is the answer's envelope; the query members echo the parameters as sent.
func (s *Sandbox) hvEnvelope(r *http.Request, status int, errMsg any) map[string]any {
	q := map[string]any{}
	for k, v := range r.URL.Query() {
		q[k] = strings.Join(v, ",")
	}
	op := strings.TrimPrefix(r.URL.Path, "/linkedin/")
	cost := hvCost[op]
	if status != http.StatusOK {
		cost = 0
	}
	h := hashString(hashString(s.world.seed^0xa2, r.URL.Path+"?"+r.URL.RawQuery), s.now().Format(time.RFC3339Nano))
	reqID := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", h>>32, h>>16&0xffff, h&0xfff, mix(h)>>52, mix(h)&0xffffffffffff)
	payments := []any{}
	if cost > 0 {
		payments = append(payments, op)
	}
	return map[string]any{"entityId": nil, "requestId": reqID, "status": status, "error": errMsg, "query": q,
		"originalQuery": q, "user": map[string]any{"membershipTier": "pro", "requestsConcurrency": 6},
		"payments": payments, "cost": cost}
}

// hvError writes HarvestAPI's error answer: the envelope with error and message.
func (s *Sandbox) hvError(w http.ResponseWriter, r *http.Request, status int, errText, msg string) {
	env := s.hvEnvelope(r, status, errText)
	env["message"] = msg
	writeJSON(w, status, env)
}

// hvLookupError answers a failed look-up and reports whether it did.
func (s *Sandbox) hvLookupError(w http.ResponseWriter, r *http.Request, err error, what string) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrNotFound):
		s.hvError(w, r, http.StatusNotFound, what+" not found", what+" not found")
	case errors.Is(err, ErrRateLimited):
		w.Header().Set("Retry-After", pronetRetryAfterS)
		s.hvError(w, r, http.StatusTooManyRequests, "Too many requests", "Rate limit exceeded, retry later")
	case errors.Is(err, errThrottled):
		s.hvError(w, r, http.StatusTooManyRequests, "Too many requests", "Concurrency limit exceeded")
	case errors.Is(err, ErrUpstream):
		s.hvError(w, r, http.StatusInternalServerError, "Internal Server Error", "Failed to fetch data from LinkedIn")
	default:
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", "Invalid "+strings.ToLower(what)+": "+err.Error())
	}
	return true
}

func firstParam(q url.Values, names ...string) (string, string) {
	for _, n := range names {
		if v := strings.TrimSpace(q.Get(n)); v != "" {
			return n, v
		}
	}
	return "", ""
}

// hvPaging reads page (from 1; at most maxPage when not 0) and paginationToken; the token,
// when given, wins over page. A page past the end of a list is an empty page.
func (s *Sandbox) hvPaging(w http.ResponseWriter, r *http.Request, maxPage int) (page int, tok *xToken, ok bool) {
	q := r.URL.Query()
	page, ok = intParam(q, "page", 1, 1)
	if !ok || maxPage > 0 && page > maxPage {
		msg := "page must be an integer >= 1"
		if maxPage > 0 {
			msg = fmt.Sprintf("page must be an integer from 1 to %d", maxPage)
		}
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", msg)
		return 0, nil, false
	}
	if raw := q.Get("paginationToken"); raw != "" {
		t, valid := parseXToken(raw)
		if !valid {
			s.hvError(w, r, http.StatusBadRequest, "Bad Request", "invalid paginationToken")
			return 0, nil, false
		}
		tok = &t
	}
	return page, tok, true
}

// hvList writes one page of elements with its pagination.
func (s *Sandbox) hvList(w http.ResponseWriter, r *http.Request, elements []any, page, size, total int, next string, rd render) {
	if rd.malformed && len(elements) > 0 {
		elements[0] = "<html>"
	}
	env := s.hvEnvelope(r, http.StatusOK, nil)
	var token any
	if next != "" {
		token = next
	}
	env["elements"] = elements
	env["pagination"] = map[string]any{"totalPages": totalPages(total, size), "totalElements": total, "pageNumber": page,
		"previousElements": (page - 1) * size, "pageSize": size, "paginationToken": token}
	writeJSON(w, http.StatusOK, env)
}

func (s *Sandbox) hvElement(w http.ResponseWriter, r *http.Request, id string, el map[string]any, rd render) {
	if rd.malformed {
		el["id"] = map[string]any{}
	}
	env := s.hvEnvelope(r, http.StatusOK, nil)
	env["entityId"], env["element"] = id, el
	writeJSON(w, http.StatusOK, env)
}

// offsetPage is the slice of a list that page (or a token's offset) asks for, and the token
// of the page after it.
func offsetPage[T any](all []T, page, size int, tok *xToken) ([]T, string) {
	lo := (page - 1) * size
	if tok != nil {
		lo = int(tok.Offset)
	}
	lo = min(lo, len(all))
	hi := min(lo+size, len(all))
	next := ""
	if hi < len(all) {
		next = xToken{Offset: uint32(hi)}.String()
	}
	return all[lo:hi], next
}

func (s *Sandbox) hvPostSearch(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	q := r.URL.Query()
	page, tok, ok := s.hvPaging(w, r, hvMaxSearchPage)
	if !ok {
		return
	}
	sq := vendorSearch{}
	if sq.window, ok = vendorWindows[q.Get("postedLimit")]; !ok {
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", "postedLimit must be one of 24h, week, month")
		return
	}
	switch q.Get("sortBy") {
	case "", "relevance":
	case "date":
		sq.byDate = true
	default:
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", "sortBy must be one of date, relevance")
		return
	}
	if sq.kind, ok = vendorContentTypes[q.Get("contentType")]; !ok {
		s.hvError(w, r, http.StatusBadRequest, "Bad Request",
			"contentType must be one of videos, images, jobs, live_videos, documents, collaborative_articles")
		return
	}
	f, fault, err := s.world.mentionFilters(splitList(q.Get("mentioningMember")), splitList(q.Get("mentioningCompany")))
	if s.hvLookupError(w, r, err, "Mention filter") {
		return
	}
	sq.filters = f
	sq.filters.authorTitle = strings.ToLower(strings.TrimSpace(q.Get("authorKeywords")))
	kf, kw := keywordFault(q.Get("search"))
	fault = worst(fault, kf)
	if s.hvLookupError(w, r, fault.err(), "Search") {
		return
	}
	sq.keywords = kw
	if strings.TrimSpace(kw) == "" && len(f.members) == 0 && len(f.companies) == 0 {
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", "search is required unless mentioningMember or mentioningCompany is given")
		return
	}
	posts, err := s.runVendorSearch(sq, now)
	if err != nil {
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", err.Error())
		return
	}
	pagePosts, next := offsetPage(posts, page, hvSearchPageSize, tok)
	els := make([]any, 0, len(pagePosts))
	for _, p := range pagePosts {
		els = append(els, s.vendorPost(p, now, fault == faultSparse))
	}
	s.hvList(w, r, els, page, hvSearchPageSize, len(posts), next, fault.render())
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// hvAuthorPosts serves profile-posts and company-posts.
func (s *Sandbox) hvAuthorPosts(w http.ResponseWriter, r *http.Request, company bool) {
	now := s.now()
	q := r.URL.Query()
	page, tok, ok := s.hvPaging(w, r, 0)
	if !ok {
		return
	}
	limit := q.Get("scrapePostedLimit")
	if limit == "" {
		limit = q.Get("postedLimit")
	}
	window, ok := vendorPostWindows[limit]
	if !ok {
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", "scrapePostedLimit must be one of 1h, 24h, week, month, 3months, 6months, year")
		return
	}
	var (
		p     *Person
		c     *Company
		fault vendorFault
		err   error
	)
	if company {
		_, v := firstParam(q, "company", "companyUniversalName", "companyId")
		if v == "" {
			s.hvError(w, r, http.StatusBadRequest, "Bad Request", "one of company, companyId, companyUniversalName is required")
			return
		}
		var co Company
		co, fault, err = s.world.vendorCompany(v)
		c = &co
	} else {
		_, v := firstParam(q, "profile", "profilePublicIdentifier", "profileId")
		if v == "" {
			s.hvError(w, r, http.StatusBadRequest, "Bad Request", "one of profile, profileId, profilePublicIdentifier is required")
			return
		}
		var pe Person
		pe, fault, err = s.world.vendorPerson(v)
		p = &pe
	}
	if s.hvLookupError(w, r, err, map[bool]string{true: "Company", false: "Profile"}[company]) {
		return
	}
	all := s.authorPosts(p, c, window, now)
	// Newer posts push older ones down, so a token holds the last id seen, not an offset.
	lo := min((page-1)*hvPostsPageSize, len(all))
	if tok != nil {
		lo = len(all)
		for i, post := range all {
			if post.URN < tok.Cursor {
				lo = i
				break
			}
		}
	}
	pagePosts := all[lo:min(lo+hvPostsPageSize, len(all))]
	next := ""
	if lo+len(pagePosts) < len(all) && len(pagePosts) > 0 {
		next = xToken{Cursor: pagePosts[len(pagePosts)-1].URN}.String()
	}
	els := make([]any, 0, len(pagePosts))
	for _, post := range pagePosts {
		els = append(els, s.vendorPost(post, now, fault == faultSparse))
	}
	s.hvList(w, r, els, page, hvPostsPageSize, len(all), next, fault.render())
}

func (s *Sandbox) hvProfilePosts(w http.ResponseWriter, r *http.Request) {
	s.hvAuthorPosts(w, r, false)
}

func (s *Sandbox) hvCompanyPosts(w http.ResponseWriter, r *http.Request) { s.hvAuthorPosts(w, r, true) }

// hvPostParam reads the post a request is about.
func (s *Sandbox) hvPostParam(w http.ResponseWriter, r *http.Request, now time.Time) (uint64, vendorFault, bool) {
	_, v := firstParam(r.URL.Query(), "post", "targetUrl", "url")
	if v == "" {
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", "post is required")
		return 0, faultNone, false
	}
	urn, fault, err := vendorPostURN(v, now)
	if s.hvLookupError(w, r, err, "Post") {
		return 0, fault, false
	}
	return urn, fault, true
}

func (s *Sandbox) hvPost(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	urn, fault, ok := s.hvPostParam(w, r, now)
	if !ok {
		return
	}
	p, found := s.world.PronetPostByURN(urn)
	if !found {
		s.hvLookupError(w, r, ErrNotFound, "Post")
		return
	}
	s.hvElement(w, r, idString(urn), s.vendorPost(p, now, fault == faultSparse), fault.render())
}

func (s *Sandbox) hvComments(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	q := r.URL.Query()
	page, tok, ok := s.hvPaging(w, r, 0)
	if !ok {
		return
	}
	window, ok := map[string]time.Duration{"": 0, "any": 0, "24h": 24 * time.Hour, "week": 7 * 24 * time.Hour,
		"month": 30 * 24 * time.Hour}[q.Get("postedLimit")]
	if !ok {
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", "postedLimit must be one of 24h, week, month")
		return
	}
	sortBy := q.Get("sortBy")
	if sortBy != "" && sortBy != "date" && sortBy != "relevance" {
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", "sortBy must be one of date, relevance")
		return
	}
	urn, fault, ok := s.hvPostParam(w, r, now)
	if !ok {
		return
	}
	all := s.postComments(urn, window, sortBy == "date", now)
	pageItems, next := offsetPage(all, page, hvCommentsPageSize, tok)
	els := make([]any, 0, len(pageItems))
	for _, c := range pageItems {
		els = append(els, s.vendorComment(c, now, fault == faultSparse))
	}
	s.hvList(w, r, els, page, hvCommentsPageSize, len(all), next, fault.render())
}

func (s *Sandbox) hvReactions(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	page, tok, ok := s.hvPaging(w, r, 0)
	if !ok {
		return
	}
	urn, fault, ok := s.hvPostParam(w, r, now)
	if !ok {
		return
	}
	all := s.world.Reactors(urn, now)
	pageItems, next := offsetPage(all, page, hvReactionsPageSize, tok)
	els := make([]any, 0, len(pageItems))
	for _, rc := range pageItems {
		els = append(els, s.vendorReaction(urn, rc, now, fault == faultSparse))
	}
	s.hvList(w, r, els, page, hvReactionsPageSize, len(all), next, fault.render())
}

func (s *Sandbox) hvProfile(w http.ResponseWriter, r *http.Request) {
	_, v := firstParam(r.URL.Query(), "url", "publicIdentifier", "profileId", "query")
	if v == "" {
		s.hvError(w, r, http.StatusBadRequest, "Bad Request", "one of url, publicIdentifier, profileId is required")
		return
	}
	p, fault, err := s.world.vendorPerson(v)
	if s.hvLookupError(w, r, err, "Profile") {
		return
	}
	el := s.vendorProfile(p, fault == faultSparse)
	s.hvElement(w, r, el["id"].(string), el, fault.render())
}

// hvAtoi is strconv.Atoi for the actors' string-or-number inputs.
func hvAtoi(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), n == float64(int(n))
	case string:
		i, err := strconv.Atoi(n)
		return i, err == nil
	}
	return 0, false
}

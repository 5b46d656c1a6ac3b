package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/query"
)

const (
	recentWindow = 7 * 24 * time.Hour
	// archiveDefault is search/all's window when no start_time is given (X's default too).
	archiveDefault = 30 * 24 * time.Hour
	// relevancyWindow bounds how far back a relevancy-sorted search ranks posts.
	relevancyWindow = 14 * 24 * time.Hour
	// maxScanHours bounds the hour buckets one recency page scans; past it the page ends early
	// with a next_token, as X's pages sometimes do.
	maxScanHours = 7 * 24
	maxQueryLen  = 4096
)

var (
	searchParams = []string{"query", "start_time", "end_time", "since_id", "until_id", "max_results", "next_token",
		"pagination_token", "sort_order", "expansions", "tweet.fields", "media.fields", "poll.fields", "place.fields", "user.fields"}
	timelineParams = []string{"since_id", "until_id", "max_results", "pagination_token", "exclude", "start_time", "end_time",
		"expansions", "tweet.fields", "media.fields", "poll.fields", "place.fields", "user.fields"}
	userParams = []string{"expansions", "tweet.fields", "user.fields"}
)

func (s *Sandbox) microblogHandler() http.Handler {
	mux := http.NewServeMux()
	recent := xEndpoint{allowed: searchParams, minMax: 10, maxMax: 100, defMax: 10, maxQuery: maxQueryLen, recentWindow: true}
	all := xEndpoint{allowed: searchParams, minMax: 10, maxMax: 500, defMax: 10, maxQuery: maxQueryLen}
	mux.HandleFunc("GET /2/tweets/search/recent", s.xSearch(recent, recentWindow))
	mux.HandleFunc("GET /2/tweets/search/all", s.xSearch(all, archiveDefault))
	mux.HandleFunc("GET /2/users/by/username/{username}", s.xUserByUsername)
	mux.HandleFunc("GET /2/users/{id}/tweets", s.xUserTweets)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeXProblem(w, http.StatusNotFound, "Not Found Error", "Sorry, that page does not exist.")
	})
	return xAuth(mux)
}

// xAuth requires a bearer token; any non-empty one will do in the sandbox.
func xAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || strings.TrimSpace(tok) == "" {
			writeXProblem(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// queryFault applies the error-path rules to operator values and mentions of a query
// (from:error-x → 503, @ratelimited-x → 429); keywords are left alone.
func queryFault(q string) error {
	for _, f := range strings.FieldsFunc(q, func(c rune) bool { return c == ' ' || c == '(' || c == ')' || c == '"' }) {
		i := strings.LastIndexAny(f, ":@")
		if i < 0 {
			continue
		}
		if err := checkIdent(f[i+1:]); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

func (s *Sandbox) xSearch(ep xEndpoint, defWindow time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		now := s.now()
		p, errs := parseXParams(r.URL.Query(), ep, now)
		if len(errs) > 0 {
			writeXInvalid(w, errs)
			return
		}
		expr, err := query.Parse(p.query)
		if err != nil {
			msg := err.Error()
			var se *query.SyntaxError
			if errors.As(err, &se) {
				msg = fmt.Sprintf("There were errors processing your request: %s (at position %d)", se.Msg, se.Pos+1)
			}
			writeXInvalid(w, []xParamError{paramErr("query", p.query, "%s", msg)})
			return
		}
		switch err := queryFault(p.query); {
		case errors.Is(err, ErrUpstream):
			writeXUnavailable(w)
			return
		case errors.Is(err, ErrRateLimited):
			writeXRateLimited(w, now)
			return
		}
		start, end := now.Add(-defWindow), now.Add(time.Millisecond)
		if p.hasStart {
			start = p.start
		}
		if p.hasEnd {
			end = p.end
		}
		match := func(t Tweet) bool { return expr.Match(t.QueryPost()) }
		var page []Tweet
		var next *xToken
		if p.relevancy {
			page, next = s.world.relevancySearch(match, p, start, end)
		} else {
			page, next = s.world.recencySearch(match, p, start, end)
		}
		s.writeTweets(w, p, now, page, next, "next_token")
	}
}

// inRange applies the id filters of a request.
func (p xParams) inRange(id uint64) bool {
	return id > p.sinceID && (p.untilID == 0 || id < p.untilID)
}

// recencySearch walks the public stream newest first and stops once a page is full.
func (w *World) recencySearch(match func(Tweet) bool, p xParams, start, end time.Time) ([]Tweet, *xToken) {
	cursor := ^uint64(0)
	if p.token != nil && !p.token.Relevancy {
		cursor = p.token.Cursor
	}
	var out []Tweet
	last := (end.UnixMilli() - 1) / hourMS
	first := start.UnixMilli() / hourMS
	for b, scanned := last, 0; b >= first; b, scanned = b-1, scanned+1 {
		if scanned == maxScanHours {
			return out, &xToken{Cursor: min(cursor, tweetIDs.atTime(time.UnixMilli((b+1)*hourMS)))}
		}
		lo, hi := tweetIDs.atTime(time.UnixMilli(b*hourMS)), tweetIDs.atTime(time.UnixMilli((b+1)*hourMS))
		if hi <= p.sinceID {
			break // older buckets are all at or below since_id
		}
		if lo >= cursor || p.untilID != 0 && lo >= p.untilID {
			continue
		}
		for _, t := range w.bucketTweets(b) {
			if t.ID >= cursor || !p.inRange(t.ID) || t.Time.Before(start) || !t.Time.Before(end) || !match(t) {
				continue
			}
			out = append(out, t)
			if len(out) > p.maxResults {
				return out[:p.maxResults], &xToken{Cursor: out[p.maxResults-1].ID}
			}
		}
	}
	return out, nil
}

// relevancyScore ranks by final engagement, which does not change with time, so pages are stable.
func relevancyScore(t Tweet) int {
	s := t.Final.Likes + 2*t.Final.Retweets + 3*t.Final.Quotes
	if t.Author.Verified {
		s += 25
	}
	return s
}

func (w *World) relevancySearch(match func(Tweet) bool, p xParams, start, end time.Time) ([]Tweet, *xToken) {
	cutoff := tweetIDs.atTime(end) - 1
	var offset int
	if p.token != nil && p.token.Relevancy {
		cutoff, offset = p.token.Cursor, int(p.token.Offset)
	}
	if end.Sub(start) > relevancyWindow {
		start = end.Add(-relevancyWindow)
	}
	var all []Tweet
	for b := (end.UnixMilli() - 1) / hourMS; b >= start.UnixMilli()/hourMS; b-- {
		for _, t := range w.bucketTweets(b) {
			if t.ID <= cutoff && p.inRange(t.ID) && !t.Time.Before(start) && t.Time.Before(end) && match(t) {
				all = append(all, t)
			}
		}
	}
	slices.SortStableFunc(all, func(a, b Tweet) int {
		if sa, sb := relevancyScore(a), relevancyScore(b); sa != sb {
			return sb - sa
		}
		return cmpDesc(a.ID, b.ID)
	})
	if offset >= len(all) {
		return nil, nil
	}
	page := all[offset:min(len(all), offset+p.maxResults)]
	if offset+len(page) < len(all) {
		return page, &xToken{Relevancy: true, Cursor: cutoff, Offset: uint32(offset + len(page))}
	}
	return page, nil
}

// writeTweets writes a page of posts with X's data, includes and meta.
func (s *Sandbox) writeTweets(w http.ResponseWriter, p xParams, now time.Time, page []Tweet, next *xToken, tokenName string) {
	if len(page) == 0 {
		meta := map[string]any{"result_count": 0}
		if next != nil { // a sparse stretch ended the scan; more may follow
			meta[tokenName] = next.String()
		}
		writeJSON(w, http.StatusOK, map[string]any{"meta": meta})
		return
	}
	x := newXRender(s.world, p, now)
	data := make([]any, len(page))
	newest, oldest := page[0].ID, page[0].ID
	for i, t := range page {
		data[i] = x.tweet(t, true)
		newest, oldest = max(newest, t.ID), min(oldest, t.ID)
	}
	meta := map[string]any{"newest_id": idString(newest), "oldest_id": idString(oldest), "result_count": len(page)}
	if next != nil {
		meta[tokenName] = next.String()
	}
	body := map[string]any{"data": data, "meta": meta}
	if inc := x.includes(); inc != nil {
		body["includes"] = inc
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Sandbox) xUserByUsername(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	username := r.PathValue("username")
	p, errs := parseXParams(r.URL.Query(), xEndpoint{allowed: userParams}, now)
	if !validSlug(username) {
		errs = append(errs, paramErr("username", username, "The `username` query parameter value [%s] does not match ^[A-Za-z0-9_]{1,15}$", username))
	}
	if len(errs) > 0 {
		writeXInvalid(w, errs)
		return
	}
	person, err := s.world.PersonByMicroblog(username)
	if s.writeXLookupError(w, err, "username", username, "Could not find user with username: ["+username+"].") {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": newXRender(s.world, p, now).user(person)})
}

// writeXLookupError writes X's answer for a failed look-up and reports whether it did.
func (s *Sandbox) writeXLookupError(w http.ResponseWriter, err error, param, value, detail string) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrNotFound):
		writeJSON(w, http.StatusOK, map[string]any{"errors": []any{xNotFound(param, value, detail)}})
	case errors.Is(err, ErrRateLimited):
		writeXRateLimited(w, s.now())
	case errors.Is(err, ErrUpstream):
		writeXUnavailable(w)
	default:
		writeXInvalid(w, []xParamError{paramErr(param, value, "The `%s` query parameter value [%s] is not valid", param, value)})
	}
	return true
}

func (s *Sandbox) xUserTweets(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	id := r.PathValue("id")
	p, errs := parseXParams(r.URL.Query(), xEndpoint{allowed: timelineParams, minMax: 5, maxMax: 100, defMax: 10}, now)
	username, ok := decodeUserID(id)
	if !ok || !validSlug(username) {
		errs = append(errs, paramErr("id", id, "The `id` query parameter value [%s] does not match ^[0-9]{1,19}$", id))
	}
	if len(errs) > 0 {
		writeXInvalid(w, errs)
		return
	}
	person, err := s.world.PersonByMicroblog(username)
	if s.writeXLookupError(w, err, "id", id, "Could not find user with id: ["+id+"].") {
		return
	}
	start, end := now.Add(-timelineWindow), now.Add(time.Millisecond)
	if p.hasStart {
		start = p.start
	}
	if p.hasEnd {
		end = p.end
	}
	// A timeline reaches back at most timelineWindow from its end (X keeps the latest 3,200).
	if end.Sub(start) > timelineWindow {
		start = end.Add(-timelineWindow)
	}
	cursor := ^uint64(0)
	if p.token != nil && !p.token.Relevancy {
		cursor = p.token.Cursor
	}
	var page []Tweet
	var next *xToken
	for _, t := range s.world.Timeline(person, start, end, now) {
		if t.ID >= cursor || !p.inRange(t.ID) || p.exclude["replies"] && t.Kind == kindReply ||
			p.exclude["retweets"] && t.Kind == kindRetweet {
			continue
		}
		if len(page) == p.maxResults {
			next = &xToken{Cursor: page[len(page)-1].ID}
			break
		}
		page = append(page, t)
	}
	s.writeTweets(w, p, now, page, next, "next_token")
}

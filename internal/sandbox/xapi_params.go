package sandbox

import (
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

var (
	xTweetFields = []string{"article", "attachments", "author_id", "card_uri", "community_id", "context_annotations",
		"conversation_id", "created_at", "display_text_range", "edit_controls", "edit_history_tweet_ids", "entities",
		"geo", "id", "in_reply_to_user_id", "lang", "media_metadata", "non_public_metrics", "note_tweet",
		"organic_metrics", "possibly_sensitive", "promoted_metrics", "public_metrics", "referenced_tweets",
		"reply_settings", "scopes", "source", "text", "withheld"}
	xUserFields = []string{"affiliation", "connection_status", "created_at", "description", "entities", "id",
		"location", "most_recent_tweet_id", "name", "parody", "pinned_tweet_id", "profile_banner_url",
		"profile_image_url", "protected", "public_metrics", "receives_your_dm", "subscription_type", "url",
		"username", "verified", "verified_type", "withheld"}
	xMediaFields = []string{"alt_text", "duration_ms", "height", "media_key", "non_public_metrics",
		"organic_metrics", "preview_image_url", "promoted_metrics", "public_metrics", "type", "url", "variants", "width"}
	xPlaceFields = []string{"contained_within", "country", "country_code", "full_name", "geo", "id", "name", "place_type"}
	xPollFields  = []string{"duration_minutes", "end_datetime", "id", "options", "voting_status"}
	xExpansions  = []string{"article.cover_media", "article.media_entities", "attachments.media_keys",
		"attachments.media_source_tweet", "attachments.poll_ids", "author_id", "edit_history_tweet_ids",
		"entities.mentions.username", "geo.place_id", "in_reply_to_user_id", "entities.note.mentions.username",
		"referenced_tweets.id", "referenced_tweets.id.attachments.media_keys", "referenced_tweets.id.author_id"}
	xUserExpansions = []string{"affiliation.user_id", "most_recent_tweet_id", "pinned_tweet_id"}
)

// xParams are the parsed query parameters of one X request.
type xParams struct {
	query      string
	start, end time.Time
	hasStart   bool
	hasEnd     bool
	sinceID    uint64
	untilID    uint64
	maxResults int
	token      *xToken
	relevancy  bool
	exclude    map[string]bool
	fields     map[string]map[string]bool // "tweet", "user", "media", "place" → requested
	expand     map[string]bool
}

// xToken is the opaque pagination position. Recency pages continue below Cursor (an exclusive
// id bound); relevancy pages rank the posts at or before Cutoff and skip Offset of them.
type xToken struct {
	Relevancy bool
	Cursor    uint64 // recency: next page has ids < Cursor; relevancy: ids <= Cursor
	Offset    uint32
}

var tokenEnc = base32.NewEncoding("0123456789abcdefghijklmnopqrstuv").WithPadding(base32.NoPadding)

func (t xToken) String() string {
	b := make([]byte, 18)
	b[0] = 1
	if t.Relevancy {
		b[1] = 1
	}
	binary.BigEndian.PutUint64(b[2:], t.Cursor)
	binary.BigEndian.PutUint32(b[10:], t.Offset)
	binary.BigEndian.PutUint32(b[14:], uint32(mix(binary.BigEndian.Uint64(b[2:10])^uint64(b[1])<<40^uint64(t.Offset))))
	return tokenEnc.EncodeToString(b)
}

func parseXToken(s string) (xToken, bool) {
	b, err := tokenEnc.DecodeString(s)
	if err != nil || len(b) != 18 || b[0] != 1 || b[1] > 1 {
		return xToken{}, false
	}
	t := xToken{Relevancy: b[1] == 1, Cursor: binary.BigEndian.Uint64(b[2:]), Offset: binary.BigEndian.Uint32(b[10:])}
	if binary.BigEndian.Uint32(b[14:]) != uint32(mix(t.Cursor^uint64(b[1])<<40^uint64(t.Offset))) {
		return xToken{}, false
	}
	return t, true
}

// xEndpoint describes what one endpoint accepts.
type xEndpoint struct {
	allowed        []string // query parameter names
	minMax, maxMax int
	defMax         int
	maxQuery       int  // 0: no query parameter
	recentWindow   bool // search/recent: start_time no older than 7 days
}

func paramErr(name, value, format string, args ...any) xParamError {
	return xParamError{Parameters: map[string][]string{name: {value}}, Message: fmt.Sprintf(format, args...)}
}

// parseXParams validates a request's query string the way X does, collecting every problem.
func parseXParams(q url.Values, ep xEndpoint, now time.Time) (xParams, []xParamError) {
	var errs []xParamError
	p := xParams{maxResults: ep.defMax, exclude: map[string]bool{}, expand: map[string]bool{},
		fields: map[string]map[string]bool{}}
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !containsString(ep.allowed, k) {
			errs = append(errs, paramErr(k, q.Get(k), "The query parameter [%s] is not one of [%s]", k, strings.Join(ep.allowed, ",")))
		}
	}
	if ep.maxQuery > 0 {
		p.query = q.Get("query")
		switch {
		case strings.TrimSpace(p.query) == "":
			errs = append(errs, paramErr("query", p.query, "The `query` query parameter can not be empty"))
		case len(p.query) > ep.maxQuery:
			errs = append(errs, paramErr("query", p.query, "There were errors processing your request: Query length exceeds %d characters", ep.maxQuery))
		}
	}
	parseTime := func(name string) (time.Time, bool) {
		v := q.Get(name)
		if v == "" {
			return time.Time{}, false
		}
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			errs = append(errs, paramErr(name, v, "Invalid '%s':'%s'. '%s' must be a valid RFC3339 date-time", name, v, name))
			return time.Time{}, false
		}
		return t.UTC(), true
	}
	p.start, p.hasStart = parseTime("start_time")
	p.end, p.hasEnd = parseTime("end_time")
	if p.hasEnd && p.end.After(now) {
		errs = append(errs, paramErr("end_time", q.Get("end_time"), "Invalid 'end_time':'%s'. 'end_time' must be a minimum of 10 seconds prior to the request time.", q.Get("end_time")))
	}
	if ep.recentWindow && p.hasStart && p.start.Before(now.Add(-7*24*time.Hour)) {
		errs = append(errs, paramErr("start_time", q.Get("start_time"), "Invalid 'start_time':'%s'. 'start_time' must be on or after %s", q.Get("start_time"), now.Add(-7*24*time.Hour).Format("2006-01-02T15:04Z")))
	}
	if p.hasStart && p.hasEnd && !p.start.Before(p.end) {
		errs = append(errs, paramErr("start_time", q.Get("start_time"), "Invalid 'start_time':'%s'. 'start_time' must be before 'end_time'", q.Get("start_time")))
	}
	parseIDParam := func(name string) uint64 {
		v := q.Get(name)
		if !q.Has(name) {
			return 0
		}
		id, ok := tweetIDs.parse(v)
		if !ok {
			errs = append(errs, paramErr(name, v, "The `%s` query parameter value [%s] does not match ^[0-9]{1,19}$", name, v))
		}
		return id
	}
	p.sinceID = parseIDParam("since_id")
	p.untilID = parseIDParam("until_id")
	if v := q.Get("max_results"); q.Has("max_results") {
		n, err := strconv.Atoi(v)
		if err != nil || n < ep.minMax || n > ep.maxMax {
			errs = append(errs, paramErr("max_results", v, "The `max_results` query parameter value [%s] is not between %d and %d", v, ep.minMax, ep.maxMax))
		} else {
			p.maxResults = n
		}
	}
	for _, name := range []string{"next_token", "pagination_token"} {
		if !q.Has(name) || !containsString(ep.allowed, name) {
			continue
		}
		t, ok := parseXToken(q.Get(name))
		if !ok {
			errs = append(errs, paramErr(name, q.Get(name), "The `%s` query parameter value [%s] is not valid", name, q.Get(name)))
			continue
		}
		p.token = &t
	}
	if v := q.Get("sort_order"); q.Has("sort_order") {
		switch v {
		case "recency":
		case "relevancy":
			p.relevancy = true
		default:
			errs = append(errs, paramErr("sort_order", v, "The `sort_order` query parameter value [%s] is not one of [recency,relevancy]", v))
		}
	}
	listParam := func(name string, allowed []string, into map[string]bool) {
		if !q.Has(name) {
			return
		}
		for _, v := range strings.Split(q.Get(name), ",") {
			if !containsString(allowed, v) {
				errs = append(errs, paramErr(name, v, "The `%s` query parameter value [%s] is not one of [%s]", name, v, strings.Join(allowed, ",")))
				continue
			}
			into[v] = true
		}
	}
	listParam("exclude", []string{"replies", "retweets"}, p.exclude)
	for _, f := range []struct {
		kind    string
		allowed []string
	}{{"tweet", xTweetFields}, {"user", xUserFields}, {"media", xMediaFields}, {"place", xPlaceFields}, {"poll", xPollFields}} {
		p.fields[f.kind] = map[string]bool{}
		listParam(f.kind+".fields", f.allowed, p.fields[f.kind])
	}
	if ep.maxQuery > 0 || containsString(ep.allowed, "exclude") {
		listParam("expansions", xExpansions, p.expand)
	} else {
		listParam("expansions", xUserExpansions, p.expand)
	}
	return p, errs
}

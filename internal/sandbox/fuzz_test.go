package sandbox

import (
	"net/url"
	"testing"
)

// FuzzHandlers throws arbitrary query strings and path parts at every endpoint: no panic, and
// no 5xx unless an error- (or ratelimited-) identifier asked for one.
func FuzzHandlers(f *testing.F) {
	for _, seed := range []string{"query=crm&max_results=10", "query=(a OR b) -is:retweet lang:en&sort_order=relevancy",
		"query=from:jane&start_time=2026-11-19T00:00:00Z&end_time=2026-11-20T00:00:00Z", "next_token=abc",
		"max_results=%zz", "username=jane-doe&start=3", "urn=7261234567890123456&page=2", "keywords=\"cold email\"",
		"profile=linkedin.com/in/jane", "profile=linkedin.com/company/acme", "website=https://www.acme.io/x", "urn=urn:li:activity:1&limit=5", "tweet.fields=public_metrics,,&expansions=author_id", "since_id=99999999999999999999"} {
		f.Add(seed, "jane_doe")
	}
	h := newTest(f, 14, testNow).Handler()
	f.Fuzz(func(t *testing.T, rawQuery, ident string) {
		id := url.PathEscape(ident)
		for _, p := range []string{"/microblog/2/tweets/search/recent", "/microblog/2/tweets/search/all",
			"/microblog/2/users/by/username/" + id, "/microblog/2/users/" + id + "/tweets", "/pronet/profile/posts",
			"/pronet/company/posts", "/pronet/post/comments", "/pronet/post/reactions", "/pronet/posts/search",
			"/pronet/profile", "/pronet/post", "/enrich/v5/person/enrich", "/enrich/v5/company/enrich"} {
			code, body := getRaw(t, h, p, rawQuery)
			if code >= 500 && queryFault(rawQuery+" :"+ident) == nil && !faultyParam(rawQuery) && checkIdent(ident) == nil {
				t.Fatalf("%s?%s: %d %s", p, rawQuery, code, body)
			}
		}
	})
}

// faultyParam reports whether any parameter value or word in it asks for an error path.
func faultyParam(raw string) bool {
	q, _ := url.ParseQuery(raw)
	for _, vs := range q {
		for _, v := range vs {
			for _, w := range splitWords(v) {
				if checkIdent(w) != nil {
					return true
				}
			}
		}
	}
	return false
}

func splitWords(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || isQuerySpace(s[i]) || s[i] == '/' || s[i] == '"' || s[i] == ':' || s[i] == '@' || s[i] == '(' || s[i] == ')' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func FuzzUserIDRoundTrip(f *testing.F) {
	for _, s := range []string{"jane_doe", "a", "missing-x", "zz9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !validSlug(s) {
			return
		}
		for i := 0; i < len(s); i++ {
			if s[i] == '.' || s[i] >= 'A' && s[i] <= 'Z' {
				return // outside the id alphabet; usernames are lower-cased before encoding
			}
		}
		if got, ok := decodeUserID(encodeUserID(s)); !ok || got != s {
			t.Fatalf("round trip %q → %q", s, got)
		}
	})
}

package sandbox

import (
	"net/url"
	"strings"
	"testing"
)

func TestMicroblogKeywordsFindPostsOverAWeek(t *testing.T) {
	h := newTest(t, 15, testNow).Handler()
	for _, kw := range []string{"CRM", "hiring", "\"cold email\"", "RevOps", "#AIAgents", "\"VP Sales\""} {
		v := getJSON(t, h, "/microblog/2/tweets/search/recent?max_results=100&query="+url.QueryEscape(kw), 200)
		if n := len(list(v["data"])); n < 10 {
			t.Errorf("%s: only %d posts in 7 days", kw, n)
		}
	}
	v := getJSON(t, h, "/microblog/2/tweets/search/recent?max_results=100&query="+url.QueryEscape(`"VP Sales" -is:retweet`)+"&expansions=author_id&user.fields=description", 200)
	byTitle := 0
	for _, u := range list(obj(v["includes"])["users"]) {
		if strings.Contains(obj(u)["description"].(string), "VP Sales") {
			byTitle++
		}
	}
	if byTitle == 0 {
		t.Error("no VP Sales among authors of posts mentioning VP Sales")
	}
}

func BenchmarkSearchRecent(b *testing.B) {
	h := newTest(b, 16, testNow).Handler()
	path := "/microblog/2/tweets/search/recent?max_results=100&query=" + url.QueryEscape("(CRM OR RevOps) -is:retweet lang:en") +
		"&tweet.fields=author_id,created_at,public_metrics,entities&expansions=author_id"
	b.ReportAllocs()
	for b.Loop() {
		if code, body := get(b, h, path); code != 200 {
			b.Fatalf("%d %s", code, body)
		}
	}
}

func BenchmarkSearchRecentRelevancy(b *testing.B) {
	h := newTest(b, 16, testNow).Handler()
	path := "/microblog/2/tweets/search/recent?max_results=100&sort_order=relevancy&query=" + url.QueryEscape("CRM OR hiring")
	for b.Loop() {
		get(b, h, path)
	}
}

func BenchmarkPronetSearch(b *testing.B) {
	h := newTest(b, 16, testNow).Handler()
	for b.Loop() {
		get(b, h, "/pronet/posts/search?keywords=CRM&datePosted=past-month")
	}
}

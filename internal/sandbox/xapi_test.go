package sandbox

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestSearchRecentShapesAndExpansions(t *testing.T) {
	h := newTest(t, 1, testNow).Handler()
	v := getJSON(t, h, "/microblog/2/tweets/search/recent?query=CRM&max_results=50&tweet.fields=author_id,created_at,public_metrics,entities,lang&expansions=author_id,attachments.media_keys&user.fields=verified,public_metrics", 200)
	data := list(v["data"])
	if len(data) == 0 {
		t.Fatal("no results for CRM")
	}
	first := obj(data[0])
	for _, k := range []string{"id", "text", "author_id", "created_at", "public_metrics", "lang", "edit_history_tweet_ids"} {
		if _, ok := first[k]; !ok {
			t.Errorf("tweet lacks %s: %v", k, first)
		}
	}
	if _, ok := first["conversation_id"]; ok {
		t.Error("conversation_id present though not asked for")
	}
	if !strings.Contains(strings.ToLower(first["text"].(string)), "crm") {
		t.Errorf("result does not mention CRM: %q", first["text"])
	}
	users := list(obj(v["includes"])["users"])
	if len(users) == 0 || obj(users[0])["username"] == nil || obj(users[0])["public_metrics"] == nil {
		t.Errorf("includes.users wrong: %v", users)
	}
	meta := obj(v["meta"])
	if meta["newest_id"] != first["id"] || int(meta["result_count"].(float64)) != len(data) {
		t.Errorf("meta wrong: %v", meta)
	}
}

func TestSearchPaginationConcatenatesToOnePage(t *testing.T) {
	h := newTest(t, 2, testNow).Handler()
	for _, sort := range []string{"recency", "relevancy"} {
		q := "/microblog/2/tweets/search/recent?query=" + url.QueryEscape("sales OR CRM") + "&sort_order=" + sort
		big := list(getJSON(t, h, q+"&max_results=100", 200)["data"])
		var paged []any
		token := ""
		for len(paged) < len(big) {
			p := q + "&max_results=10"
			if token != "" {
				p += "&next_token=" + token
			}
			v := getJSON(t, h, p, 200)
			paged = append(paged, list(v["data"])...)
			tok, _ := obj(v["meta"])["next_token"].(string)
			if tok == "" {
				break
			}
			token = tok
		}
		if len(big) < 30 {
			t.Fatalf("%s: only %d results", sort, len(big))
		}
		seen := map[any]bool{}
		for i := range big {
			id := obj(paged[i])["id"]
			if seen[id] {
				t.Fatalf("%s: id %v on two pages", sort, id)
			}
			seen[id] = true
			if id != obj(big[i])["id"] {
				t.Fatalf("%s: page concatenation differs at %d", sort, i)
			}
		}
	}
}

func TestSearchSinceIDAndTimeAppearance(t *testing.T) {
	s := newTest(t, 3, testNow)
	v := getJSON(t, s.Handler(), "/microblog/2/tweets/search/recent?query=hiring&max_results=10", 200)
	newest := obj(v["meta"])["newest_id"].(string)
	later := newTest(t, 3, testNow.Add(6*time.Hour)).Handler()
	v2 := getJSON(t, later, "/microblog/2/tweets/search/recent?query=hiring&max_results=100&since_id="+newest+"&tweet.fields=created_at", 200)
	newer := list(v2["data"])
	if len(newer) == 0 {
		t.Fatal("no new posts six hours later")
	}
	for _, d := range newer {
		ct, _ := time.Parse(time.RFC3339, obj(d)["created_at"].(string))
		if !ct.After(testNow.Add(-time.Hour)) || ct.After(testNow.Add(6*time.Hour)) {
			t.Errorf("post at %v outside the new window", ct)
		}
		if id, _ := tweetIDs.parse(obj(d)["id"].(string)); id <= mustID(t, newest) {
			t.Errorf("id %v not above since_id", id)
		}
	}
	// The later world's posts do not exist yet at testNow.
	v3 := getJSON(t, s.Handler(), "/microblog/2/tweets/search/recent?query=hiring&max_results=10&since_id="+newest, 200)
	if obj(v3["meta"])["result_count"].(float64) != 0 {
		t.Errorf("posts after newest_id exist before their time: %v", v3["meta"])
	}
}

func mustID(t *testing.T, s string) uint64 {
	id, ok := tweetIDs.parse(s)
	if !ok {
		t.Fatalf("bad id %q", s)
	}
	return id
}

func TestXErrors(t *testing.T) {
	h := newTest(t, 4, testNow).Handler()
	cases := []struct {
		path   string
		status int
		want   string
	}{
		{"/microblog/2/tweets/search/recent?query=crm&max_results=5", 400, "is not between 10 and 100"},
		{"/microblog/2/tweets/search/all?query=crm&max_results=501", 400, "is not between 10 and 500"},
		{"/microblog/2/users/1/tweets?max_results=4", 400, "is not between 5 and 100"},
		{"/microblog/2/tweets/search/recent?query=" + url.QueryEscape("(crm"), 400, "Invalid Request"},
		{"/microblog/2/tweets/search/recent?query=crm&start_time=2026-01-01T00:00:00Z", 400, "must be on or after"},
		{"/microblog/2/tweets/search/recent?query=crm&bogus=1", 400, "is not one of"},
		{"/microblog/2/tweets/search/recent?query=crm&next_token=zzz", 400, "next_token"},
		{"/microblog/2/tweets/search/recent?query=from:error-alice", 503, "Service Unavailable"},
		{"/microblog/2/users/by/username/missing-bob", 200, "Not Found Error"},
		{"/microblog/2/users/by/username/error-bob", 503, "Service Unavailable"},
		{"/microblog/2/users/by/username/ratelimited-bob", 429, "Too Many Requests"},
		{"/microblog/2/users/" + encodeUserID("missing-bob") + "/tweets", 200, "Could not find user with id"},
		{"/microblog/2/users/abc/tweets", 400, "does not match"},
	}
	for _, c := range cases {
		code, body := get(t, h, c.path)
		if code != c.status || !bytes.Contains(body, []byte(c.want)) {
			t.Errorf("GET %s: %d %s; want %d containing %q", c.path, code, body, c.status, c.want)
		}
	}
	req := "/microblog/2/tweets/search/recent?query=crm"
	rec := newRecorder(h, req, nil)
	if rec.Code != 401 || !strings.Contains(rec.Body.String(), "Unauthorized") {
		t.Errorf("no token: %d %s", rec.Code, rec.Body)
	}
}

func TestUserLookupAndTimeline(t *testing.T) {
	s := newTest(t, 5, testNow)
	h := s.Handler()
	roster := s.World().Roster()[7]
	for _, username := range []string{roster.MicroblogUsername, "jane_doe"} {
		u := obj(getJSON(t, h, "/microblog/2/users/by/username/"+username+"?user.fields=verified,public_metrics,description", 200)["data"])
		if u["username"] != username || u["description"] == nil {
			t.Fatalf("user %s: %v", username, u)
		}
		q := "/microblog/2/users/" + u["id"].(string) + "/tweets?max_results=100&tweet.fields=author_id,created_at,referenced_tweets&exclude=retweets"
		v := getJSON(t, h, q, 200)
		data := list(v["data"])
		if len(data) < 50 {
			t.Fatalf("%s: only %d posts in 30 days", username, len(data))
		}
		for _, d := range data {
			if obj(d)["author_id"] != u["id"] {
				t.Fatalf("timeline of %s holds a post by %v", username, obj(d)["author_id"])
			}
			for _, ref := range list(obj(d)["referenced_tweets"]) {
				if obj(ref)["type"] == "retweeted" {
					t.Fatal("exclude=retweets returned a retweet")
				}
			}
		}
		small := getJSON(t, h, "/microblog/2/users/"+u["id"].(string)+"/tweets?max_results=5", 200)
		tok := obj(small["meta"])["next_token"].(string)
		next := list(getJSON(t, h, "/microblog/2/users/"+u["id"].(string)+"/tweets?max_results=5&pagination_token="+tok, 200)["data"])
		if len(next) != 5 || obj(next[0])["id"] == obj(list(small["data"])[4])["id"] {
			t.Fatalf("timeline pagination broken")
		}
	}
}

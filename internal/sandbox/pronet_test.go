package sandbox

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestPronetProfilePostsAndPagination(t *testing.T) {
	s := newTest(t, 6, testNow)
	h := s.Handler()
	p := s.World().Roster()[3]
	v := getJSON(t, h, "/pronet/profile/posts?username="+p.PronetUsername, 200)
	if v["success"] != true {
		t.Fatalf("not success: %v", v)
	}
	data := list(v["data"])
	if len(data) != 50 {
		t.Fatalf("want a full page of 50, got %d", len(data))
	}
	rec := obj(data[0])
	for _, k := range []string{"text", "entityType", "postUrl", "postedAt", "postedDate", "urn", "postedDateTimestamp",
		"totalReactionCount", "likeCount", "empathyCount", "praiseCount", "appreciationCount", "InterestCount",
		"funnyCount", "commentsCount", "repostsCount", "reposted", "author", "company", "article", "video", "image",
		"document", "resharedPost"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("post record lacks %s", k)
		}
	}
	if obj(rec["author"])["username"] != p.PronetUsername {
		t.Errorf("author %v, want %s", obj(rec["author"])["username"], p.PronetUsername)
	}
	tok, _ := v["paginationToken"].(string)
	if tok == "" {
		t.Fatal("no paginationToken after a full page")
	}
	next := list(getJSON(t, h, "/pronet/profile/posts?username="+p.PronetUsername+"&paginationToken="+tok, 200)["data"])
	byStart := list(getJSON(t, h, "/pronet/profile/posts?username="+p.PronetUsername+"&start=50", 200)["data"])
	if len(next) == 0 || obj(next[0])["urn"] != obj(byStart[0])["urn"] || obj(next[0])["urn"] == rec["urn"] {
		t.Fatal("token page and start=50 page differ or overlap the first page")
	}
}

func TestPronetCompanyCommentsReactions(t *testing.T) {
	s := newTest(t, 7, testNow)
	h := s.Handler()
	c := s.World().Companies()[11]
	posts := list(getJSON(t, h, "/pronet/company/posts?username="+c.Slug, 200)["data"])
	if len(posts) == 0 {
		t.Fatal("company has no posts")
	}
	// A post about two days old still gains engagement.
	var urn string
	for _, p := range posts {
		ts := int64(obj(p)["postedDateTimestamp"].(float64))
		if age := testNow.Sub(time.UnixMilli(ts)); age > 24*time.Hour && age < 72*time.Hour && obj(p)["commentsCount"].(float64) > 0 {
			urn = obj(p)["urn"].(string)
			break
		}
	}
	if urn == "" {
		urn = obj(posts[0])["urn"].(string)
	}
	v := obj(getJSON(t, h, "/pronet/post/comments?urn="+urn, 200)["data"])
	for _, k := range []string{"comments", "total", "totalPage", "currentPage"} {
		if _, ok := v[k]; !ok {
			t.Fatalf("comments data lacks %s", k)
		}
	}
	for _, cm := range list(v["comments"]) {
		for _, k := range []string{"isPinned", "isEdited", "threadUrn", "urn", "createdAtString", "permalink", "text",
			"createdAt", "author", "totalSocialActivityCounts", "replies"} {
			if _, ok := obj(cm)[k]; !ok {
				t.Errorf("comment lacks %s", k)
			}
		}
	}
	r := obj(getJSON(t, h, "/pronet/post/reactions?urn="+urn, 200)["data"])
	if items := list(r["items"]); len(items) > 0 {
		it := obj(items[0])
		if !containsString(reactionTypes, it["reactionType"].(string)) || it["profileUrl"] == nil {
			t.Errorf("reactor wrong: %v", it)
		}
	}
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/pronet/company/posts?username=missing-co", 404}, {"/pronet/company/posts?username=error-co", 500},
		{"/pronet/profile?username=missing-x", 404}, {"/pronet/profile/posts?username=ratelimited-x", 429},
		{"/pronet/post/comments?urn=abc", 400}, {"/pronet/post/comments?urn=missing-1", 404},
		{"/pronet/post/comments?urn=" + urn + "&page=0", 400},
		{"/pronet/posts/search?keywords=crm&datePosted=yesterday", 400},
	} {
		if code, body := get(t, h, c.path); code != c.status || !bytes.Contains(body, []byte(`"success":false`)) {
			t.Errorf("GET %s: %d %s, want %d", c.path, code, body, c.status)
		}
	}
	if rec := newRecorder(h, "/pronet/profile?username=x", nil); rec.Code != 401 {
		t.Errorf("no key: %d", rec.Code)
	}
}

func TestEngagementGrowsAndEngagersOnlyAdd(t *testing.T) {
	w := NewWorld(8)
	// A post created at testNow-2h, as an urn.
	urn := pronetIDs.mint(testNow.Add(-2*time.Hour), streamPublic, 5<<8)
	t1, t2 := testNow, testNow.Add(72*time.Hour)
	var young uint64
	for k := uint64(0); k < 200; k++ { // find one with enough final engagement to show growth
		if r, c, _, _ := w.pronetFinal(urn + k); r > 50 && c > 5 {
			young = urn + k
			break
		}
	}
	if young == 0 {
		t.Fatal("no engaging post found")
	}
	r1, r2 := w.Reactors(young, t1), w.Reactors(young, t2)
	c1, c2 := w.Comments(young, t1), w.Comments(young, t2)
	if len(r2) <= len(r1) || len(c2) <= len(c1) {
		t.Fatalf("engagement did not grow: reactions %d→%d comments %d→%d", len(r1), len(r2), len(c1), len(c2))
	}
	for i := range r1 {
		if r1[i].Person.PronetUsername != r2[i].Person.PronetUsername || r1[i].Type != r2[i].Type {
			t.Fatalf("reactor %d changed over time", i)
		}
	}
	for i := range c1 {
		if c1[i].Person.PronetUsername != c2[i].Person.PronetUsername || c1[i].ID != c2[i].ID {
			t.Fatalf("commenter %d changed over time", i)
		}
	}
	tw := w.PublicTweet(testNow.UnixMilli()/hourMS-3, 0)
	tw.Final.Likes = 1000
	if a, b := tw.Metrics(tw.Time.Add(time.Hour)).Likes, tw.Metrics(tw.Time.Add(48*time.Hour)).Likes; a >= b {
		t.Errorf("likes did not grow: %d then %d", a, b)
	}
}

func TestPronetSearch(t *testing.T) {
	s := newTest(t, 9, testNow)
	h := s.Handler()
	for _, kw := range []string{"CRM", "hiring", `"cold email"`, "RevOps pipeline"} {
		v := obj(getJSON(t, h, "/pronet/posts/search?keywords="+url.QueryEscape(kw)+"&datePosted=past-week", 200)["data"])
		items := list(v["items"])
		if len(items) == 0 || v["total"].(float64) < 5 {
			t.Fatalf("%s: %v results", kw, v["total"])
		}
		q, err := parsePronetQuery(kw)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			text := strings.ToLower(obj(it)["text"].(string))
			for _, term := range q.terms {
				if !strings.Contains(text, term) {
					t.Errorf("%s: result lacks %q", kw, term)
				}
			}
		}
	}
	byDate := list(obj(getJSON(t, h, "/pronet/posts/search?keywords=CRM&sortBy=date_posted", 200)["data"])["items"])
	for i := 1; i < len(byDate); i++ {
		if obj(byDate[i-1])["postedDateTimestamp"].(float64) < obj(byDate[i])["postedDateTimestamp"].(float64) {
			t.Fatal("date_posted order is not newest first")
		}
	}
	// A title word finds posts by people with that title.
	items := list(obj(getJSON(t, h, "/pronet/posts/search?keywords="+url.QueryEscape(`"RevOps Manager"`), 200)["data"])["items"])
	if len(items) == 0 {
		t.Fatal("no posts mention RevOps Manager")
	}
	if !strings.Contains(obj(obj(items[0])["author"])["headline"].(string), "RevOps Manager") {
		t.Errorf("top result for RevOps Manager is by %v", obj(obj(items[0])["author"])["headline"])
	}
}

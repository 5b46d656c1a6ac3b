package pronet_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

var now = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

const postRecord = `{
  "text": "We are hiring Go engineers", "entityType": "post",
  "postUrl": "https://www.linkedin.com/posts/jane-doe_hiring-activity-7301234567890123456-AbCd",
  "postedAt": "2d", "postedDate": "2026-03-08 10:00:00.000 +0000 UTC", "postedDateTimestamp": 1772964000000,
  "urn": "7301234567890123456",
  "totalReactionCount": 12, "likeCount": 9, "empathyCount": 1, "praiseCount": 1, "appreciationCount": 0,
  "InterestCount": 1, "funnyCount": 0, "commentsCount": 4, "repostsCount": 2, "reposted": false,
  "author": {"id": 9876, "firstName": "Jane", "lastName": "Doe", "headline": "CTO at Acme", "username": "jane-doe",
             "url": "https://www.linkedin.com/in/jane-doe", "urn": "ACoAAAAAJpQ",
             "profilePictures": [{"width": 100, "height": 100, "url": "https://media.licdn.com/p100.jpg"}]},
  "company": {"name": "Acme", "url": "https://www.linkedin.com/company/acme/", "urn": "1234"},
  "image": [{"url": "https://media.licdn.com/img.jpg"}],
  "document": {"title": "Deck", "urn": "urn:li:document:1", "TranscribedDocumentUrl": "https://d/t", "TranscribedDocumentUrlExpiresAt": 1773000000000,
               "manifestUrl": "https://d/m", "manifestUrlExpiresAt": 1773000000000, "scanRequiredForDownload": false, "totalPageCount": 8,
               "coverPages": [{"width": 800, "height": 600, "imageUrls": ["https://d/c1.jpg"]}]},
  "resharedPost": {"text": "original", "author": {"firstName": "Bob", "extra": 1},
                   "company": {"name": "Beta", "url": "https://www.linkedin.com/company/beta", "urn": "55", "companyLogo": [{"width": 50, "height": 50, "url": "https://l.jpg"}]}}
}`

func newClient(t *testing.T, srv *sourcetest.Server) (*pronet.Client, *sourcetest.Sleeper) {
	t.Helper()
	sl := &sourcetest.Sleeper{}
	return pronet.New(pronet.Config{BaseURL: srv.URL, APIKey: "pk", Sleep: sl.Sleep, Now: sourcetest.FixedClock(now)}), sl
}

func TestProfilePostsPagination(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Query().Get("paginationToken") {
		case "":
			sourcetest.JSON(w, 200, `{"success":true,"message":"","data":[`+postRecord+`],"paginationToken":"tok-2"}`)
		case "tok-2": // last page
			sourcetest.JSON(w, 200, `{"success":true,"message":"","data":[],"paginationToken":null}`)
		}
	})
	c, _ := newClient(t, srv)
	posts, next, err := c.ProfilePosts(context.Background(), pronet.ProfilePostsParams{Username: "jane-doe"})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Path != "/profile/posts" || req.Query.Get("username") != "jane-doe" || req.Query.Has("paginationToken") || req.Query.Has("start") {
		t.Errorf("request = %s %v", req.Path, req.Query)
	}
	if req.Header.Get("x-api-key") != "pk" {
		t.Errorf("x-api-key = %q", req.Header.Get("x-api-key"))
	}
	if next != "tok-2" || len(posts) != 1 {
		t.Fatalf("next = %q, posts = %d", next, len(posts))
	}
	p := posts[0]
	if p.URN != "7301234567890123456" || p.InterestCount != 1 || p.Author.ID != 9876 || p.Company.Name != "Acme" ||
		p.Document.TotalPageCount != 8 || p.ResharedPost.Company.CompanyLogo[0].URL != "https://l.jpg" || p.ResharedPost.Author["extra"] != float64(1) {
		t.Errorf("post = %+v", p)
	}
	posts, next, err = c.ProfilePosts(context.Background(), pronet.ProfilePostsParams{Username: "jane-doe", PaginationToken: "tok-2", Start: 50})
	if err != nil || next != "" || posts == nil || len(posts) != 0 {
		t.Fatalf("last page: posts = %v next = %q err = %v", posts, next, err)
	}
	if q := srv.Requests()[1].Query; q.Get("paginationToken") != "tok-2" || q.Get("start") != "50" {
		t.Errorf("second request = %v", q)
	}
}

func TestPostRecordRoundTrip(t *testing.T) {
	// The API returns post records as-is, so decoding and encoding must keep the spec's names.
	var p pronet.Post
	if err := json.Unmarshal([]byte(postRecord), &p); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	_ = json.Unmarshal(b, &got)
	_ = json.Unmarshal([]byte(postRecord), &want)
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("field %q lost", k)
		}
	}
	// What the record lacks is written empty, never left out or null.
	if v, ok := got["video"].([]any); !ok || len(v) != 0 {
		t.Errorf("video = %#v, want []", got["video"])
	}
	if a, ok := got["article"].(map[string]any); !ok || len(a) != 0 {
		t.Errorf("article = %#v, want {}", got["article"])
	}
	if got["InterestCount"] != float64(1) || got["document"].(map[string]any)["TranscribedDocumentUrl"] != "https://d/t" {
		t.Errorf("marshalled = %s", b)
	}
	rp := got["resharedPost"].(map[string]any)
	for k, want := range map[string]string{"author": "map", "company": "map", "document": "map", "article": "map", "video": "list", "image": "list"} {
		switch rp[k].(type) {
		case map[string]any:
			if want == "map" {
				continue
			}
		case []any:
			if want == "list" {
				continue
			}
		}
		t.Errorf("resharedPost.%s = %#v, want a %s", k, rp[k], want)
	}
}

// TestPostRecordShape decodes what providers send for a post that has no company, media,
// document or reshare (empty objects, or nothing at all) and checks the record the API
// shows: every array an array, every object an object, and no reshare stub.
func TestPostRecordShape(t *testing.T) {
	for name, in := range map[string]string{
		"empty objects": `{"text": "hi", "urn": "1", "author": {"id": 1}, "company": {}, "article": {}, "video": [], "image": [],
			"document": {}, "resharedPost": {}}`,
		"nulls":   `{"text": "hi", "urn": "1", "author": {"id": 1, "profilePictures": null}, "company": null, "article": null, "video": null, "image": null, "document": null, "resharedPost": null}`,
		"absent":  `{"text": "hi", "urn": "1", "author": {"id": 1}}`,
		"a stub":  `{"text": "hi", "urn": "1", "author": {"id": 1}, "resharedPost": {"text": ""}}`,
		"stub co": `{"text": "hi", "urn": "1", "author": {"id": 1}, "resharedPost": {"text": "", "company": {}, "author": {}, "video": []}}`,
	} {
		var p pronet.Post
		if err := json.Unmarshal([]byte(in), &p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if _, ok := got["resharedPost"]; ok {
			t.Errorf("%s: resharedPost written on a post that is no reshare: %s", name, b)
		}
		for _, k := range []string{"video", "image"} {
			if v, ok := got[k].([]any); !ok || len(v) != 0 {
				t.Errorf("%s: %s = %#v, want []", name, k, got[k])
			}
		}
		if a, ok := got["article"].(map[string]any); !ok || len(a) != 0 {
			t.Errorf("%s: article = %#v, want {}", name, got["article"])
		}
		if c, ok := got["company"].(map[string]any); !ok || c["name"] != "" || c["url"] != "" || c["urn"] != "" {
			t.Errorf("%s: company = %#v, want empty members", name, got["company"])
		}
		doc, ok := got["document"].(map[string]any)
		if cp, isList := doc["coverPages"].([]any); !ok || !isList || len(cp) != 0 || doc["title"] != "" || doc["totalPageCount"] != float64(0) {
			t.Errorf("%s: document = %#v, want empty members and coverPages []", name, got["document"])
		}
		if pics, ok := got["author"].(map[string]any)["profilePictures"].([]any); !ok || len(pics) != 0 {
			t.Errorf("%s: author.profilePictures = %#v, want []", name, got["author"])
		}
		if p.HasDocument() {
			t.Errorf("%s: HasDocument", name)
		}
	}
	// A reshare keeps its reshared post, every member written.
	var p pronet.Post
	if err := json.Unmarshal([]byte(`{"text": "+1", "urn": "2", "author": {"id": 1}, "reposted": true,
		"resharedPost": {"text": "original", "company": {"name": "Beta", "url": "u", "urn": "55"}}}`), &p); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	var got struct {
		ResharedPost map[string]json.RawMessage `json:"resharedPost"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"text": `"original"`, "author": `{}`, "document": `{}`, "article": `{}`, "video": `[]`, "image": `[]`,
		"company": `{"name":"Beta","url":"u","urn":"55","companyLogo":[]}`}
	for k, v := range want {
		if string(got.ResharedPost[k]) != v {
			t.Errorf("resharedPost.%s = %s, want %s", k, got.ResharedPost[k], v)
		}
	}
}

func TestCompanyPosts(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, `{"success":true,"message":"ok","data":[`+postRecord+`,`+postRecord+`]}`)
	})
	c, _ := newClient(t, srv)
	posts, err := c.CompanyPosts(context.Background(), "acme")
	if err != nil || len(posts) != 2 {
		t.Fatalf("posts = %d, err = %v", len(posts), err)
	}
	if req := srv.Requests()[0]; req.Path != "/company/posts" || req.Query.Get("username") != "acme" {
		t.Errorf("request = %s %v", req.Path, req.Query)
	}
}

func TestComments(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, `{"success":true,"message":"","data":{"comments":[
		  {"isPinned":false,"isEdited":true,"threadUrn":"urn:li:comment:(activity:7301234567890123456,7301)","urn":"urn:li:comment:7301",
		   "createdAt":1772964100000,"createdAtString":"2026-03-08T10:01:40Z","permalink":"https://www.linkedin.com/feed/update/urn:li:activity:7301234567890123456?commentUrn=x","text":"Great!",
		   "author":{"name":"Ann Lee","urn":"ACoA1","id":"4411","username":"ann-lee","pronetUrl":"https://www.linkedin.com/in/ann-lee","title":"Engineer"},
		   "totalSocialActivityCounts":{"numComments":1,"likeCount":2,"appreciationCount":0,"empathyCount":0,"InterestCount":0,"praiseCount":0,"funnyCount":0,"maybeCount":0,"totalReactionCount":2,"numShares":0},
		   "replies":[{"isPinned":false,"isEdited":false,"urn":"urn:li:comment:7302","createdAt":1772964200000,"createdAtString":"2026-03-08T10:03:20Z","permalink":"p","text":"Thanks",
		     "author":{"name":"Jane Doe","urn":"ACoA2","username":"jane-doe","pronetUrl":"https://www.linkedin.com/in/jane-doe","title":"CTO"},
		     "totalSocialActivityCounts":{"numComments":0,"likeCount":0,"appreciationCount":0,"empathyCount":0,"InterestCount":0,"praiseCount":0,"funnyCount":0,"maybeCount":0,"totalReactionCount":0,"numShares":0}}]}],
		  "total":1,"totalPage":1,"currentPage":2}}`)
	})
	c, _ := newClient(t, srv)
	page, err := c.Comments(context.Background(), "7301234567890123456", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if req := srv.Requests()[0]; req.Path != "/post/comments" || req.Query.Get("urn") != "7301234567890123456" || req.Query.Get("page") != "2" {
		t.Errorf("request = %s %v", req.Path, req.Query)
	}
	if page.Total != 1 || page.CurrentPage != 2 || len(page.Comments) != 1 || len(page.Comments[0].Replies) != 1 {
		t.Fatalf("page = %+v", page)
	}
	b, _ := json.Marshal(page.Comments[0])
	s := string(b)
	for _, want := range []string{`"threadUrn":"urn:li:comment:(activity:7301234567890123456,7301)"`, `"id":"4411"`, `"replies":[{`, `"InterestCount":0`} {
		if !strings.Contains(s, want) {
			t.Errorf("comment json lacks %s: %s", want, s)
		}
	}
	reply, _ := json.Marshal(page.Comments[0].Replies[0])
	if strings.Contains(string(reply), "threadUrn") || strings.Contains(string(reply), `"id"`) || !strings.Contains(string(reply), `"replies":[]`) {
		t.Errorf("reply json = %s", reply)
	}
}

func TestReactionsAndSearch(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/post/reactions":
			sourcetest.JSON(w, 200, `{"success":true,"message":"","data":{"items":[{"urn":"ACoA1","username":"ann-lee","fullName":"Ann Lee","headline":"Engineer","profileUrl":"https://www.linkedin.com/in/ann-lee","profilePicture":"https://p.jpg","reactionType":"PRAISE"}],"total":31,"totalPage":4,"currentPage":1}}`)
		case "/posts/search":
			sourcetest.JSON(w, 200, `{"success":true,"message":"","data":{"items":[`+postRecord+`],"total":1,"totalPage":1,"currentPage":3}}`)
		}
	})
	c, _ := newClient(t, srv)
	rp, err := c.Reactions(context.Background(), "7301", 1, 0)
	if err != nil || rp.TotalPage != 4 || rp.Items[0].ReactionType != pronet.ReactionPraise || rp.Items[0].FullName != "Ann Lee" {
		t.Fatalf("reactions = %+v, %v", rp, err)
	}
	sp, err := c.SearchPosts(context.Background(), pronet.SearchParams{Keywords: "go hiring", DatePosted: pronet.DatePastWeek, SortBy: pronet.SortDate, Page: 3})
	if err != nil || len(sp.Items) != 1 || sp.CurrentPage != 3 {
		t.Fatalf("search = %+v, %v", sp, err)
	}
	q := srv.Requests()[1].Query
	if q.Get("keywords") != "go hiring" || q.Get("datePosted") != "past-week" || q.Get("sortBy") != "date_posted" || q.Get("page") != "3" {
		t.Errorf("search query = %v", q)
	}
	if _, err := c.SearchPosts(context.Background(), pronet.SearchParams{Keywords: "x", DatePosted: "yesterday"}); err == nil {
		t.Error("bad datePosted accepted")
	}
}

func TestSearchPostsContentType(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, `{"success":true,"message":"","data":{"items":[],"total":0,"totalPage":0,"currentPage":1}}`)
	})
	c, _ := newClient(t, srv)
	kw := `("revops" OR "sales ops") AND "crm" NOT "hiring"`
	if _, err := c.SearchPosts(context.Background(), pronet.SearchParams{Keywords: kw, DatePosted: pronet.DatePastDay, ContentType: "documents"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SearchPosts(context.Background(), pronet.SearchParams{Keywords: "crm"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if q := reqs[0].Query; reqs[0].Path != "/posts/search" || q.Get("contentType") != "documents" || q.Get("keywords") != kw || q.Get("datePosted") != "past-24h" {
		t.Errorf("search query = %s %v", reqs[0].Path, q)
	}
	if q := reqs[1].Query; q.Has("contentType") || q.Has("datePosted") || q.Has("sortBy") || q.Has("page") {
		t.Errorf("defaults were sent: %v", q)
	}
}

func TestProfile(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Query().Get("username") {
		case "jane-doe":
			sourcetest.JSON(w, 200, `{"success":true,"message":"","data":{"id":"9876","urn":"ACoAAAAAJpQ","username":"jane-doe","firstName":"Jane","lastName":"Doe",
			"headline":"CTO at Acme","summary":"Builds things","profilePicture":"https://p.jpg","isOpenToWork":true,"isPremium":true,"isCreator":false,
			"followerCount":5400,"connectionCount":500,"languages":["English","German"],"geo":{"country":"Germany","countryCode":"DE","city":"Berlin","full":"Berlin, Germany"},
			"position":[{"companyName":"Acme","companyUsername":"acme","companyIndustry":"Software","companyStaffCountRange":"51-200","companyLogo":"https://logo","companyWebsite":"https://acme.io","title":"CTO","location":"Berlin","start":{"year":2021,"month":4},"end":{"year":0,"month":0}}]}}`)
		default:
			sourcetest.JSON(w, 404, `{"success":false,"message":"Profile not found","data":null}`)
		}
	})
	c, _ := newClient(t, srv)
	p, err := c.Profile(context.Background(), "jane-doe")
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != 9876 || p.Geo.CountryCode != "DE" || !p.IsOpenToWork || p.Position[0].Start.String() != "2021-04" || !p.Position[0].End.IsZero() {
		t.Errorf("profile = %+v", p)
	}
	if _, err := c.Profile(context.Background(), "ghost"); !errors.Is(err, source.ErrNotFound) || !strings.Contains(err.Error(), "Profile not found") {
		t.Errorf("ghost: %v", err)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		header   map[string]string
		body     string
		attempts int
		check    func(t *testing.T, err error)
	}{
		{"404", 404, nil, `{"success":false,"message":"Company not found","data":null}`, 1, func(t *testing.T, err error) {
			if !errors.Is(err, source.ErrNotFound) {
				t.Errorf("err = %v", err)
			}
		}},
		{"401", 401, nil, `{"success":false,"message":"Invalid API key","data":null}`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 401 || ue.Source != "pronet" {
				t.Errorf("err = %v", err)
			}
		}},
		{"429", 429, map[string]string{"Retry-After": "30"}, `{"success":false,"message":"slow down","data":null}`, 1, func(t *testing.T, err error) {
			var rl *source.RateLimitError
			if !errors.As(err, &rl) || !rl.ResetAt.Equal(now.Add(30*time.Second)) || rl.Source != "pronet" {
				t.Errorf("err = %v", err)
			}
		}},
		{"500", 500, nil, `{"success":false,"message":"boom","data":null}`, 3, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 500 {
				t.Errorf("err = %v", err)
			}
		}},
		{"malformed json", 200, nil, `{"success":true,"data":[{"text":`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 200 {
				t.Errorf("err = %v", err)
			}
		}},
		{"wrong data type", 200, nil, `{"success":true,"data":{"not":"a list"}}`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) {
				t.Errorf("err = %v", err)
			}
		}},
		{"success false", 200, nil, `{"success":false,"message":"provider quota exhausted","data":null}`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "quota exhausted") {
				t.Errorf("err = %v", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				sourcetest.JSON(w, tc.status, tc.body)
			})
			c, _ := newClient(t, srv)
			_, err := c.CompanyPosts(context.Background(), "acme")
			tc.check(t, err)
			if got := len(srv.Requests()); got != tc.attempts {
				t.Errorf("attempts = %d, want %d", got, tc.attempts)
			}
		})
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			sourcetest.JSON(w, 502, `<html>bad gateway</html>`)
			return
		}
		sourcetest.JSON(w, 200, `{"success":true,"message":"","data":[`+postRecord+`]}`)
	})
	c, sl := newClient(t, srv)
	posts, err := c.CompanyPosts(context.Background(), "acme")
	if err != nil || len(posts) != 1 || len(sl.Durations()) != 1 {
		t.Fatalf("posts = %d, err = %v, sleeps = %v", len(posts), err, sl.Durations())
	}
}

func TestCallerDeadline(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	c, _ := newClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := c.Profile(ctx, "jane-doe")
	var ue *source.UpstreamError
	if !errors.As(err, &ue) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

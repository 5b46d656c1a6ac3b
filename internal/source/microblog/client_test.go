package microblog_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/microblog"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

var now = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// searchPage is shaped like X's documented search response: data, includes.users,
// includes.media and meta with next_token.
const searchPage = `{
  "data": [
    {"id": "1900000000000000002", "text": "Launching our new API today https://t.co/abc",
     "author_id": "2244994945", "created_at": "2026-03-10T09:30:00.000Z", "lang": "en",
     "conversation_id": "1900000000000000002",
     "public_metrics": {"retweet_count": 4, "reply_count": 3, "like_count": 25, "quote_count": 1, "bookmark_count": 2, "impression_count": 900},
     "entities": {"urls": [{"start": 28, "end": 51, "url": "https://t.co/abc", "expanded_url": "https://example.com/api", "display_url": "example.com/api"}],
                  "hashtags": [{"start": 0, "end": 4, "tag": "api"}]},
     "attachments": {"media_keys": ["3_1", "7_2"]}},
    {"id": "1900000000000000001", "text": "@someone thanks!", "author_id": "783214",
     "created_at": "2026-03-09T08:00:00.000Z", "in_reply_to_user_id": "99",
     "referenced_tweets": [{"type": "replied_to", "id": "1899"}],
     "public_metrics": {"retweet_count": 0, "reply_count": 0, "like_count": 1, "quote_count": 0}}
  ],
  "includes": {
    "users": [
      {"id": "2244994945", "name": "X Developers", "username": "XDevelopers",
       "profile_image_url": "https://pbs.twimg.com/profile_images/1/a_normal.jpg", "verified": true,
       "public_metrics": {"followers_count": 570000, "following_count": 2000, "tweet_count": 4000, "listed_count": 1800}},
      {"id": "783214", "name": "X", "username": "X"}
    ],
    "media": [
      {"media_key": "3_1", "type": "photo", "url": "https://pbs.twimg.com/media/a.jpg"},
      {"media_key": "7_2", "type": "video", "preview_image_url": "https://pbs.twimg.com/ext_tw_video_thumb/b.jpg"}
    ]
  },
  "meta": {"newest_id": "1900000000000000002", "oldest_id": "1900000000000000001", "result_count": 2, "next_token": "b26v89c19zqg8o3f"}
}`

func newClient(t *testing.T, srv *sourcetest.Server) (*microblog.Client, *sourcetest.Sleeper) {
	t.Helper()
	sl := &sourcetest.Sleeper{}
	return microblog.New(microblog.Config{BaseURL: srv.URL + "/", BearerToken: "tok", Now: sourcetest.FixedClock(now), Sleep: sl.Sleep}), sl
}

func TestSearchRecent(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, http.StatusOK, searchPage)
	})
	c, _ := newClient(t, srv)
	page, err := c.Search(context.Background(), microblog.SearchParams{
		Query: `(api OR sdk) -is:retweet`, SortOrder: "recency", StartTime: now.Add(-7 * 24 * time.Hour),
		EndTime: now, SinceID: "1899", MaxResults: 50, NextToken: "tok1",
	})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Path != "/2/tweets/search/recent" {
		t.Errorf("path = %s", req.Path)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer tok" {
		t.Errorf("Authorization = %q", got)
	}
	wantQuery := map[string]string{
		"query":        `(api OR sdk) -is:retweet`,
		"sort_order":   "recency",
		"start_time":   "2026-03-03T12:01:00Z", // a week back, kept a minute inside X's window
		"end_time":     "2026-03-10T11:59:50Z", // X wants end_time at least 10 s in the past
		"since_id":     "1899",
		"max_results":  "50",
		"next_token":   "tok1",
		"expansions":   "author_id,attachments.media_keys",
		"tweet.fields": "created_at,public_metrics,entities,lang,conversation_id,referenced_tweets,attachments,author_id,in_reply_to_user_id",
		"user.fields":  "username,name,profile_image_url,public_metrics,verified,description,location",
		"media.fields": "type,url,preview_image_url",
	}
	for k, v := range wantQuery {
		if got := req.Query.Get(k); got != v {
			t.Errorf("query %s = %q, want %q", k, got, v)
		}
	}
	if page.NextToken != "b26v89c19zqg8o3f" || page.NewestID != "1900000000000000002" || page.ResultCount != 2 {
		t.Errorf("page meta = %q %q %d", page.NextToken, page.NewestID, page.ResultCount)
	}
	if len(page.Items) != 2 || len(page.Tweets) != 2 {
		t.Fatalf("items = %d, tweets = %d", len(page.Items), len(page.Tweets))
	}
	it := page.Items[0]
	if it.ID != "1900000000000000002" || it.Source != "microblog" {
		t.Errorf("id/source = %s/%s", it.ID, it.Source)
	}
	if it.Content.URL != "https://x.com/XDevelopers/status/1900000000000000002" {
		t.Errorf("url = %s", it.Content.URL)
	}
	if it.Author.Name != "X Developers" || it.Author.Username != "XDevelopers" || it.Author.ProfileURL != "https://x.com/XDevelopers" ||
		it.Author.Avatar != "https://pbs.twimg.com/profile_images/1/a_normal.jpg" || it.Author.Followers == nil || *it.Author.Followers != 570000 {
		t.Errorf("author = %+v", it.Author)
	}
	if it.Engagement.Likes != 25 || it.Engagement.Comments != 3 || it.Engagement.Shares == nil || *it.Engagement.Shares != 5 {
		t.Errorf("engagement = %+v", it.Engagement)
	}
	if len(it.Content.Media) != 2 || it.Content.Media[0].URL != "https://pbs.twimg.com/media/a.jpg" ||
		it.Content.Media[1].Type != "video" || it.Content.Media[1].URL != "https://pbs.twimg.com/ext_tw_video_thumb/b.jpg" {
		t.Errorf("media = %+v", it.Content.Media)
	}
	if !it.PublishedAt.Equal(time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)) || !it.CollectedAt.Equal(now) {
		t.Errorf("times = %v %v", it.PublishedAt, it.CollectedAt)
	}
	if second := page.Items[1]; second.Author.Followers != nil || len(second.Content.Media) != 0 {
		t.Errorf("author without public_metrics: %+v", second.Author)
	}
	tw := page.Tweets[0]
	if tw.Author == nil || tw.Author.ID != "2244994945" || len(tw.Entities.URLs) != 1 || tw.Entities.URLs[0].ExpandedURL != "https://example.com/api" {
		t.Errorf("raw tweet = %+v", tw)
	}
	if page.Tweets[1].ReferencedTweets[0].Type != "replied_to" || page.Tweets[1].InReplyToUserID != "99" {
		t.Errorf("reply tweet = %+v", page.Tweets[1])
	}
}

func TestSearchEndpointAndMaxResults(t *testing.T) {
	cases := []struct {
		name     string
		p        microblog.SearchParams
		wantPath string
		wantMax  string
	}{
		{"recent clamps up", microblog.SearchParams{MaxResults: 3}, "/2/tweets/search/recent", "10"},
		{"recent clamps down", microblog.SearchParams{MaxResults: 300}, "/2/tweets/search/recent", "100"},
		{"full archive flag", microblog.SearchParams{MaxResults: 300, FullArchive: true}, "/2/tweets/search/all", "300"},
		{"archive clamps down", microblog.SearchParams{MaxResults: 900, FullArchive: true}, "/2/tweets/search/all", "500"},
		{"old start time", microblog.SearchParams{StartTime: now.Add(-30 * 24 * time.Hour)}, "/2/tweets/search/all", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				sourcetest.JSON(w, http.StatusOK, `{"meta":{"result_count":0}}`)
			})
			c, _ := newClient(t, srv)
			tc.p.Query = "golang"
			if _, err := c.Search(context.Background(), tc.p); err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[0]
			if req.Path != tc.wantPath || req.Query.Get("max_results") != tc.wantMax {
				t.Errorf("path = %s max_results = %q", req.Path, req.Query.Get("max_results"))
			}
			if tc.name == "old start time" && req.Query.Get("start_time") != "2026-02-08T12:00:00Z" {
				t.Errorf("archive start_time changed: %s", req.Query.Get("start_time"))
			}
		})
	}
}

func TestSearchLastAndEmptyPages(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 0: // last page: data but no next_token
			sourcetest.JSON(w, http.StatusOK, `{"data":[{"id":"5","text":"t","author_id":"1","created_at":"2026-03-10T00:00:00Z"}],"includes":{"users":[{"id":"1","name":"A","username":"a"}]},"meta":{"result_count":1,"newest_id":"5","oldest_id":"5"}}`)
		default: // nothing matched: X leaves data out
			sourcetest.JSON(w, http.StatusOK, `{"meta":{"result_count":0}}`)
		}
	})
	c, _ := newClient(t, srv)
	last, err := c.Search(context.Background(), microblog.SearchParams{Query: "a", NextToken: "t2"})
	if err != nil || last.NextToken != "" || len(last.Items) != 1 {
		t.Fatalf("last page = %+v, %v", last, err)
	}
	empty, err := c.Search(context.Background(), microblog.SearchParams{Query: "a"})
	if err != nil || empty.NextToken != "" || len(empty.Items) != 0 || empty.Items == nil {
		t.Fatalf("empty page = %+v, %v", empty, err)
	}
}

func TestSearchToleratesMissingIncludes(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, http.StatusOK, `{"data":[{"id":"77","text":"orphan","author_id":"404","created_at":"2026-03-10T00:00:00Z","attachments":{"media_keys":["3_missing"]}}],
		"errors":[{"resource_id":"404","resource_type":"user","title":"Not Found Error","type":"https://api.twitter.com/2/problems/resource-not-found"}],
		"meta":{"result_count":1}}`)
	})
	c, _ := newClient(t, srv)
	page, err := c.Search(context.Background(), microblog.SearchParams{Query: "a"})
	if err != nil {
		t.Fatal(err)
	}
	it := page.Items[0]
	if it.Author.Username != "" || it.Content.URL != "https://x.com/i/web/status/77" || len(it.Content.Media) != 0 {
		t.Errorf("item = %+v", it)
	}
}

func TestUserByUsername(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/2/users/by/username/jack":
			sourcetest.JSON(w, http.StatusOK, `{"data":{"id":"12","name":"jack","username":"jack","verified":false,"profile_image_url":"https://pbs.twimg.com/p.jpg","public_metrics":{"followers_count":6000000,"following_count":4,"tweet_count":29000,"listed_count":1}}}`)
		case "/2/users/by/username/nobody_here":
			// X answers an unknown username with 200 and an errors array.
			sourcetest.JSON(w, http.StatusOK, `{"errors":[{"value":"nobody_here","detail":"Could not find user with username: [nobody_here].","title":"Not Found Error","resource_type":"user","parameter":"username","resource_id":"nobody_here","type":"https://api.twitter.com/2/problems/resource-not-found"}]}`)
		case "/2/users/by/username/suspended":
			sourcetest.JSON(w, http.StatusNotFound, `{"title":"Not Found","type":"about:blank","status":404,"detail":"Not Found"}`)
		case "/2/users/by/username/forbidden":
			sourcetest.JSON(w, http.StatusOK, `{"errors":[{"detail":"User has been suspended: [forbidden].","title":"Forbidden","type":"https://api.twitter.com/2/problems/resource-unauthorized"}]}`)
		}
	})
	c, _ := newClient(t, srv)
	u, err := c.UserByUsername(context.Background(), "jack")
	if err != nil || u.ID != "12" || u.PublicMetrics.FollowersCount != 6000000 {
		t.Fatalf("user = %+v, %v", u, err)
	}
	if q := srv.Requests()[0].Query.Get("user.fields"); q != "username,name,profile_image_url,public_metrics,verified,description,location" {
		t.Errorf("user.fields = %q", q)
	}
	for _, name := range []string{"nobody_here", "suspended"} {
		if _, err := c.UserByUsername(context.Background(), name); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", name, err)
		}
	}
	var ue *source.UpstreamError
	if _, err := c.UserByUsername(context.Background(), "forbidden"); !errors.As(err, &ue) {
		t.Errorf("forbidden: err = %v, want UpstreamError", err)
	}
	if _, err := c.UserByUsername(context.Background(), "no/slash"); err == nil {
		t.Error("invalid username accepted")
	}
}

func TestUserTweets(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, http.StatusOK, searchPage)
	})
	c, _ := newClient(t, srv)
	page, err := c.UserTweets(context.Background(), "2244994945", microblog.TimelineParams{SinceID: "100", PaginationToken: "pt", MaxResults: 1})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Path != "/2/users/2244994945/tweets" || req.Query.Get("exclude") != "retweets,replies" ||
		req.Query.Get("since_id") != "100" || req.Query.Get("pagination_token") != "pt" || req.Query.Get("max_results") != "5" ||
		req.Query.Get("expansions") != "author_id,attachments.media_keys" {
		t.Errorf("request = %s %v", req.Path, req.Query)
	}
	if page.NextToken != "b26v89c19zqg8o3f" || len(page.Items) != 2 {
		t.Errorf("page = %+v", page)
	}
	if _, err := c.UserTweets(context.Background(), "1", microblog.TimelineParams{IncludeReplies: true, IncludeRetweets: true, MaxResults: 500}); err != nil {
		t.Fatal(err)
	}
	req = srv.Requests()[1]
	if req.Query.Has("exclude") || req.Query.Get("max_results") != "100" {
		t.Errorf("second request = %v", req.Query)
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
		{"401", 401, nil, `{"title":"Unauthorized","type":"about:blank","status":401,"detail":"Unauthorized"}`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 401 || ue.Source != "microblog" {
				t.Errorf("err = %v", err)
			}
		}},
		{"429", 429, map[string]string{"x-rate-limit-reset": "1773148500"}, `{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`, 1, func(t *testing.T, err error) {
			var rl *source.RateLimitError
			if !errors.As(err, &rl) || !rl.ResetAt.Equal(time.Unix(1773148500, 0)) || rl.Source != "microblog" {
				t.Errorf("err = %v", err)
			}
		}},
		{"503", 503, nil, `{"title":"Service Unavailable","detail":"Service Unavailable","type":"about:blank","status":503}`, 3, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 503 {
				t.Errorf("err = %v", err)
			}
		}},
		{"400 invalid query", 400, nil, `{"errors":[{"parameters":{"query":["((("]},"message":"There were errors processing your request: mismatched parenthesis"}],"title":"Invalid Request","detail":"One or more parameters to your request was invalid.","type":"https://api.twitter.com/2/problems/invalid-request"}`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 400 {
				t.Fatalf("err = %v", err)
			}
			if want := "mismatched parenthesis"; !strings.Contains(err.Error(), want) {
				t.Errorf("message %q lacks %q", err.Error(), want)
			}
		}},
		{"malformed json", 200, nil, `{"data":[{"id":`, 1, func(t *testing.T, err error) {
			var ue *source.UpstreamError
			if !errors.As(err, &ue) || ue.Status != 200 {
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
			_, err := c.Search(context.Background(), microblog.SearchParams{Query: "x"})
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
			sourcetest.JSON(w, 500, `{}`)
			return
		}
		sourcetest.JSON(w, 200, searchPage)
	})
	c, sl := newClient(t, srv)
	page, err := c.Search(context.Background(), microblog.SearchParams{Query: "x"})
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("page = %+v, err = %v", page, err)
	}
	if len(sl.Durations()) != 1 {
		t.Errorf("sleeps = %v", sl.Durations())
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
	_, err := c.Search(ctx, microblog.SearchParams{Query: "x"})
	var ue *source.UpstreamError
	if !errors.As(err, &ue) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

// A caller computes a time frame's start from its own "now" and calls the
// client a moment later: a past-week or past-24h start must stay on recent
// search, and only full archive or a longer window reaches /all.
func TestSearchEndpointFollowsTheCallersNow(t *testing.T) {
	callerNow := now.Add(-250 * time.Millisecond) // the client's clock is a little later
	cases := []struct {
		name  string
		start time.Time
		full  bool
		want  string
	}{
		{"past-24h", callerNow.Add(-24 * time.Hour), false, "/2/tweets/search/recent"},
		{"past-week", callerNow.AddDate(0, 0, -7), false, "/2/tweets/search/recent"},
		{"past-month", callerNow.AddDate(0, -1, 0), false, "/2/tweets/search/all"},
		{"full archive asked for", callerNow.Add(-24 * time.Hour), true, "/2/tweets/search/all"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				sourcetest.JSON(w, http.StatusOK, `{"meta": {"result_count": 0}}`)
			})
			c, _ := newClient(t, srv)
			_, err := c.Search(context.Background(), microblog.SearchParams{Query: "crm", StartTime: tc.start,
				FullArchive: tc.full, Now: callerNow})
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.Requests()[0].Path; got != tc.want {
				t.Errorf("path = %s, want %s", got, tc.want)
			}
		})
	}
}

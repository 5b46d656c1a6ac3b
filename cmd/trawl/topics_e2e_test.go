package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
)

type topicView struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Status           string   `json:"status"`
	Keywords         []string `json:"keywords"`
	JobTitles        []string `json:"job_titles"`
	TimeFrame        string   `json:"time_frame"`
	MaxResults       int      `json:"max_results"`
	SortBy           string   `json:"sort_by"`
	ExpiresAt        string   `json:"expires_at"`
	Created          string   `json:"created"`
	LastRun          *string  `json:"last_run"`
	NewItems         bool     `json:"new_items"`
	NumberOfNewItems int      `json:"number_of_new_items"`
	PostsCount       int64    `json:"posts_count"`
	EngagementsCount int64    `json:"engagements_count"`
	NextRunAt        *string  `json:"next_run_at"`
	LastError        *string  `json:"last_error"`
}

type topicPost struct {
	URN               string  `json:"urn"`
	Text              string  `json:"text"`
	PostURL           string  `json:"postUrl"`
	LinkedAt          string  `json:"linked_at"`
	DiscoveryInterval string  `json:"discovery_interval"`
	EngagementsCount  int64   `json:"engagements_count"`
	NextFollowUpAt    *string `json:"next_follow_up_at"`
}

type topicEngagement struct {
	ID                string `json:"id"`
	ProspectID        string `json:"prospect_id"`
	PronetPostID      string `json:"pronet_post_id"`
	DiscoveryInterval string `json:"discovery_interval"`
	Created           string `json:"created"`
	Prospect          struct {
		FullName  string `json:"full_name"`
		PronetURL string `json:"pronet_url"`
		JobTitle  string `json:"job_title"`
		Company   string `json:"company"`
	} `json:"prospect"`
	Engagement struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"engagement"`
}

type topicPage struct {
	Page       int   `json:"page"`
	PageSize   int   `json:"page_size"`
	TotalCount int64 `json:"total_count"`
	TotalPages int64 `json:"total_pages"`
}

func getTopic(t *testing.T, c *client.Client, id string) topicView {
	t.Helper()
	var v topicView
	if err := mustDo(t, c, http.MethodGet, "/v1/topics/"+id, nil, 200).Data(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// listAll reads every page of a topic list endpoint.
func listAll[T any](t *testing.T, c *client.Client, path string) ([]T, topicPage) {
	t.Helper()
	var all []T
	var first topicPage
	for page := 1; ; page++ {
		var body struct {
			Data       []T       `json:"data"`
			Pagination topicPage `json:"pagination"`
		}
		r := mustDo(t, c, http.MethodGet, fmt.Sprintf("%s?page=%d&page_size=100", path, page), nil, 200)
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if page == 1 {
			first = body.Pagination
		}
		all = append(all, body.Data...)
		if int64(page) >= body.Pagination.TotalPages {
			return all, first
		}
	}
}

func intervals(es []topicEngagement) map[string]int {
	out := map[string]int{}
	for _, e := range es {
		out[e.DiscoveryInterval]++
	}
	return out
}

// TestTopicCollectsOnItsCadence drives a topic through its life with the
// injected clock: creation links posts and engagers within seconds; Day 1,
// 3 and 5 follow-ups find new engagers; 06:00 UTC rediscovers; pause and
// resume; expiry after 30 days; deletion.
func TestTopicCollectsOnItsCadence(t *testing.T) {
	forEachEngineAndProvider(t, func(t *testing.T, engine store.Dialect, provider string) {
		// 07:00 UTC: the next daily rediscovery is 23 hours away.
		start := time.Now().UTC().Truncate(24 * time.Hour).Add(-17 * time.Hour)
		clk := clock.NewFake(start)
		ts := startServerAt(t, providerEnv(t, engine, provider, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_RATE_LIMIT_CUSTOM": "100000"}), clk.Now)
		c := ts.Client
		t.Cleanup(func() {
			if t.Failed() {
				logs := ts.Stderr.String()
				t.Logf("server log tail:\n%s", logs[max(0, len(logs)-6000):])
			}
		})

		r := mustDo(t, c, http.MethodPost, "/v1/topics", map[string]any{"name": "Sales talk", "keywords": []string{"sales"},
			"time_frame": "past-24h", "max_results": 20}, 201)
		var created topicView
		if err := r.Data(&created); err != nil {
			t.Fatal(err)
		}
		var body struct {
			CreditsCharged *int64 `json:"credits_charged"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || body.CreditsCharged == nil || *body.CreditsCharged != 0 {
			t.Fatalf("credits_charged = %v (%s)", body.CreditsCharged, r.Body)
		}
		if created.Status != "ACTIVE" || created.SortBy != "date_posted" || created.TimeFrame != "past-24h" ||
			created.ExpiresAt != start.Add(30*24*time.Hour).Format("2006-01-02T15:04:05.000Z") {
			t.Fatalf("created topic = %+v", created)
		}

		// Discovery and first hydration start at once (the tick is a
		// second, but the clock does not move: nothing else is due).
		waitUntil(t, ts, "the first discovery", func() bool { return getTopic(t, c, created.ID).LastRun != nil })
		waitUntil(t, ts, "the first hydration", func() bool { return getTopic(t, c, created.ID).EngagementsCount > 0 })
		tp := getTopic(t, c, created.ID)
		firstRun := *tp.LastRun
		if !tp.NewItems || tp.NumberOfNewItems == 0 || tp.PostsCount != int64(tp.NumberOfNewItems) || tp.PostsCount > 20 {
			t.Fatalf("after the first discovery: %+v", tp)
		}
		posts, pg := listAll[topicPost](t, c, "/v1/topics/"+created.ID+"/posts")
		if int64(len(posts)) != tp.PostsCount || pg.TotalCount != tp.PostsCount {
			t.Fatalf("%d posts listed, total %d, topic says %d", len(posts), pg.TotalCount, tp.PostsCount)
		}
		// Every post's first hydration is done when its next collection is Day 1.
		day1 := start.Add(24 * time.Hour).Format("2006-01-02T15:04:05.000Z")
		waitUntil(t, ts, "every first hydration", func() bool {
			posts, _ = listAll[topicPost](t, c, "/v1/topics/"+created.ID+"/posts")
			for _, p := range posts {
				if p.NextFollowUpAt == nil || *p.NextFollowUpAt != day1 {
					return false
				}
			}
			return true
		})
		for _, p := range posts {
			if p.DiscoveryInterval != "initial" || p.URN == "" || p.PostURL == "" {
				t.Fatalf("linked post = %+v, want initial", p)
			}
		}
		if n := countPostEngagements(t, c, created.ID, posts); n != getTopic(t, c, created.ID).EngagementsCount || n == 0 {
			t.Fatalf("posts list %d engagements, the topic counts %d", n, getTopic(t, c, created.ID).EngagementsCount)
		}
		engagers, _ := listAll[topicEngagement](t, c, "/v1/topics/"+created.ID+"/engagements")
		seen := map[string]bool{}
		for _, e := range engagers {
			if seen[e.ProspectID] {
				t.Fatalf("engager %s listed twice", e.ProspectID)
			}
			seen[e.ProspectID] = true
			if e.DiscoveryInterval != "initial" || e.Prospect.FullName == "" || e.Prospect.PronetURL == "" ||
				(e.Engagement.Type != "like" && e.Engagement.Type != "comment") {
				t.Fatalf("engager = %+v", e)
			}
		}

		// Day 1, 3 and 5: the follow-ups find the engagers who came since.
		for _, step := range []struct {
			advance  time.Duration
			interval string
		}{{24*time.Hour + time.Minute, "day1"}, {2 * 24 * time.Hour, "day3"}, {2 * 24 * time.Hour, "day5"}} {
			clk.Advance(step.advance)
			waitUntil(t, ts, step.interval+" engagements", func() bool {
				// A reaction first seen at a follow-up is its person's latest engagement.
				engagers, _ := listAll[topicEngagement](t, c, "/v1/topics/"+created.ID+"/engagements")
				return intervals(engagers)[step.interval] > 0
			})
		}
		// The 06:00 UTC rediscoveries ran meanwhile (day 1 at 06:00 came
		// before the day1 follow-ups at 07:00).
		tp = getTopic(t, c, created.ID)
		if tp.LastRun == nil || *tp.LastRun == firstRun {
			t.Fatalf("no rediscovery ran: %+v", tp)
		}
		posts, _ = listAll[topicPost](t, c, "/v1/topics/"+created.ID+"/posts")
		rediscovered := 0
		for _, p := range posts {
			if p.DiscoveryInterval == "rediscovery" {
				rediscovered++
			}
		}
		if rediscovered == 0 {
			t.Fatalf("no post linked by rediscovery among %d", len(posts))
		}

		// Pause: nothing runs; resume runs what fell due once.
		mustDo(t, c, http.MethodPatch, "/v1/topics/"+created.ID, map[string]any{"status": "paused"}, 200)
		paused := getTopic(t, c, created.ID)
		clk.Advance(2 * 24 * time.Hour)
		time.Sleep(1500 * time.Millisecond) // a tick passes: polling for the absence of work
		if p := getTopic(t, c, created.ID); *p.LastRun != *paused.LastRun || p.NextRunAt != nil {
			t.Fatalf("paused topic ran: %+v", p)
		}
		// Credits: one per linked post and engagement; the summary of the
		// only topic equals the ledger (read while the topic is paused, so
		// that no collection links more meanwhile).
		// The whole time, not the default billing month: the clock has
		// moved days on and may be in the next month.
		u, err := c.Usage(t.Context(), "2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z")
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			TotalCredits           float64 `json:"total_credits"`
			BilledPostsCount       int64   `json:"billed_posts_count"`
			BilledEngagementsCount int64   `json:"billed_engagements_count"`
		}
		if err := mustDo(t, c, http.MethodGet, "/v1/topics/"+created.ID+"/credits-summary?from=2000-01-01&to=2100-01-01", nil, 200).Data(&sum); err != nil {
			t.Fatal(err)
		}
		tp = getTopic(t, c, created.ID)
		if sum.BilledPostsCount != tp.PostsCount || sum.BilledEngagementsCount != tp.EngagementsCount {
			t.Fatalf("summary %+v, topic %+v", sum, tp)
		}
		if u.Credits.ByFeature["social_topics"] == 0 || sum.TotalCredits != float64(u.Credits.ByFeature["social_topics"]) {
			t.Fatalf("social_topics = %d, summary total %v", u.Credits.ByFeature["social_topics"], sum.TotalCredits)
		}
		if u.Monitors.Active != 0 || u.Monitors.Total != 1 { // the paused topic counts, not as active
			t.Fatalf("monitors = %+v", u.Monitors)
		}

		mustDo(t, c, http.MethodPatch, "/v1/topics/"+created.ID, map[string]any{"status": "ACTIVE"}, 200)
		waitUntil(t, ts, "the resumed discovery", func() bool { return *getTopic(t, c, created.ID).LastRun != *paused.LastRun })

		// Thirty days after creation the topic has expired; an ended
		// topic cannot change.
		clk.Set(start.Add(30*24*time.Hour + time.Minute))
		waitUntil(t, ts, "expiry", func() bool { return getTopic(t, c, created.ID).Status == "EXPIRED" })
		r = mustDo(t, c, http.MethodPatch, "/v1/topics/"+created.ID, map[string]any{"status": "ACTIVE"}, 409)
		if e := r.Err(); e == nil || e.Code != "CONFLICT" {
			t.Fatalf("patch of an expired topic: %s", r.Body)
		}

		mustDo(t, c, http.MethodDelete, "/v1/topics/"+created.ID, nil, 200)
		for _, path := range []string{"", "/posts", "/engagements", "/credits-summary"} {
			mustDo(t, c, http.MethodGet, "/v1/topics/"+created.ID+path, nil, 404)
		}
		mustDo(t, c, http.MethodDelete, "/v1/topics/"+created.ID, nil, 404)
	})
}

func countPostEngagements(t *testing.T, c *client.Client, topicID string, posts []topicPost) int64 {
	t.Helper()
	var n int64
	for _, p := range posts {
		_, pg := listAll[topicEngagement](t, c, "/v1/topics/"+topicID+"/posts/"+p.URN+"/engagements")
		n += pg.TotalCount
	}
	return n
}

// TestTopicKeepsEngagersByJobTitle: a topic with job titles links only the
// engagers whose title or headline holds one, and the people it keeps carry
// their firmographics from the profile once it has been read.
func TestTopicKeepsEngagersByJobTitle(t *testing.T) {
	forEachProvider(t, func(t *testing.T, provider string) {
		ts := startServer(t, providerEnv(t, store.SQLite, provider, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_RATE_LIMIT_CUSTOM": "100000"}))
		c := ts.Client
		var all, vps topicView
		body := map[string]any{"name": "all", "keywords": []string{"sales"}, "time_frame": "past-24h", "max_results": 10}
		if err := mustDo(t, c, http.MethodPost, "/v1/topics", body, 201).Data(&all); err != nil {
			t.Fatal(err)
		}
		body["name"], body["job_titles"] = "vps", []string{"vp", "Head of"}
		if err := mustDo(t, c, http.MethodPost, "/v1/topics", body, 201).Data(&vps); err != nil {
			t.Fatal(err)
		}
		settled := func(id string) bool {
			posts, _ := listAll[topicPost](t, c, "/v1/topics/"+id+"/posts")
			for _, p := range posts {
				if p.NextFollowUpAt == nil || time.Until(mustParse(t, *p.NextFollowUpAt)) < time.Hour {
					return false
				}
			}
			return len(posts) > 0
		}
		waitUntil(t, ts, "both topics hydrated", func() bool { return settled(all.ID) && settled(vps.ID) })
		everyone, _ := listAll[topicEngagement](t, c, "/v1/topics/"+all.ID+"/engagements")
		// Cursor paging walks the same list as page numbers.
		var walked []topicEngagement
		for cursor := "start"; cursor != ""; {
			var body struct {
				Data       []topicEngagement `json:"data"`
				Pagination struct {
					NextCursor *string `json:"next_cursor"`
				} `json:"pagination"`
			}
			r := mustDo(t, c, http.MethodGet, "/v1/topics/"+all.ID+"/engagements?page_size=7&cursor="+cursor, nil, 200)
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
			walked = append(walked, body.Data...)
			cursor = ""
			if body.Pagination.NextCursor != nil {
				cursor = *body.Pagination.NextCursor
			}
		}
		if len(walked) != len(everyone) {
			t.Fatalf("cursor paging gave %d engagers, page numbers %d", len(walked), len(everyone))
		}
		for i := range walked {
			if walked[i].ID != everyone[i].ID {
				t.Fatalf("engager %d: cursor %s, page %s", i, walked[i].ID, everyone[i].ID)
			}
		}
		mustDo(t, c, http.MethodGet, "/v1/topics/"+all.ID+"/engagements?cursor=bogus", nil, 400)
		kept, _ := listAll[topicEngagement](t, c, "/v1/topics/"+vps.ID+"/engagements")
		if len(kept) == 0 || len(kept) >= len(everyone) {
			t.Fatalf("the job-title topic kept %d engagers of %d", len(kept), len(everyone))
		}
		// Profiles are read in the background: wait until the kept people show
		// their company, then check every kept title.
		waitUntil(t, ts, "profiles read", func() bool {
			kept, _ = listAll[topicEngagement](t, c, "/v1/topics/"+vps.ID+"/engagements")
			for _, e := range kept {
				if e.Prospect.Company == "" {
					return false
				}
			}
			return true
		})
		for _, e := range kept {
			title := strings.ToLower(e.Prospect.JobTitle)
			if !strings.Contains(title, "vp") && !strings.Contains(title, "head of") {
				t.Errorf("kept %s, titled %q", e.Prospect.FullName, e.Prospect.JobTitle)
			}
		}
	})
}

func mustParse(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

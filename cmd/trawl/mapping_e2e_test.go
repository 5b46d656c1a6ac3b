package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

type mappingResult struct {
	FirstName     *string `json:"first_name"`
	LastName      *string `json:"last_name"`
	PronetURL     *string `json:"pronet_url"`
	Location      *string `json:"location"`
	Company       *string `json:"company"`
	CompanyDomain *string `json:"company_domain"`
	JobTitle      *string `json:"job_title"`
	Followers     *int64  `json:"followers"`
	Post          *struct {
		Text  *string `json:"text"`
		URL   *string `json:"url"`
		Likes *int64  `json:"likes"`
	} `json:"post"`
	Engagement *struct {
		Type string `json:"type"`
	} `json:"engagement"`
}

type mappingAnswer struct {
	Results []mappingResult `json:"results"`
	Page    int             `json:"page"`
	Total   int64           `json:"total"`
}

// TestSocialMappingOverTopicData: people who engaged with the posts a topic
// collected are found by keyword, one per person, paged, filtered and
// charged one credit per result.
func TestSocialMappingOverTopicData(t *testing.T) {
	forEachEngineAndProvider(t, func(t *testing.T, engine store.Dialect, provider string) {
		ts := startServer(t, providerEnv(t, engine, provider, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_RATE_LIMIT_CUSTOM": "100000"}))
		c := ts.Client
		var tp topicView
		if err := mustDo(t, c, http.MethodPost, "/v1/topics", map[string]any{"name": "sales", "keywords": []string{"sales"},
			"time_frame": "past-24h", "max_results": 20}, 201).Data(&tp); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, ts, "engagers", func() bool { return getTopic(t, c, tp.ID).EngagementsCount > 0 })
		waitUntil(t, ts, "profiles", func() bool {
			es, _ := listAll[topicEngagement](t, c, "/v1/topics/"+tp.ID+"/engagements")
			for _, e := range es {
				if e.Prospect.Company == "" {
					return false
				}
			}
			return len(es) > 0
		})
		query := func(body map[string]any, wantStatus int) (mappingAnswer, int64) {
			t.Helper()
			r := mustDo(t, c, http.MethodPost, "/v1/social/mapping", body, wantStatus)
			var a mappingAnswer
			if wantStatus != 200 {
				return a, 0
			}
			if err := r.Data(&a); err != nil {
				t.Fatal(err)
			}
			spent, _ := strconv.ParseInt(r.Header.Get("x-spent-credits"), 10, 64)
			return a, spent
		}
		all, spent := query(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30, "page_size": 50}, 200)
		if all.Total == 0 || len(all.Results) == 0 || spent != int64(len(all.Results)) {
			t.Fatalf("mapping: total %d, %d results, spent %d", all.Total, len(all.Results), spent)
		}
		for _, r := range all.Results {
			if r.PronetURL == nil || r.Post == nil || r.Post.Text == nil || r.Engagement == nil {
				t.Fatalf("result without its members: %+v", r)
			}
		}
		// Paging covers every person once.
		seen := map[string]bool{}
		for page := 1; int64((page-1)*10) < all.Total; page++ {
			a, _ := query(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30, "page": page}, 200)
			for _, r := range a.Results {
				if seen[*r.PronetURL] {
					t.Fatalf("%s on two pages", *r.PronetURL)
				}
				seen[*r.PronetURL] = true
			}
		}
		if int64(len(seen)) != all.Total {
			t.Fatalf("pages hold %d people, total says %d", len(seen), all.Total)
		}
		// includes picks members.
		some, _ := query(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30,
			"includes": []string{"first_name", "post.url"}}, 200)
		for _, r := range some.Results {
			if r.FirstName == nil || r.Post == nil || r.Post.URL == nil || r.Post.Text != nil || r.LastName != nil || r.Engagement != nil {
				raw, _ := json.Marshal(r)
				t.Fatalf("includes first_name, post.url gave %s", raw)
			}
		}
		// A filter narrows to people it matches.
		country := *all.Results[0].Location
		narrow, _ := query(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 30, "location_country": []string{country}, "page_size": 50}, 200)
		if narrow.Total == 0 || narrow.Total > all.Total {
			t.Fatalf("filtering on %s: %d of %d", country, narrow.Total, all.Total)
		}
		for _, r := range narrow.Results {
			if *r.Location != country {
				t.Fatalf("filtered on %s, got %s", country, *r.Location)
			}
		}
		// Nothing qualifies: 0 credits.
		none, spent := query(map[string]any{"engaged_with_keywords": []string{"zzzqqq"}, "engaged_with_days": 30}, 200)
		if none.Total != 0 || spent != 0 {
			t.Fatalf("no match: %+v, spent %d", none, spent)
		}
		// Creators: the authors of the posts about the keyword.
		r := mustDo(t, c, http.MethodPost, "/v1/discover/creators", map[string]any{"posted_about_keywords": []string{"sales"},
			"posted_about_days": 7, "page_size": 50}, 200)
		var creators struct {
			Results []struct {
				Name                string   `json:"name"`
				PronetURL           string   `json:"pronet_url"`
				Company             string   `json:"company"`
				AvgLast10Engagement float64  `json:"avg_last_10_engagement"`
				AvgDaysBetweenPosts *float64 `json:"avg_days_between_posts"`
				QualifyingPosts     int      `json:"qualifying_posts"`
			} `json:"results"`
			Total int64 `json:"total"`
		}
		if err := r.Data(&creators); err != nil {
			t.Fatal(err)
		}
		if creators.Total == 0 || r.Header.Get("x-spent-credits") != strconv.Itoa(len(creators.Results)) {
			t.Fatalf("creators: %+v, spent %s", creators, r.Header.Get("x-spent-credits"))
		}
		for i, cr := range creators.Results {
			if cr.Name == "" || cr.PronetURL == "" || cr.QualifyingPosts < 1 || cr.AvgLast10Engagement < 0 {
				t.Fatalf("creator = %+v", cr)
			}
			if i > 0 && cr.QualifyingPosts > creators.Results[i-1].QualifyingPosts {
				t.Fatalf("creators not ordered by qualifying posts: %+v", creators.Results)
			}
		}
		mustDo(t, c, http.MethodPost, "/v1/discover/creators", map[string]any{"posted_about_keywords": []string{"sales"}, "posted_about_days": 0}, 400)

		query(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 31}, 400)
		query(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 3, "followers": []string{"10-"}}, 400)
		query(map[string]any{"engaged_with_keywords": []string{"sales"}, "engaged_with_days": 3, "location_country": []string{"Narnia"}}, 400)
	})
}

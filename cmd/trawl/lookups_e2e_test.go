package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// lookupPost is the part of a pronet post record the tests look at.
type lookupPost struct {
	URN                 string `json:"urn"`
	EntityType          string `json:"entityType"`
	PostedDateTimestamp int64  `json:"postedDateTimestamp"`
	CommentsCount       int    `json:"commentsCount"`
}

type profilePostsAnswer struct {
	Success         bool              `json:"success"`
	Message         string            `json:"message"`
	Data            []json.RawMessage `json:"data"`
	PaginationToken *string           `json:"paginationToken"`
}

func post(t *testing.T, c *client.Client, path string, body any) *client.Response {
	t.Helper()
	r, err := c.Do(context.Background(), http.MethodPost, path, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// spentHeader is x-spent-credits as a number; -1 when absent or malformed.
func spentHeader(r *client.Response) int64 {
	n, err := strconv.ParseInt(r.Header.Get("x-spent-credits"), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func usageOf(t *testing.T, c *client.Client) client.Usage {
	t.Helper()
	// An explicit end: the default (now, exclusive) misses a spend of the same millisecond.
	u, err := c.Usage(context.Background(), "", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// hasKeys reports the first of keys that obj lacks, or "".
func missingKey(obj map[string]any, keys ...string) string {
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			return k
		}
	}
	return ""
}

func decodePosts(t *testing.T, raw []json.RawMessage) []lookupPost {
	t.Helper()
	out := make([]lookupPost, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatalf("post %d: %v", i, err)
		}
	}
	return out
}

// checkPostRecord asserts the spec's field names of a pronet post record.
func checkPostRecord(t *testing.T, raw json.RawMessage) {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	if k := missingKey(obj, "text", "entityType", "postUrl", "postedAt", "postedDate", "postedDateTimestamp", "urn",
		"totalReactionCount", "likeCount", "empathyCount", "praiseCount", "appreciationCount", "InterestCount",
		"funnyCount", "commentsCount", "repostsCount", "reposted", "author"); k != "" {
		t.Fatalf("post record lacks %s: %s", k, raw)
	}
	author, _ := obj["author"].(map[string]any)
	if k := missingKey(author, "id", "firstName", "lastName", "headline", "username", "url", "urn", "profilePictures"); k != "" {
		t.Fatalf("post author lacks %s: %s", k, raw)
	}
	if obj["entityType"] != "post" {
		t.Fatalf("entityType = %v", obj["entityType"])
	}
}

// lookupsByProvider is what a live lookup answers where a vendor differs from the contract, as
// docs/providers.md documents it per adapter.
var lookupsByProvider = map[string]struct {
	// profilePostsPage is a full page of profile posts: HarvestAPI answers one vendor page (20).
	profilePostsPage int
	// emptyNotMissing are the lookups (path and identifier) of a missing profile, page or post
	// that answer an empty list instead of 404: an Apify list actor pushes nothing for them.
	emptyNotMissing map[string]bool
}{
	providerContract:   {profilePostsPage: 50},
	providerHarvestAPI: {profilePostsPage: 20},
	providerApify: {profilePostsPage: 50, emptyNotMissing: map[string]bool{
		"/v1/profile/posts https://www.linkedin.com/in/missing-x":          true,
		"/v1/company/posts https://www.linkedin.com/company/missing-x":     true,
		"/v1/company/comments urn:li:activity:9" + strings.Repeat("9", 18): true,
	}},
}

func TestLiveLookups(t *testing.T) {
	forEachEngineAndProvider(t, func(t *testing.T, engine store.Dialect, provider string) {
		ts := startServer(t, providerEnv(t, engine, provider, nil))
		c := ts.Client
		want := lookupsByProvider[provider]
		t.Cleanup(func() {
			if t.Failed() {
				logs := ts.Stderr.String()
				t.Logf("server log tail:\n%s", logs[max(0, len(logs)-8000):])
			}
		})
		byFeature := map[string]int64{}
		charged := func(t *testing.T, feature string, r *client.Response, want int) {
			t.Helper()
			if got := spentHeader(r); got != int64(want) {
				t.Fatalf("x-spent-credits = %q, want %d", r.Header.Get("x-spent-credits"), want)
			}
			byFeature[feature] += int64(want)
			u := usageOf(t, c)
			if u.Credits.ByFeature[feature] != byFeature[feature] {
				t.Fatalf("usage %s = %d, want %d (by_feature %v)", feature, u.Credits.ByFeature[feature], byFeature[feature], u.Credits.ByFeature)
			}
		}
		var firstPage []lookupPost

		t.Run("profile posts and pagination token", func(t *testing.T) {
			r := post(t, c, "/v1/profile/posts", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe/"})
			var a profilePostsAnswer
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || !a.Success || a.Message == "" {
				t.Fatalf("profile posts = %d %s", r.Status, r.Body)
			}
			if len(a.Data) == 0 || len(a.Data) > 50 {
				t.Fatalf("got %d posts, want 1-50", len(a.Data))
			}
			checkPostRecord(t, a.Data[0])
			charged(t, "profile_posts", r, len(a.Data))
			firstPage = decodePosts(t, a.Data)
			for i := 1; i < len(firstPage); i++ {
				if firstPage[i].PostedDateTimestamp > firstPage[i-1].PostedDateTimestamp {
					t.Fatalf("posts are not newest first")
				}
			}
			if len(a.Data) > want.profilePostsPage {
				t.Fatalf("got %d posts, more than the %s page of %d", len(a.Data), provider, want.profilePostsPage)
			}
			if len(a.Data) < want.profilePostsPage {
				t.Skipf("profile has only %d posts; no second page to test", len(a.Data))
			}
			if a.PaginationToken == nil || *a.PaginationToken == "" {
				t.Fatalf("a full page has no paginationToken: %s", r.Body)
			}
			r = post(t, c, "/v1/profile/posts", map[string]any{"profileUrl": "https://linkedin.com/in/jane-doe", "paginationToken": *a.PaginationToken})
			var b profilePostsAnswer
			if r.Status != 200 || json.Unmarshal(r.Body, &b) != nil || len(b.Data) == 0 {
				t.Fatalf("second page = %d %.300s", r.Status, r.Body)
			}
			charged(t, "profile_posts", r, len(b.Data))
			seen := map[string]bool{}
			for _, p := range firstPage {
				seen[p.URN] = true
			}
			last := firstPage[len(firstPage)-1].PostedDateTimestamp
			for _, p := range decodePosts(t, b.Data) {
				if seen[p.URN] || p.PostedDateTimestamp > last {
					t.Fatalf("second page repeats or precedes the first: %+v", p)
				}
			}
			// page=1 is the same offset-based second page.
			r = post(t, c, "/v1/profile/posts", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe", "page": 1})
			if err := json.Unmarshal(r.Body, &b); r.Status != 200 || err != nil || len(b.Data) == 0 {
				t.Fatalf("page 1 = %d %.300s", r.Status, r.Body)
			}
			charged(t, "profile_posts", r, len(b.Data))
		})

		t.Run("after keeps only newer posts", func(t *testing.T) {
			if len(firstPage) < 6 {
				t.Skip("too few posts")
			}
			cut := firstPage[4].PostedDateTimestamp
			after := time.UnixMilli(cut).UTC().Format(time.RFC3339Nano)
			r := post(t, c, "/v1/profile/posts", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe", "after": after})
			var a profilePostsAnswer
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil {
				t.Fatalf("after = %d %s", r.Status, r.Body)
			}
			got := decodePosts(t, a.Data)
			if len(got) < 4 {
				t.Fatalf("after the 5th post: got %d posts, want at least the 4 newer ones", len(got))
			}
			for _, p := range got {
				if p.PostedDateTimestamp <= cut {
					t.Fatalf("post at %d is not after %s", p.PostedDateTimestamp, after)
				}
			}
			if a.PaginationToken != nil {
				t.Fatalf("older posts were cut, yet a paginationToken was returned")
			}
			charged(t, "profile_posts", r, len(got))
		})

		t.Run("nothing found charges nothing", func(t *testing.T) {
			r := post(t, c, "/v1/profile/posts", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe", "after": "2999-01-01T00:00:00Z"})
			if r.Status != 200 || !strings.Contains(string(r.Body), `"data":[]`) || !strings.Contains(string(r.Body), `"paginationToken":null`) {
				t.Fatalf("future after = %d %s", r.Status, r.Body)
			}
			charged(t, "profile_posts", r, 0)
		})

		var commentedPost string
		t.Run("company posts", func(t *testing.T) {
			r := post(t, c, "/v1/company/posts", map[string]any{"companyUrl": "https://www.linkedin.com/company/acme/posts/"})
			var a profilePostsAnswer
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || !a.Success || len(a.Data) == 0 || len(a.Data) > 50 {
				t.Fatalf("company posts = %d %.300s", r.Status, r.Body)
			}
			if strings.Contains(string(r.Body), "paginationToken") {
				t.Fatalf("company posts are not paginated, yet the answer has a token")
			}
			checkPostRecord(t, a.Data[0])
			charged(t, "company_posts", r, len(a.Data))
			for _, p := range append(decodePosts(t, a.Data), firstPage...) {
				if p.CommentsCount > 0 {
					commentedPost = p.URN
					break
				}
			}
		})

		t.Run("company comments", func(t *testing.T) {
			if commentedPost == "" {
				t.Skip("no post with comments")
			}
			r := post(t, c, "/v1/company/comments", map[string]any{"postUrn": commentedPost})
			var a struct {
				Data struct {
					Comments    []map[string]any `json:"comments"`
					Total       int              `json:"total"`
					TotalPage   int              `json:"totalPage"`
					CurrentPage int              `json:"currentPage"`
				} `json:"data"`
			}
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || len(a.Data.Comments) == 0 || a.Data.CurrentPage != 1 || a.Data.Total < len(a.Data.Comments) || a.Data.TotalPage < 1 {
				t.Fatalf("comments = %d %.400s", r.Status, r.Body)
			}
			cm := a.Data.Comments[0]
			if k := missingKey(cm, "isPinned", "isEdited", "threadUrn", "urn", "createdAtString", "permalink", "text", "createdAt", "author", "totalSocialActivityCounts", "replies"); k != "" {
				t.Fatalf("comment lacks %s: %v", k, cm)
			}
			author, _ := cm["author"].(map[string]any)
			if k := missingKey(author, "name", "urn", "id", "username", "pronetUrl", "title"); k != "" {
				t.Fatalf("comment author lacks %s: %v", k, author)
			}
			counts, _ := cm["totalSocialActivityCounts"].(map[string]any)
			if k := missingKey(counts, "numComments", "likeCount", "appreciationCount", "empathyCount", "InterestCount", "praiseCount", "funnyCount", "maybeCount", "totalReactionCount", "numShares"); k != "" {
				t.Fatalf("comment counts lack %s: %v", k, counts)
			}
			charged(t, "company_comments", r, len(a.Data.Comments))

			// A page past the end is empty and free; the URN form of the id is accepted.
			r = post(t, c, "/v1/company/comments", map[string]any{"postUrn": "urn:li:activity:" + commentedPost, "page": a.Data.TotalPage + 1})
			if err := json.Unmarshal(r.Body, &a); r.Status != 200 || err != nil || len(a.Data.Comments) != 0 || a.Data.CurrentPage != a.Data.TotalPage+1 {
				t.Fatalf("page past the end = %d %.300s", r.Status, r.Body)
			}
			charged(t, "company_comments", r, 0)
		})

		// The README's example and any id copied from a real post URL name a real post (this one
		// is of 2024-11-16): it has comments, as any old post does.
		t.Run("company comments of a real activity id", func(t *testing.T) {
			const id = "7263450183458918400"
			posted := time.Date(2024, 11, 16, 7, 17, 52, 0, time.UTC)
			for _, urn := range []string{id, "urn:li:activity:" + id, "https://www.linkedin.com/feed/update/urn:li:activity:" + id + "/"} {
				r := post(t, c, "/v1/company/comments", map[string]any{"postUrn": urn})
				var a struct {
					Success bool `json:"success"`
					Data    struct {
						Comments []struct {
							URN       string `json:"urn"`
							CreatedAt int64  `json:"createdAt"`
							Permalink string `json:"permalink"`
						} `json:"comments"`
						Total int `json:"total"`
					} `json:"data"`
				}
				if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil || !a.Success || len(a.Data.Comments) == 0 || a.Data.Total < len(a.Data.Comments) {
					t.Fatalf("comments of %s = %d %.400s", urn, r.Status, r.Body)
				}
				for _, cm := range a.Data.Comments {
					if !strings.HasPrefix(cm.URN, "urn:li:comment:(activity:"+id+",") || !strings.Contains(cm.Permalink, "urn:li:activity:"+id) {
						t.Fatalf("comment of another post: %+v", cm)
					}
					if at := time.UnixMilli(cm.CreatedAt); at.Before(posted) || at.After(posted.AddDate(0, 2, 0)) {
						t.Fatalf("comment created %v on a post of %v", at.UTC(), posted)
					}
				}
				charged(t, "company_comments", r, len(a.Data.Comments))
			}
		})

		t.Run("profile enrich", func(t *testing.T) {
			r := post(t, c, "/v1/profile/enrich", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe"})
			var a struct {
				Data struct {
					Prospect   map[string]any   `json:"prospect"`
					Experience []map[string]any `json:"experience"`
				} `json:"data"`
			}
			if r.Status != 200 || json.Unmarshal(r.Body, &a) != nil {
				t.Fatalf("enrich = %d %s", r.Status, r.Body)
			}
			p := a.Data.Prospect
			if k := missingKey(p, "gender", "job_title_role", "job_title_sub_role", "summary", "avatar", "first_name", "last_name",
				"full_name", "job_company_name", "job_title", "job_company_website", "industry", "location_name", "location_country",
				"pronet_url", "pronet_urn", "job_title_levels", "languages", "open_to_work", "premium", "influencer",
				"follower_count", "connection_count"); k != "" {
				t.Fatalf("prospect lacks %s: %s", k, r.Body)
			}
			if urn, _ := p["pronet_urn"].(string); !strings.HasPrefix(urn, "urn:li:") {
				t.Fatalf("pronet_urn = %v", p["pronet_urn"])
			}
			if p["pronet_url"] != "https://www.linkedin.com/in/jane-doe" || p["full_name"] == "" {
				t.Fatalf("prospect = %v", p)
			}
			if len(a.Data.Experience) == 0 || missingKey(a.Data.Experience[0], "company_name", "job_title", "location", "start_date", "end_date", "company_logo") != "" {
				t.Fatalf("experience = %v", a.Data.Experience)
			}
			charged(t, "profile_enrich", r, 1)
		})

		t.Run("upstream failures charge nothing", func(t *testing.T) {
			for _, c2 := range []struct {
				path, field, value string
				status             int
				code               string
			}{
				{"/v1/profile/enrich", "profileUrl", "https://www.linkedin.com/in/missing-x", 404, "NOT_FOUND"},
				{"/v1/profile/enrich", "profileUrl", "https://www.linkedin.com/in/error-x", 500, "UPSTREAM_ERROR"},
				{"/v1/profile/enrich", "profileUrl", "https://www.linkedin.com/in/ratelimited-x", 429, "RATE_LIMITED"},
				{"/v1/profile/posts", "profileUrl", "https://www.linkedin.com/in/missing-x", 404, "NOT_FOUND"},
				{"/v1/profile/posts", "profileUrl", "https://www.linkedin.com/in/ratelimited-x", 429, "RATE_LIMITED"},
				{"/v1/company/posts", "companyUrl", "https://www.linkedin.com/company/error-x", 502, "UPSTREAM_ERROR"},
				{"/v1/company/posts", "companyUrl", "https://www.linkedin.com/company/missing-x", 404, "NOT_FOUND"},
				{"/v1/company/comments", "postUrn", "urn:li:activity:9" + strings.Repeat("9", 18), 404, "NOT_FOUND"},
			} {
				r := post(t, c, c2.path, map[string]any{c2.field: c2.value})
				if want.emptyNotMissing[c2.path+" "+c2.value] {
					if r.Status != 200 || !strings.Contains(string(r.Body), `[]`) || r.Header.Get("x-spent-credits") != "0" {
						t.Errorf("%s %s on %s = %d %s, want an empty list charging nothing", c2.path, c2.value, provider, r.Status, r.Body)
					}
					continue
				}
				e := r.Err()
				if e == nil || e.Status != c2.status || e.Code != c2.code || e.Message == "" {
					t.Errorf("%s %s = %d %s, want %d %s", c2.path, c2.value, r.Status, r.Body, c2.status, c2.code)
					continue
				}
				if got := r.Header.Get("x-spent-credits"); got != "0" {
					t.Errorf("%s %s: x-spent-credits = %q, want 0 on an answer that charged nothing", c2.path, c2.value, got)
				}
				if e.Status == 429 {
					if secs, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || secs < 1 {
						t.Errorf("%s: Retry-After = %q", c2.value, r.Header.Get("Retry-After"))
					} else if e.RetryAfterSeconds == nil || *e.RetryAfterSeconds != int64(secs) {
						t.Errorf("%s: error.retryAfterSeconds of %s, want %d", c2.value, r.Body, secs)
					}
				}
			}
			u := usageOf(t, c)
			for f, want := range byFeature {
				if u.Credits.ByFeature[f] != want {
					t.Errorf("after failures, usage %s = %d, want %d", f, u.Credits.ByFeature[f], want)
				}
			}
		})

		t.Run("bad bodies name the field", func(t *testing.T) {
			for _, b := range []struct {
				path, body, field string
			}{
				{"/v1/profile/posts", `{}`, "body.profileUrl"},
				{"/v1/profile/posts", `{"profileUrl": ""}`, "body.profileUrl"},
				{"/v1/profile/posts", `{"profileUrl": "https://www.linkedin.com/company/acme"}`, "body.profileUrl"},
				{"/v1/profile/posts", `{"profileUrl": "https://example.com/in/jane"}`, "body.profileUrl"},
				{"/v1/profile/posts", `{"profileUrl": "https://www.linkedin.com/in/jane", "page": -1}`, "body.page"},
				{"/v1/profile/posts", `{"profileUrl": "https://www.linkedin.com/in/jane", "page": "2"}`, "body.page"},
				{"/v1/profile/posts", `{"profileUrl": "https://www.linkedin.com/in/jane", "after": "yesterday"}`, "body.after"},
				{"/v1/profile/posts", `{"profileUrl": "https://www.linkedin.com/in/jane", "after": "2026-11-01"}`, "body.after"},
				{"/v1/profile/posts", `{"profileUrl": "https://www.linkedin.com/in/jane", "colour": "red"}`, "body.colour"},
				{"/v1/company/posts", `{"companyUrl": "acme"}`, "body.companyUrl"},
				{"/v1/company/posts", `{"companyUrl": "https://www.linkedin.com/in/jane"}`, "body.companyUrl"},
				{"/v1/company/posts", `{}`, "body.companyUrl"},
				{"/v1/company/comments", `{"postUrn": ""}`, "body.postUrn"},
				{"/v1/company/comments", `{"postUrn": "abc"}`, "body.postUrn"},
				{"/v1/company/comments", `{"postUrn": "7262340993178763264", "page": 0}`, "body.page"},
				{"/v1/company/comments", `{"postUrn": "7262340993178763264", "unknown": 1}`, "body.unknown"},
				{"/v1/profile/enrich", `{"profileUrl": "jane-doe"}`, "body.profileUrl"},
				{"/v1/profile/enrich", `{"profileUrl": "https://www.linkedin.com/in/jane", "extra": true}`, "body.extra"},
			} {
				r := post(t, c, b.path, b.body)
				e := r.Err()
				if e == nil || e.Status != 400 || e.Code != "VALIDATION_ERROR" || !e.HasField(b.field) {
					t.Errorf("%s %s = %d %s, want 400 naming %s", b.path, b.body, r.Status, r.Body, b.field)
				}
				if got := r.Header.Get("x-spent-credits"); got != "0" {
					t.Errorf("%s %s: x-spent-credits = %q, want 0 on a refused request", b.path, b.body, got)
				}
			}
			r := post(t, c, "/v1/profile/posts", `{"profileUrl": `)
			if e := r.Err(); e == nil || e.Status != 400 || e.Code != "BAD_REQUEST" {
				t.Errorf("malformed JSON = %d %s", r.Status, r.Body)
			}
		})

		t.Run("permissions and plans", func(t *testing.T) {
			starter := newAccountKey(t, ts, "STARTER", "", "*")
			if r := post(t, starter, "/v1/profile/posts", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe"}); r.Err() == nil || r.Err().Status != 403 || r.Err().Code != "PLAN_REQUIRED" {
				t.Errorf("STARTER profile posts = %d %s", r.Status, r.Body)
			}
			if r := post(t, starter, "/v1/company/posts", map[string]any{"companyUrl": "https://www.linkedin.com/company/acme"}); r.Status != 200 {
				t.Errorf("STARTER company posts = %d %.300s", r.Status, r.Body)
			}
			enterprise := newAccountKey(t, ts, "ENTERPRISE", "", "track:profile:posts")
			if r := post(t, enterprise, "/v1/profile/posts", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe", "after": "2999-01-01T00:00:00Z"}); r.Status != 200 {
				t.Errorf("ENTERPRISE profile posts = %d %.300s", r.Status, r.Body)
			}
			narrow := newAccountKey(t, ts, "CUSTOM", "", "searches:read")
			for path, body := range map[string]map[string]any{
				"/v1/profile/posts":    {"profileUrl": "https://www.linkedin.com/in/jane-doe"},
				"/v1/company/posts":    {"companyUrl": "https://www.linkedin.com/company/acme"},
				"/v1/company/comments": {"postUrn": "7262340993178763264"},
				"/v1/profile/enrich":   {"profileUrl": "https://www.linkedin.com/in/jane-doe"},
			} {
				r := post(t, narrow, path, body)
				if e := r.Err(); e == nil || e.Status != 403 || e.Code != "FORBIDDEN" || !e.HasField("header.x-api-key") {
					t.Errorf("%s without permission = %d %s", path, r.Status, r.Body)
				}
			}
		})

		t.Run("a balance that cannot cover every post charges nothing", func(t *testing.T) {
			poor := newAccountKey(t, ts, "CUSTOM", "3", "*")
			r := post(t, poor, "/v1/profile/posts", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe"})
			if e := r.Err(); e == nil || e.Status != 403 || e.Code != "INSUFFICIENT_CREDITS" {
				t.Fatalf("profile posts beyond the balance = %d %.300s", r.Status, r.Body)
			}
			if u := usageOf(t, poor); u.Credits.TotalConsumed != 0 {
				t.Fatalf("a refused lookup spent %d credits", u.Credits.TotalConsumed)
			}
			// One credit still covers an enrichment.
			if r := post(t, poor, "/v1/profile/enrich", map[string]any{"profileUrl": "https://www.linkedin.com/in/jane-doe"}); r.Status != 200 || spentHeader(r) != 1 {
				t.Fatalf("enrich with credits left = %d %.300s", r.Status, r.Body)
			}
		})

		if u := usageOf(t, c); u.Monitors.Total != 0 {
			t.Errorf("live lookups created %d monitors", u.Monitors.Total)
		}
	})
}

// newAccountKey creates an account on plan (with a credits override unless "") and a key with
// perms, through the CLI, and returns a client that uses the key.
func newAccountKey(t *testing.T, ts *testServer, plan, creditsOverride, perms string) *client.Client {
	t.Helper()
	args := []string{"accounts", "create", "--name", "lookups-" + strings.ToLower(plan), "--plan", plan, "--json"}
	if creditsOverride != "" {
		args = append(args, "--credits", creditsOverride)
	}
	out, err := ts.cli(t, args...)
	if err != nil {
		t.Fatalf("accounts create: %v\n%s", err, out)
	}
	var acct struct{ ID string }
	if err := json.Unmarshal([]byte(out), &acct); err != nil {
		t.Fatalf("accounts create printed %q", out)
	}
	out, err = ts.cli(t, "keys", "create", "--account", acct.ID, "--permissions", perms, "--json")
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, out)
	}
	var key struct{ Key string }
	if err := json.Unmarshal([]byte(out), &key); err != nil {
		t.Fatalf("keys create printed %q", out)
	}
	return ts.Client.WithKey(key.Key)
}

package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// Prices of the fake vendor, per call, in micros: uneven, so that a split or a lost call shows.
const (
	priceProfilePosts = 1500
	pricePost         = 700
	priceSearch       = 1000
	priceReactions    = 301
	priceComments     = 200
	priceProfile      = 4001
)

// costlyPronet is a pronet.Provider that bills every call at a known price, the failed
// ones included, as a vendor that charges per call does; billed adds up what it billed.
type costlyPronet struct {
	mu     sync.Mutex
	billed source.Micros
	// failComments names the post whose comments fail (after its call was billed).
	failComments string
	// missingProfile names the member whose profile is not found (after its call was billed).
	missingProfile string
}

func (f *costlyPronet) bill(ctx context.Context, m source.Micros) {
	source.AddCost(ctx, m)
	f.mu.Lock()
	f.billed += m
	f.mu.Unlock()
}

func (f *costlyPronet) total() source.Micros {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.billed
}

func (f *costlyPronet) Name() string                { return "costly" }
func (f *costlyPronet) Check(context.Context) error { return nil }

func costlyPost(urn string, member int) pronet.Post {
	return pronet.Post{Text: "revops " + urn, EntityType: "post", URN: urn, PostURL: "https://www.linkedin.com/feed/update/urn:li:activity:" + urn + "/",
		PostedDateTimestamp: time.Now().Add(-time.Hour).UnixMilli(),
		Author: pronet.PostAuthor{FirstName: "M", LastName: strconv.Itoa(member), Username: "m" + strconv.Itoa(member),
			URL: "https://www.linkedin.com/in/m" + strconv.Itoa(member), URN: "urn:li:member:" + strconv.Itoa(member)}}
}

func (f *costlyPronet) ProfilePosts(ctx context.Context, _ pronet.ProfilePostsParams) ([]pronet.Post, string, error) {
	f.bill(ctx, priceProfilePosts)
	return []pronet.Post{costlyPost("7300000000000000001", 1), costlyPost("7300000000000000002", 1)}, "", nil
}

func (f *costlyPronet) CompanyPosts(context.Context, string) ([]pronet.Post, error) {
	return nil, errors.New("costly: not used")
}

func (f *costlyPronet) Post(ctx context.Context, urn string) (pronet.Post, error) {
	f.bill(ctx, pricePost)
	return pronet.Post{}, fmt.Errorf("costly: post %s: %w", urn, source.ErrNotFound)
}

// SearchPosts answers two pages of two posts.
func (f *costlyPronet) SearchPosts(ctx context.Context, p pronet.SearchParams) (pronet.SearchPage, error) {
	f.bill(ctx, priceSearch)
	page := max(p.Page, 1)
	if page > 2 {
		return pronet.SearchPage{TotalPage: 2, CurrentPage: page}, nil
	}
	a, b := 2*page-1, 2*page
	return pronet.SearchPage{Items: []pronet.Post{costlyPost("720000000000000000"+strconv.Itoa(a), a), costlyPost("720000000000000000"+strconv.Itoa(b), b)},
		Total: 4, TotalPage: 2, CurrentPage: page}, nil
}

func (f *costlyPronet) Reactions(ctx context.Context, urn string, page, _ int) (pronet.ReactionsPage, error) {
	f.bill(ctx, priceReactions)
	return pronet.ReactionsPage{Items: []pronet.Reactor{{URN: "urn:li:member:90", Username: "ann-lee", FullName: "Ann Lee", Headline: "RevOps", ReactionType: "LIKE"}},
		Total: 1, TotalPage: 1, CurrentPage: page}, nil
}

func (f *costlyPronet) Comments(ctx context.Context, urn string, page, _ int) (pronet.CommentsPage, error) {
	f.bill(ctx, priceComments)
	if urn == f.failComments {
		return pronet.CommentsPage{}, errors.New("costly: comments unavailable")
	}
	return pronet.CommentsPage{Comments: pronet.List[pronet.Comment]{{URN: "urn:li:comment:" + urn, Text: "agreed", CreatedAt: time.Now().Add(-time.Minute).UnixMilli(),
		Author: pronet.CommentAuthor{Name: "Bo Ng", URN: "urn:li:member:91", Username: "bo-ng", Title: "RevOps"}}}, Total: 1, TotalPage: 1, CurrentPage: page}, nil
}

func (f *costlyPronet) Profile(ctx context.Context, username string) (pronet.Profile, error) {
	f.bill(ctx, priceProfile)
	if username == f.missingProfile {
		return pronet.Profile{}, fmt.Errorf("costly: profile %s: %w", username, source.ErrNotFound)
	}
	return pronet.Profile{Username: username, FirstName: "F", LastName: username, Headline: "RevOps"}, nil
}

var _ pronet.Provider = (*costlyPronet)(nil)

// TestUpstreamCostIsRecorded drives a lookup, a failed lookup, a pronet saved search's run
// and the collection of two topics sharing their posts (a hydration failing after billed
// calls), and the profile reads of the search's authors and of the topics' engagers (one
// not found, billed all the same), through a vendor with known prices: the ledger,
// GET /v1/usage, the hosted ledger and the topic credits summary show what the vendor
// billed, to the micro.
func TestUpstreamCostIsRecorded(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) { testUpstreamCost(t, engine) })
	}
}

func testUpstreamCost(t *testing.T, engine store.Dialect) {
	ctx := context.Background()
	st := storetest.Open(t, engine, nil)
	vendor := &costlyPronet{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := &config.Config{RateLimitStarter: 1 << 30, RateLimitEnterprise: 1 << 30, RateLimitCustom: 1 << 30,
		CreditsCustom: 1 << 40, PronetHosts: []string{"linkedin.com"}}
	srv := New(Deps{Config: cfg, Store: st, Log: log, Now: time.Now, Pronet: vendor})
	a := auth.Account{Name: "costs", Plan: auth.PlanCustom}
	if err := st.CreateAccount(ctx, &a); err != nil {
		t.Fatal(err)
	}
	key, err := st.CreateKey(ctx, &auth.Key{AccountID: a.ID, Permissions: []auth.Permission{auth.PermAll}})
	if err != nil {
		t.Fatal(err)
	}
	call := func(method, path, body string) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-api-key", key)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}

	// A lookup: 2 credits, one billed call.
	if rec := call(http.MethodPost, "/v1/profile/posts", `{"profileUrl": "https://www.linkedin.com/in/jane-doe"}`); rec.Code != http.StatusOK || rec.Header().Get(spentCreditsHeader) != "2" {
		t.Fatalf("profile posts: %d %s %s", rec.Code, rec.Header().Get(spentCreditsHeader), rec.Body)
	}
	// A failed lookup the vendor billed: no credits, its cost recorded all the same.
	if rec := call(http.MethodPost, "/v1/post/by-url", `{"postUrl": "7262340993178763264"}`); rec.Code != http.StatusNotFound || rec.Header().Get(spentCreditsHeader) != "0" {
		t.Fatalf("missing post: %d %s %s", rec.Code, rec.Header().Get(spentCreditsHeader), rec.Body)
	}

	// A pronet saved search's run.
	d, ps := search.PronetPosts{Keywords: []string{"revops"}, TimeFrame: "past-week", MaxResults: 30}.Definition(search.Rules{})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	s := &search.Search{AccountID: a.ID, Name: "revops", Kind: search.KindPronetPosts, Status: search.StatusActive, Definition: d}
	if err := st.CreateSearch(ctx, s, credits.Charge{AccountID: a.ID, Feature: credits.SearchCreate, Amount: 1, Allocation: 1 << 40}, 0); err != nil {
		t.Fatal(err)
	}
	before := vendor.total()
	sc := &search.Collector{Repo: st, Pronet: vendor, People: st, Now: time.Now, Log: log}
	if _, err := sc.Run(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	searchCost := vendor.total() - before
	if searchCost == 0 {
		t.Fatal("the search run made no billed call")
	}
	tc := &topic.Collector{Repo: st, Pronet: vendor, Now: time.Now, Log: log, Lease: time.Hour,
		Allocation: func(auth.Account) int64 { return 1 << 40 }}
	// The profiles of the authors of the run's one page (two), whom no topic shows yet:
	// the search's.
	before = vendor.total()
	if _, err := tc.RefreshProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	if got := vendor.total() - before; got != 2*priceProfile {
		t.Fatalf("reading the authors' profiles billed %d, want %d", got, 2*priceProfile)
	}
	searchCost += 2 * priceProfile

	// Two topics of the account find the same four posts; the comments of one fail.
	before = vendor.total()
	vendor.failComments = "7200000000000000004"
	var topics []*topic.Topic
	for _, name := range []string{"one", "two"} {
		tp := &topic.Topic{AccountID: a.ID, Name: name, Definition: topic.Definition{Keywords: []string{"revops"},
			TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
		if err := st.CreateTopic(ctx, tp, 0); err != nil {
			t.Fatal(err)
		}
		if out, err := tc.Discover(ctx, tp.ID); err != nil || out.Linked != 4 {
			t.Fatalf("discovery of %s: %+v, %v", name, out, err)
		}
		topics = append(topics, tp)
	}
	for i := 1; i <= 4; i++ {
		urn := "720000000000000000" + strconv.Itoa(i)
		_, err := tc.Hydrate(ctx, urn)
		if (err != nil) != (urn == vendor.failComments) {
			t.Fatalf("hydration of %s: %v", urn, err)
		}
	}
	// The people both topics share: the authors the search had not seen (two) and the
	// engagers (two, one not found).
	vendor.missingProfile = "bo-ng"
	if _, err := tc.RefreshProfiles(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := vendor.total()-before, source.Micros(2*2*priceSearch+4*(priceReactions+priceComments)+4*priceProfile); got != want {
		t.Fatalf("topics billed %d, want %d", got, want)
	}
	// Each topic pays its discovery; a hydration (501) and a profile read (4001) are
	// split, the first topic by id taking the odd micro.
	first, second := topics[0], topics[1]
	if second.ID < first.ID {
		first, second = second, first
	}
	wantInitial := map[string]source.Micros{
		first.ID:  2*priceSearch + 4*251,
		second.ID: 2*priceSearch + 4*250,
	}
	wantProfiles := map[string]source.Micros{first.ID: 4 * 2001, second.ID: 4 * 2000}
	want := map[string]source.Micros{
		first.ID:  wantInitial[first.ID] + wantProfiles[first.ID],
		second.ID: wantInitial[second.ID] + wantProfiles[second.ID],
	}
	for _, tp := range topics {
		rec := call(http.MethodGet, "/v1/topics/"+tp.ID+"/credits-summary", "")
		if rec.Code != http.StatusOK {
			t.Fatalf("credits summary: %d %s", rec.Code, rec.Body)
		}
		var body struct {
			Data struct {
				UpstreamCost string `json:"upstream_cost_usd"`
				Profiles     string `json:"profiles_upstream_cost_usd"`
				ByInterval   []struct {
					Interval     string `json:"interval"`
					UpstreamCost string `json:"upstream_cost_usd"`
				} `json:"engagement_credits_by_interval"`
			} `json:"data"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if body.Data.UpstreamCost != want[tp.ID].USD() {
			t.Errorf("topic %s: upstream_cost_usd %s, want %s", tp.Name, body.Data.UpstreamCost, want[tp.ID].USD())
		}
		if body.Data.Profiles != wantProfiles[tp.ID].USD() {
			t.Errorf("topic %s: profiles_upstream_cost_usd %s, want %s", tp.Name, body.Data.Profiles, wantProfiles[tp.ID].USD())
		}
		for _, iv := range body.Data.ByInterval {
			w := source.Micros(0).USD()
			if iv.Interval == string(topic.Initial) {
				w = wantInitial[tp.ID].USD()
			}
			if iv.UpstreamCost != w {
				t.Errorf("topic %s, interval %s: upstream_cost_usd %s, want %s", tp.Name, iv.Interval, iv.UpstreamCost, w)
			}
		}
	}

	// The ledger: the lookup's spend carries its cost.
	entries, _, err := st.Ledger(ctx, a.ID, time.Now().Add(-time.Hour), 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range entries {
		if e.Feature == credits.ProfilePosts {
			found = e.Amount == 2 && e.UpstreamCostMicros == priceProfilePosts
		}
	}
	if !found {
		t.Errorf("no profile_posts spend of 2 credits costing %d in %+v", priceProfilePosts, entries)
	}
	rec := call(http.MethodGet, "/v1/credits/usage", "")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"upstream_cost_usd":"0.001500"`) {
		t.Errorf("hosted ledger: %d %s", rec.Code, rec.Body)
	}

	// GET /v1/usage: everything the vendor billed, per feature.
	rec = call(http.MethodGet, "/v1/usage", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("usage: %d %s", rec.Code, rec.Body)
	}
	var usage struct {
		Data struct {
			Credits struct {
				TotalConsumed int64             `json:"total_consumed"`
				UpstreamCost  string            `json:"upstream_cost_usd"`
				ByFeature     map[string]string `json:"upstream_cost_by_feature"`
			} `json:"credits"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &usage); err != nil {
		t.Fatal(err)
	}
	u := usage.Data.Credits
	if u.UpstreamCost != vendor.total().USD() {
		t.Errorf("usage upstream_cost_usd %s, want all the vendor billed, %s", u.UpstreamCost, vendor.total().USD())
	}
	wantFeatures := map[string]source.Micros{
		"profile_posts": priceProfilePosts,
		"post_lookups":  pricePost,
		"search_create": searchCost,
		"social_topics": want[first.ID] + want[second.ID],
		"company_posts": 0,
	}
	for f, w := range wantFeatures {
		if u.ByFeature[f] != w.USD() {
			t.Errorf("usage upstream_cost_by_feature[%s] = %q, want %s", f, u.ByFeature[f], w.USD())
		}
	}
	if len(u.ByFeature) != len(credits.Features()) {
		t.Errorf("usage lists %d features' costs, want all %d", len(u.ByFeature), len(credits.Features()))
	}
}

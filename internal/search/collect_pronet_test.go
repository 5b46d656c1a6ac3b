package search_test

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// memRepo keeps one search and its results in memory.
type memRepo struct {
	mu      sync.Mutex
	s       search.Search
	results map[string]bool
}

func (r *memRepo) SearchByID(context.Context, string) (search.Search, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.s, nil
}
func (r *memRepo) SetProfileUserID(context.Context, string, string) error { return nil }
func (r *memRepo) RecordFailure(context.Context, string, time.Time, string, bool, time.Time) error {
	return nil
}
func (r *memRepo) RecordCost(context.Context, credits.Cost) error { return nil }
func (r *memRepo) ClaimDue(context.Context, time.Time, time.Duration, int) ([]string, error) {
	return nil, nil
}
func (r *memRepo) SaveRun(_ context.Context, run search.Run) (search.Outcome, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out search.Outcome
	for _, it := range run.Items {
		if !r.results[it.ID] {
			r.results[it.ID] = true
			out.NewResults++
		}
	}
	r.s.Watermark = run.NewestID
	out.TotalResults = int64(len(r.results))
	return out, nil
}

// fakePronet publishes one post a minute, newest first, by authors a0…a4
// (author i holds title titles[i]).
type fakePronet struct {
	mu       sync.Mutex
	now      func() time.Time
	start    time.Time
	searches []pronet.SearchParams
	profile  []pronet.ProfilePostsParams
	// ignoreAfter makes the profile endpoint answer as if it had no after.
	ignoreAfter bool
	// profileURNs keys the authors as the vendors do (urn:li:fsd_profile:ACoAA…).
	profileURNs bool
}

var titles = []string{"VP Sales", "CTO", "Head of Sales", "Recruiter", "Founder"}

func (f *fakePronet) posts(after time.Time) []pronet.Post {
	var out []pronet.Post
	for t := f.now().Truncate(time.Minute); !t.Before(f.start); t = t.Add(-time.Minute) {
		if !t.After(after) {
			break
		}
		n := int(t.Sub(f.start) / time.Minute)
		a := n % 5
		urn := "urn:li:member:" + strconv.Itoa(a)
		if f.profileURNs {
			urn = "urn:li:fsd_profile:ACoAA" + strconv.Itoa(a)
		}
		out = append(out, pronet.Post{URN: strconv.FormatUint(uint64(t.UnixMilli())<<22|uint64(n), 10), PostedDateTimestamp: t.UnixMilli(),
			Text: "post " + strconv.Itoa(n), Author: pronet.PostAuthor{URN: urn, Username: "a" + strconv.Itoa(a),
				FirstName: "A", LastName: strconv.Itoa(a), Headline: titles[a]}})
	}
	return out
}

func (f *fakePronet) SearchPosts(_ context.Context, p pronet.SearchParams) (pronet.SearchPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searches = append(f.searches, p)
	var all []pronet.Post
	for _, post := range f.posts(time.Time{}) {
		if p.AuthorTitle == "" || containsFold(post.Author.Headline, p.AuthorTitle) {
			all = append(all, post)
		}
	}
	lo := min((p.Page-1)*pronet.SearchPageSize, len(all))
	return pronet.SearchPage{Items: all[lo:min(lo+pronet.SearchPageSize, len(all))], Total: len(all),
		TotalPage: (len(all) + 9) / 10, CurrentPage: p.Page}, nil
}

func (f *fakePronet) ProfilePosts(_ context.Context, p pronet.ProfilePostsParams) ([]pronet.Post, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.profile = append(f.profile, p)
	after := p.After
	if f.ignoreAfter {
		after = time.Time{}
	}
	all := f.posts(after)
	start, _ := strconv.Atoi(p.PaginationToken)
	page := all[min(start, len(all)):min(start+7, len(all))]
	next := ""
	if start+7 < len(all) {
		next = strconv.Itoa(start + 7)
	}
	return page, next, nil
}

func containsFold(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s == sub || indexFold(s, sub) >= 0)
}

func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		match := true
		for j := 0; j < len(sub); j++ {
			a, b := s[i+j]|0x20, sub[j]|0x20
			if a != b {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// fakePeople knows the titles and followers of a0 and a1, and that a2 now
// works as a Recruiter (its posts say otherwise).
type fakePeople struct{ seen []search.PronetAuthor }

func (p *fakePeople) KnownAuthors(_ context.Context, urns []string) (map[string]search.KnownAuthor, error) {
	ten := 10
	known := map[string]search.KnownAuthor{
		"urn:li:member:0": {JobTitle: "VP Sales", TitleKnown: true, Followers: &ten},
		"urn:li:member:2": {JobTitle: "Recruiter", TitleKnown: true},
		"urn:li:member:3": {JobTitle: ""}, // seen, profile not read yet
	}
	out := map[string]search.KnownAuthor{}
	for _, u := range urns {
		if a, ok := known[u]; ok {
			out[u] = a
		}
	}
	return out, nil
}

func (p *fakePeople) SeePronetAuthors(_ context.Context, authors []search.PronetAuthor, _ time.Time) error {
	p.seen = append(p.seen, authors...)
	return nil
}

func newPronetFixture(kind search.Kind, d search.Definition) (*search.Collector, *memRepo, *fakePronet, *fakePeople, *time.Time) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	clock := &now
	fp := &fakePronet{now: func() time.Time { return *clock }, start: now.Add(-8 * 24 * time.Hour)}
	repo := &memRepo{s: search.Search{ID: "s", Kind: kind, Status: search.StatusActive, Definition: d}, results: map[string]bool{}}
	people := &fakePeople{}
	c := &search.Collector{Repo: repo, Pronet: fp, People: people, Now: fp.now, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return c, repo, fp, people, clock
}

func TestPronetSearchAsksOnlyForWhatIsNew(t *testing.T) {
	d, ps := search.PronetPosts{Keywords: []string{"crm"}, TimeFrame: "past-month", MaxResults: 30}.Definition(search.Rules{})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	c, _, fp, people, clock := newPronetFixture(search.KindPronetPosts, d)
	out, err := c.Run(context.Background(), "s")
	if err != nil || out.NewResults != 30 {
		t.Fatalf("first run = %+v, %v", out, err)
	}
	if len(fp.searches) != 3 || fp.searches[0].DatePosted != "past-month" || fp.searches[0].Keywords != `"crm"` || fp.searches[0].SortBy != "date_posted" {
		t.Fatalf("first run asked %+v", fp.searches)
	}
	if len(people.seen) != 5 {
		t.Fatalf("authors noted: %+v", people.seen)
	}
	// Three minutes later: three new posts, one page, the narrowest window.
	*clock = clock.Add(3 * time.Minute)
	fp.searches = nil
	out, err = c.Run(context.Background(), "s")
	if err != nil || out.NewResults != 3 {
		t.Fatalf("second run = %+v, %v", out, err)
	}
	if len(fp.searches) != 1 || fp.searches[0].DatePosted != "past-24h" || fp.searches[0].Page != 1 {
		t.Fatalf("second run asked %+v", fp.searches)
	}
}

// TestPronetSearchNotesVendorAuthors: the vendors key people by profile URN, not member URN;
// their authors are noted as people all the same.
func TestPronetSearchNotesVendorAuthors(t *testing.T) {
	d, _ := search.PronetPosts{Keywords: []string{"crm"}, TimeFrame: "past-month", MaxResults: 30}.Definition(search.Rules{})
	c, _, fp, people, _ := newPronetFixture(search.KindPronetPosts, d)
	fp.profileURNs = true
	if _, err := c.Run(context.Background(), "s"); err != nil {
		t.Fatal(err)
	}
	if len(people.seen) != 5 {
		t.Fatalf("authors noted: %+v", people.seen)
	}
	for _, a := range people.seen {
		if !strings.HasPrefix(a.URN, "urn:li:fsd_profile:ACoAA") || a.Username == "" {
			t.Errorf("author noted as %+v", a)
		}
	}
}

func TestPronetSearchJobTitles(t *testing.T) {
	d, _ := search.PronetPosts{MentionsMember: []string{"urn:li:member:9"}, JobTitles: []string{"sales", "recruiter"}, MaxResults: 20}.Definition(search.Rules{})
	c, repo, fp, _, _ := newPronetFixture(search.KindPronetPosts, d)
	items, err := c.Preview(context.Background(), repo.s)
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]bool{}
	for _, p := range fp.searches {
		asked[p.AuthorTitle] = true
		if p.Keywords != "" || len(p.MentionsMember) != 1 {
			t.Fatalf("asked %+v", p)
		}
	}
	if len(asked) != 2 || !asked["sales"] || !asked["recruiter"] {
		t.Fatalf("titles asked: %v", asked)
	}
	byAuthor := map[string]int{}
	for _, it := range items {
		byAuthor[it.Author.Username]++
		if it.Author.Username == "a0" && (it.Author.Followers == nil || *it.Author.Followers != 10) {
			t.Fatalf("known followers not filled: %+v", it.Author)
		}
	}
	// a0 (VP Sales, known) and a3 (Recruiter per the provider, profile not
	// read yet) stay; a2 heads sales by its posts but is known to recruit
	// now, which recruiter matches; nobody else holds those titles.
	if byAuthor["a0"] == 0 || byAuthor["a2"] == 0 || byAuthor["a3"] == 0 || byAuthor["a1"] != 0 || byAuthor["a4"] != 0 || len(items) != 20 {
		t.Fatalf("results by author = %v (%d items)", byAuthor, len(items))
	}
	// With only "sales", a2's posts (Head of Sales to the provider, Recruiter
	// in the people table) are dropped.
	d.JobTitles = []string{"Sales"}
	repo.s.Definition = d
	items, _ = c.Preview(context.Background(), repo.s)
	for _, it := range items {
		if it.Author.Username != "a0" {
			t.Fatalf("kept a post by %s", it.Author.Username)
		}
	}
}

func TestPronetProfileMonitorNeverRefetches(t *testing.T) {
	d, _ := search.PronetProfile{ProfileURL: "https://www.linkedin.com/in/a0", MaxResults: 10}.Definition(search.Rules{})
	c, _, fp, _, clock := newPronetFixture(search.KindPronetProfile, d)
	fp.ignoreAfter = true
	if out, err := c.Run(context.Background(), "s"); err != nil || out.NewResults != 10 {
		t.Fatalf("first run = %+v, %v", out, err)
	}
	if p := fp.profile[0]; p.Username != "a0" || !p.After.Equal(clock.AddDate(0, 0, -7)) {
		t.Fatalf("first run asked %+v", p)
	}
	first := *clock
	*clock = clock.Add(4 * time.Minute)
	fp.profile = nil
	out, err := c.Run(context.Background(), "s")
	if err != nil || out.NewResults != 4 {
		t.Fatalf("second run = %+v, %v", out, err)
	}
	if p := fp.profile[0]; !p.After.Equal(first) || p.PaginationToken != "" {
		t.Fatalf("second run asked %+v, want after the newest post (%s)", p, first)
	}
}

package storetest

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/topic"
)

// The mapping fixture: a handful of posts, people and engagements chosen by
// hand, against which every expectation below was worked out on paper.
//
// "Now" is MapNow (T). Posts (author, posted, reactions+comments, text):
//
//	P1  C1  T-2d   100+20  "RevOps is eating the world. #revops teams need pipeline hygiene."  revops×2, pipeline hygiene×1
//	P2  C1  T-1d    50+10  "revops revops revops: our playbook"                                revops×3
//	P3  C3  T-3d     7+3   "We are hiring account executives"                                  no keyword; topic A (revops) linked it
//	P4  C2  T-8d    30+0   "Pipeline hygiene for revenue teams; #RevOps"                       revops×1 (hashtag), pipeline hygiene×1
//	P5  C3  T-4d     1+1   "revopsy unrevops rev-ops; pipeline and hygiene"                    no keyword; topic B (pipeline hygiene) linked it
//	P6  C2  T-1d-1ms 5+5   "revops hiring"                                                     revops×1, no engagements
//	P7  C4  T-6d    40+2   "#revops"                                                           revops×1, no engagements
//	P8  C5  T-2d     9+1   "Big news from our team"                                            no keyword; topic A linked it, no engagements
//	P9  company T-1d 3+0   "revops at scale"                                                   a company page's post
//	F1…F10 C1 T-(3+i)d 10i+i "Quarterly update i"                                              topic C (quarterly)
//
// Engagements (person, post, type, when):
//
//	U1  P1 comment T-1h;  P2 like T-3h
//	U2  P2 comment T-2h;  P4 like T-30m
//	U3  P3 like T-10m;    P1 like T-5d
//	U4  P4 comment T-7d (exactly at a 7-day cutoff)
//	U5  P1 comment T-7d-1ms (1 ms before it); P5 like T-1h
//	U6  P2 like T-4h and P2 comment T-4h (the same instant)
//	U7  P1 like T-6d
//	U8  P2 comment T-2d (no profile read: title is the headline)
//	U9  P4 like T-1d;     P1 like T-1d (the same instant on two posts)
//	U10 P3 comment T-20m; P5 comment T-5m
//
// Likes carry no time: they are saved by a hydration at their time (first
// seen); comments carry theirs.
var MapNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

const (
	day        = 24 * time.Hour
	postPrefix = "73000000000000000"
)

func FxPostURN(key string) string {
	n := map[string]int{"P1": 1, "P2": 2, "P3": 3, "P4": 4, "P5": 5, "P6": 6, "P7": 7, "P8": 8, "P9": 9}[key]
	if strings.HasPrefix(key, "F") {
		i, _ := strconv.Atoi(key[1:])
		n = 10 + i
	}
	return postPrefix + strconv.Itoa(10+n) // 19 digits, P1 < P2 < … < F10
}

func FxPersonURN(key string) string { return "ACoAAfixture-" + strings.ToLower(key) }

type FxPost struct {
	Key, Author, Text   string
	Posted              time.Time
	Reactions, Comments int
	Topic               string // the topic that linked it: A, B or C
}

var FxPosts = []FxPost{
	{"P1", "C1", "RevOps is eating the world. #revops teams need pipeline hygiene.", MapNow.Add(-2 * day), 100, 20, "A"},
	{"P2", "C1", "revops revops revops: our playbook", MapNow.Add(-1 * day), 50, 10, "A"},
	{"P3", "C3", "We are hiring account executives", MapNow.Add(-3 * day), 7, 3, "A"},
	{"P4", "C2", "Pipeline hygiene for revenue teams; #RevOps", MapNow.Add(-8 * day), 30, 0, "B"},
	{"P5", "C3", "revopsy unrevops rev-ops; pipeline and hygiene", MapNow.Add(-4 * day), 1, 1, "B"},
	{"P6", "C2", "revops hiring", MapNow.Add(-1*day - time.Millisecond), 5, 5, "A"},
	{"P7", "C4", "#revops", MapNow.Add(-6 * day), 40, 2, "A"},
	{"P8", "C5", "Big news from our team", MapNow.Add(-2 * day), 9, 1, "A"},
	{"P9", "", "revops at scale", MapNow.Add(-1 * day), 3, 0, "B"},
}

func init() {
	for i := 1; i <= 10; i++ {
		FxPosts = append(FxPosts, FxPost{"F" + strconv.Itoa(i), "C1", "Quarterly update " + strconv.Itoa(i),
			MapNow.Add(-time.Duration(3+i) * day), 10 * i, i, "C"})
	}
}

func followers(n int64) *int64 { return &n }

// FxProfiles are the firmographics of the people whose profile was read.
var FxProfiles = map[string]topic.Profile{
	"U1":  {JobTitle: "VP Revenue Operations", Company: "Acme", CompanyDomain: "acme.com", CompanySize: "51-200", Industry: "Software Development", Country: "US", Followers: followers(1500)},
	"U2":  {JobTitle: "Head of Sales", Company: "Acme Europe", CompanyDomain: "eu.acme.com", CompanySize: "201-500", Industry: "Software Development", Country: "GB", Followers: followers(12000)},
	"U3":  {JobTitle: "Account Executive", Company: "Globex", CompanyDomain: "globex.com", CompanySize: "1001-5000", Industry: "Financial Services", Country: "DE", Followers: followers(300)},
	"U4":  {JobTitle: "Sales Development Representative", Company: "NotAcme", CompanyDomain: "notacme.com", CompanySize: "11-50", Industry: "Marketing Services", Country: "US", Followers: followers(5000)},
	"U5":  {JobTitle: "RevOps Manager", Company: "Initech", CompanyDomain: "initech.io", CompanySize: "51-200", Industry: "IT Services and IT Consulting", Country: "FR"},
	"U6":  {JobTitle: "Chief Revenue Officer", Company: "Hooli", CompanyDomain: "hooli.com", CompanySize: "10001+", Industry: "Software Development", Country: "US", Followers: followers(250000)},
	"U7":  {JobTitle: "Software Engineer", Company: "Acme", CompanyDomain: "acme.com", CompanySize: "51-200", Industry: "Software Development", Country: "IN", Followers: followers(800)},
	"U9":  {JobTitle: "Marketing Director", Company: "Umbrella", CompanyDomain: "umbrella.co.uk", CompanySize: "501-1000", Industry: "Pharmaceutical Manufacturing", Country: "GB", Followers: followers(10000)},
	"U10": {JobTitle: "Founder", Company: "Tyrell", CompanyDomain: "tyrell.ai", CompanySize: "1-10", Industry: "Software Development", Country: "CA", Followers: followers(5001)},
	"C1":  {JobTitle: "Head of RevOps", Company: "Acme", CompanyDomain: "acme.com", CompanySize: "51-200", Industry: "Software Development", Country: "US", Followers: followers(20000)},
	"C2":  {JobTitle: "Sales Director", Company: "Globex", CompanyDomain: "globex.com", CompanySize: "1001-5000", Industry: "Financial Services", Country: "GB", Followers: followers(3000)},
	"C3":  {JobTitle: "Data Analyst", Company: "Initech", CompanyDomain: "initech.io", CompanySize: "11-50", Industry: "IT Services and IT Consulting", Country: "DE", Followers: followers(150)},
	"C5":  {JobTitle: "CEO", Company: "Tyrell", CompanyDomain: "tyrell.ai", CompanySize: "1-10", Industry: "Software Development", Country: "FR", Followers: followers(700)},
}

// FxHeadline is what a reaction, a comment or a post shows of a person.
func FxHeadline(key string) string {
	switch key {
	case "U8":
		return "Sales leader at Foo"
	case "C4":
		return "RevOps consultant | speaker"
	}
	return "Works at " + FxProfiles[key].Company
}

func FxEngager(key string) topic.Engager {
	return topic.Engager{URN: FxPersonURN(key), Username: strings.ToLower(key), FullName: "First" + key + " Last" + key,
		Headline: FxHeadline(key), ProfileURL: "https://www.linkedin.com/in/" + strings.ToLower(key)}
}

type FxEngagement struct {
	Person, Post, Kind string
	At                 time.Time
}

var FxEngagements = []FxEngagement{
	{"U1", "P1", "comment", MapNow.Add(-time.Hour)},
	{"U1", "P2", "like", MapNow.Add(-3 * time.Hour)},
	{"U2", "P2", "comment", MapNow.Add(-2 * time.Hour)},
	{"U2", "P4", "like", MapNow.Add(-30 * time.Minute)},
	{"U3", "P3", "like", MapNow.Add(-10 * time.Minute)},
	{"U3", "P1", "like", MapNow.Add(-5 * day)},
	{"U4", "P4", "comment", MapNow.Add(-7 * day)},
	{"U5", "P1", "comment", MapNow.Add(-7*day - time.Millisecond)},
	{"U5", "P5", "like", MapNow.Add(-time.Hour)},
	{"U6", "P2", "like", MapNow.Add(-4 * time.Hour)},
	{"U6", "P2", "comment", MapNow.Add(-4 * time.Hour)},
	{"U7", "P1", "like", MapNow.Add(-6 * day)},
	{"U8", "P2", "comment", MapNow.Add(-2 * day)},
	{"U9", "P4", "like", MapNow.Add(-day)},
	{"U9", "P1", "like", MapNow.Add(-day)},
	{"U10", "P3", "comment", MapNow.Add(-20 * time.Minute)},
	{"U10", "P5", "comment", MapNow.Add(-5 * time.Minute)},
}

const FxAllocation = 1 << 40

type MappingFixture struct {
	Store   *store.Store
	Engine  *mapping.Engine // over Store's pool
	URL     string          // the database's, for other processes
	Now     func() time.Time
	Account auth.Account
}

func FxRecord(p FxPost) json.RawMessage {
	urn := FxPostURN(p.Key)
	rec := pronet.Post{Text: p.Text, EntityType: "post", PostURL: "https://www.linkedin.com/feed/update/urn:li:activity:" + urn + "/",
		PostedDate: p.Posted.Format(time.RFC3339), PostedDateTimestamp: p.Posted.UnixMilli(), URN: urn,
		TotalReactionCount: p.Reactions, LikeCount: p.Reactions, CommentsCount: p.Comments}
	if p.Author != "" {
		e := FxEngager(p.Author)
		rec.Author = pronet.PostAuthor{FirstName: "First" + p.Author, LastName: "Last" + p.Author, Headline: e.Headline,
			Username: e.Username, URL: e.ProfileURL, URN: e.URN}
	} else {
		rec.Author = pronet.PostAuthor{FirstName: "Acme", URL: "https://www.linkedin.com/company/acme", URN: "urn:li:company:42"}
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	return raw
}

// NewMappingFixture collects the fixture through the store's collection
// methods: three topics discover the posts, hydrations save the
// engagements, profile reads the firmographics.
func NewMappingFixture(t *testing.T, engine store.Dialect) *MappingFixture {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewFake(MapNow.Add(-20 * day))
	url := DatabaseURL(t, engine)
	s := OpenURL(t, url, clk.Now)
	f := &MappingFixture{Store: s, Engine: mapping.NewEngine(s.MappingPool()), URL: url, Now: clk.Now,
		Account: auth.Account{Name: "mapping", Plan: auth.PlanEnterprise}}
	if err := s.CreateAccount(ctx, &f.Account); err != nil {
		t.Fatal(err)
	}
	topics := map[string]*topic.Topic{}
	for key, kw := range map[string]string{"A": "revops", "B": "pipeline hygiene", "C": "quarterly"} {
		tp := &topic.Topic{AccountID: f.Account.ID, Name: "topic " + key, Definition: topic.Definition{Keywords: []string{kw},
			TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
		if err := s.CreateTopic(ctx, tp, 0); err != nil {
			t.Fatal(err)
		}
		topics[key] = tp
	}
	clk.Set(MapNow)
	byTopic := map[string][]topic.Post{}
	for _, p := range FxPosts {
		tp := topic.Post{URN: FxPostURN(p.Key), PostedAt: p.Posted, Record: FxRecord(p)}
		if p.Author != "" {
			tp.Author = FxEngager(p.Author)
		}
		byTopic[p.Topic] = append(byTopic[p.Topic], tp)
	}
	for key, posts := range byTopic {
		run := topic.DiscoveryRun{TopicID: topics[key].ID, At: MapNow.Add(-9 * day), Interval: topic.Initial, Posts: posts,
			NextRunAt: MapNow.Add(day), Allocation: FxAllocation}
		if out, err := s.SaveDiscovery(ctx, run); err != nil || out.Linked != len(posts) {
			t.Fatalf("discovery of topic %s: %+v, %v", key, out, err)
		}
	}
	for _, e := range FxEngagements {
		f.Engage(t, e)
	}
	for key, p := range FxProfiles {
		p.URN, p.FirstName, p.LastName, p.FullName = FxPersonURN(key), "First"+key, "Last"+key, "First"+key+" Last"+key
		p.PronetURL = "https://www.linkedin.com/in/" + strings.ToLower(key)
		if err := s.SaveProfile(ctx, p, MapNow.Add(-time.Minute), 0); err != nil {
			t.Fatal(err)
		}
	}
	// C4's profile was read but shows no position, country or followers.
	if err := s.SaveProfile(ctx, topic.Profile{URN: FxPersonURN("C4"), FirstName: "FirstC4", LastName: "LastC4"}, MapNow.Add(-time.Minute), 0); err != nil {
		t.Fatal(err)
	}
	return f
}

// Engage saves one engagement as a hydration of its post would: a like at
// the hydration's time, a comment with its own.
func (f *MappingFixture) Engage(t *testing.T, e FxEngagement) {
	t.Helper()
	found := topic.Found{Person: FxEngager(e.Person), Type: e.Kind}
	h := topic.Hydration{PostURN: FxPostURN(e.Post), At: e.At, Stage: topic.Initial, Found: []topic.Found{found},
		Allocations: map[string]int64{f.Account.ID: FxAllocation}}
	if e.Kind == "comment" {
		h.At = MapNow
		h.Found[0].At = e.At
		h.Found[0].Text = "Agreed"
		h.Found[0].CommentURN = "urn:li:comment:" + e.Person + e.Post
	} else {
		h.Found[0].ReactionType = "LIKE"
	}
	if out, err := f.Store.SaveHydration(context.Background(), h); err != nil || out.NewEngagements != 1 {
		t.Fatalf("hydration of %+v: %+v, %v", e, out, err)
	}
}

// Mapping answers q as of MapNow, page 1 of 50 unless q says otherwise.
func (f *MappingFixture) Mapping(t *testing.T, q mapping.Query, maxCandidates int) ([]mapping.Result, int64, error) {
	t.Helper()
	if q.Page == 0 {
		q.Page = 1
	}
	if q.PageSize == 0 {
		q.PageSize = 50
	}
	return f.Engine.SocialMapping(context.Background(), q, MapNow, maxCandidates)
}

package main

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/topic"
)

// pool generates the benchmark's data: people with firmographics, posts
// whose text is drawn from a vocabulary with a long tail, and engagements
// spread over the posts with a heavy tail. Everything is a pure function of
// the indexes, so person n, post n and the engagements of post n are the
// same whenever they are asked for.
type pool struct {
	now, start  time.Time // posts are published between start and now
	people      int
	posts       int
	engagements int
	// counts are the engagements of each post; comments the comments among them.
	counts   []int32
	comments []int32
	// Engagers are drawn with a skew (some people engage a lot) through a
	// permutation of the people.
	permA, permB int64

	v          *vocabulary
	companies  []company
	company    zipf
	role       zipf
	industry   zipf
	country    zipf
	firstNames []string
	lastNames  []string
}

type company struct {
	name, domain, size, industry string
}

// Streams of the generator: each kind of draw has its own.
const (
	streamCounts uint64 = iota + 1
	streamPerson
	streamPost
	streamEngagement
	streamCompany
)

// Engagements per post follow a Pareto law (alpha 1.3): most posts get a
// few, popular ones thousands (at most perPostCap).
const (
	paretoAlpha  = 1.3
	perPostCap   = 20_000
	commentShare = 0.2
)

func newPool(now time.Time, people, posts, engagements int) *pool {
	g := &pool{now: now, start: now.Add(-30 * 24 * time.Hour), people: people, posts: posts, engagements: engagements,
		v: newVocabulary(), firstNames: firstNames, lastNames: lastNames}
	g.allocate()
	for _, a := range []int64{1_000_003, 999_983, 7_919, 104_729, 15_485_863} {
		if gcd(a, int64(people)) == 1 {
			g.permA = a
			break
		}
	}
	g.permB = int64(people) / 3
	g.companies = makeCompanies()
	g.company = newZipf(len(g.companies), 0.9)
	g.role = newZipf(len(roles), 1.0)
	g.industry = newZipf(len(industries), 1.0)
	g.country = newZipf(len(countries), 1.1)
	return g
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// maxPerPost is the most engagements one post gets: few enough that its
// engagers, drawn from the people, stay distinct.
func (g *pool) maxPerPost() int { return min(perPostCap, g.people/4) }

// allocate spreads the engagements over the posts: Pareto weights scaled so
// that the capped, rounded-down counts add up to just under the total, the
// rest one by one to posts in random order.
func (g *pool) allocate() {
	w := make([]float64, g.posts)
	for i := range w {
		r := newRNG(streamCounts, uint64(i))
		w[i] = math.Pow(1-r.float(), -1/paretoAlpha)
	}
	limit := float64(g.maxPerPost())
	sum := func(k float64) int {
		n := 0
		for _, x := range w {
			n += int(min(limit, math.Floor(k*x)))
		}
		return n
	}
	lo, hi := 0.0, float64(g.engagements)
	for range 64 {
		mid := (lo + hi) / 2
		if sum(mid) <= g.engagements {
			lo = mid
		} else {
			hi = mid
		}
	}
	g.counts = make([]int32, g.posts)
	total := 0
	for i, x := range w {
		g.counts[i] = int32(min(limit, math.Floor(lo*x)))
		total += int(g.counts[i])
	}
	r := newRNG(streamCounts, math.MaxUint64)
	for total < g.engagements {
		i := r.intn(g.posts)
		if int(g.counts[i]) < g.maxPerPost() {
			g.counts[i]++
			total++
		}
	}
	g.comments = make([]int32, g.posts)
	for i, c := range g.counts {
		r := newRNG(streamCounts, uint64(g.posts+i))
		// About commentShare of each post's engagements, rounded at random.
		g.comments[i] = int32(math.Floor(float64(c)*commentShare + r.float()))
	}
}

// postedAt spreads the posts evenly over the 30 days before now.
func (g *pool) postedAt(n int) time.Time {
	span := g.now.Sub(g.start)
	return g.start.Add(time.Duration(float64(span) * (float64(n) + 0.5) / float64(g.posts))).Truncate(time.Millisecond)
}

// author of post n: a minority of the people write most posts.
func (g *pool) author(n int) int {
	r := newRNG(streamPost, uint64(n)<<1)
	return g.permute(int(float64(g.people) * math.Pow(r.float(), 3)))
}

func (g *pool) permute(i int) int {
	return int((int64(i)*g.permA + g.permB) % int64(g.people))
}

// person returns person n with their profile read.
func (g *pool) person(n int) topic.Profile {
	r := newRNG(streamPerson, uint64(n))
	first, last := g.firstNames[r.intn(len(g.firstNames))], g.lastNames[r.intn(len(g.lastNames))]
	username := strings.ToLower(first+"-"+last) + "-" + strconv.Itoa(n)
	p := topic.Profile{
		URN: seed.PersonURN(n), Username: username, FullName: first + " " + last, FirstName: first, LastName: last,
		Avatar:    "https://media.licdn.com/dms/image/v2/C4D03AQ" + strconv.Itoa(n) + "/profile-displayphoto-shrink_100_100/0/",
		PronetURL: "https://www.linkedin.com/in/" + username,
	}
	// 6% work for no company (freelancers, students, the between-jobs).
	if r.float() >= 0.06 {
		c := g.companies[g.company.sample(&r)]
		p.Company, p.CompanyDomain, p.CompanySize, p.Industry = c.name, c.domain, c.size, c.industry
	}
	p.JobTitle = g.title(&r)
	if p.Company != "" {
		p.Headline = p.JobTitle + " at " + p.Company
	} else {
		p.Headline = p.JobTitle
	}
	switch x := r.float(); {
	case x < 0.02:
		// No current position read: the headline stands in for the title.
		p.JobTitle = ""
		p.Headline = headlines[r.intn(len(headlines))]
	case x < 0.3:
		p.Headline += " | " + headlines[r.intn(len(headlines))]
	}
	if r.float() >= 0.02 {
		p.Country = countries[g.country.sample(&r)]
	}
	if r.float() >= 0.03 {
		// Log-normal: median about 270, a few with millions.
		f := int64(math.Min(5e6, math.Exp(5.6+1.5*r.norm())))
		p.Followers = &f
	}
	return p
}

// title draws a job title: a role with a Zipf law, sometimes a seniority
// or a region, which gives a long tail of distinct titles.
func (g *pool) title(r *rng) string {
	t := roles[g.role.sample(r)]
	if strings.ContainsAny(t, "&") || !strings.ContainsFunc(t, func(c rune) bool { return c == ' ' }) {
		return t
	}
	if slices.ContainsFunc(seniorities, func(w string) bool { return strings.HasSuffix(t, w) }) {
		switch x := r.float(); {
		case x < 0.2:
			t = "Senior " + t
		case x < 0.24:
			t = "Lead " + t
		case x < 0.27:
			t = "Junior " + t
		case x < 0.29:
			t = "Principal " + t
		}
	}
	if r.float() < 0.05 {
		t += ", " + regions[r.intn(len(regions))]
	}
	return t
}

// post returns post n and its text.
func (g *pool) post(n int) (seed.PoolPost, string) {
	urn := seed.PostURN(n)
	posted := g.postedAt(n)
	author := g.person(g.author(n))
	r := newRNG(streamPost, uint64(n)<<1|1)
	text := g.v.text(&r)
	likes, comments := int(g.counts[n]-g.comments[n]), int(g.comments[n])
	rec := pronet.Post{
		Text:                text,
		EntityType:          "post",
		PostURL:             "https://www.linkedin.com/feed/update/urn:li:activity:" + urn + "/",
		PostedAt:            "1w",
		PostedDate:          posted.Format(time.RFC3339),
		PostedDateTimestamp: posted.UnixMilli(),
		URN:                 urn,
		TotalReactionCount:  likes,
		LikeCount:           likes * 7 / 10,
		EmpathyCount:        likes / 10,
		PraiseCount:         likes / 10,
		InterestCount:       likes / 20,
		AppreciationCount:   likes - likes*7/10 - 2*(likes/10) - likes/20,
		CommentsCount:       comments,
		RepostsCount:        likes / 25,
		Author: pronet.PostAuthor{
			ID: int64(100_000 + g.author(n)), FirstName: author.FirstName, LastName: author.LastName, Headline: author.Headline,
			Username: author.Username, URL: author.PronetURL, URN: author.URN,
			ProfilePictures: []pronet.Picture{{Width: 100, Height: 100, URL: author.Avatar}, {Width: 400, Height: 400, URL: author.Avatar + "?s=400"}},
		},
	}
	if r.float() < 0.4 {
		rec.Image = []pronet.Image{{URL: "https://media.licdn.com/dms/image/v2/D4E22AQ" + urn + "/feedshare-shrink_800/0/" + strconv.Itoa(n)}}
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		panic(err) // plain values: cannot fail
	}
	seen := earliest(posted.Add(time.Duration(1+r.intn(120))*time.Minute), g.now)
	hydrated := earliest(posted.Add(5*24*time.Hour), g.now)
	return seed.PoolPost{Post: topic.Post{URN: urn, PostedAt: posted, Record: raw}, SeenAt: seen,
		HydratedAt: hydrated, Engagements: int(g.counts[n])}, text
}

// postEngagements returns the engagements of post n (comments first) and
// the index of each one's person. Engagers are drawn with a skew, each at
// most once per type; they engage within 30 days of the post, most within
// the first day, and before now.
func (g *pool) postEngagements(n int, dst []seed.PoolEngagement, who []int32) ([]seed.PoolEngagement, []int32) {
	urn := seed.PostURN(n)
	posted := g.postedAt(n)
	r := newRNG(streamEngagement, uint64(n))
	taken := make(map[int32]bool, g.counts[n])
	room := g.now.Add(-time.Minute).Sub(posted)
	for i := range int(g.counts[n]) {
		comment := i < int(g.comments[n])
		if i == int(g.comments[n]) {
			clear(taken) // the same person may comment and react
		}
		var p int32
		for {
			p = int32(g.permute(int(float64(g.people) * math.Pow(r.float(), 1.6))))
			if !taken[p] {
				break
			}
		}
		taken[p] = true
		delay := time.Duration(r.exp() * float64(18*time.Hour))
		delay = min(delay, 30*24*time.Hour)
		if delay >= room {
			delay = time.Duration(r.float() * float64(max(room, 0)))
		}
		at := posted.Add(delay).Truncate(time.Millisecond)
		e := seed.PoolEngagement{PostURN: urn, PersonURN: seed.PersonURN(int(p)), Type: "like", At: at, SeenAt: at}
		switch {
		case delay < 24*time.Hour:
			e.Interval = topic.Day1
		case delay < 3*24*time.Hour:
			e.Interval = topic.Day3
		case delay < 5*24*time.Hour:
			e.Interval = topic.Day5
		default:
			e.Interval = topic.Rediscovery
		}
		if comment {
			e.Type = "comment"
			e.Text = commentTexts[r.intn(len(commentTexts))]
			e.CommentURN = "urn:li:comment:(activity:" + urn + "," + strconv.FormatInt(7_000_000_000_000+int64(n)*64+int64(i), 10) + ")"
			// A comment is seen at the hydration after it.
			e.SeenAt = earliest(at.Add(time.Duration(r.intn(6*3600))*time.Second), g.now)
		} else {
			e.ReactionType = reactionTypes[r.intn(len(reactionTypes))]
		}
		dst = append(dst, e)
		who = append(who, p)
	}
	return dst, who
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// rng is SplitMix64 (seed.Mix): small, fast and good enough for benchmark data.
type rng struct{ s uint64 }

func newRNG(stream, n uint64) rng {
	return rng{s: seed.Mix(stream*0x9e3779b97f4a7c15 ^ seed.Mix(n))}
}

func (r *rng) next() uint64 {
	z := seed.Mix(r.s)
	r.s += 0x9e3779b97f4a7c15
	return z
}

// float is uniform in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// norm is standard normal (Box-Muller).
func (r *rng) norm() float64 {
	return math.Sqrt(-2*math.Log(1-r.float())) * math.Cos(2*math.Pi*r.float())
}

// exp is exponential with mean 1.
func (r *rng) exp() float64 { return -math.Log(1 - r.float()) }

// zipf draws ranks 0..n-1 with P(k) proportional to 1/(k+1)^s.
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) zipf {
	cdf := make([]float64, n)
	sum := 0.0
	for k := range cdf {
		sum += 1 / math.Pow(float64(k+1), s)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	return zipf{cdf: cdf}
}

func (z zipf) sample(r *rng) int {
	return min(sort.SearchFloat64s(z.cdf, r.float()), len(z.cdf)-1)
}

// makeCompanies names about 5,000 companies, the largest first: the
// company a person works at is drawn with a Zipf law, so the first ranks
// have the most employees and the largest size buckets.
func makeCompanies() []company {
	n := len(companyPrefixes) * len(companySuffixes)
	out := make([]company, 0, 5000)
	ind := newZipf(len(industries), 1.0)
	for rank := range min(5000, n) {
		k := rank * 2017 % n // 2017 is prime: a permutation of the pairs
		pre, suf := companyPrefixes[k%len(companyPrefixes)], companySuffixes[k/len(companyPrefixes)]
		r := newRNG(streamCompany, uint64(rank))
		tld := ".com"
		switch x := r.float(); {
		case x < 0.15:
			tld = ".io"
		case x < 0.23:
			tld = ".ai"
		case x < 0.28:
			tld = ".co"
		case x < 0.32:
			tld = ".de"
		case x < 0.36:
			tld = ".co.uk"
		case x < 0.38:
			tld = ".fr"
		case x < 0.40:
			tld = ".net"
		}
		domain := strings.ToLower(pre+suf) + tld
		if r.float() < 0.02 {
			domain = []string{"eu.", "us.", "uk.", "corp."}[r.intn(4)] + domain
		}
		size := "1-10"
		for _, b := range sizeByRank {
			if rank < b.below {
				size = b.size
				break
			}
		}
		out = append(out, company{name: pre + " " + suf, domain: domain, size: size, industry: industries[ind.sample(&r)]})
	}
	return out
}

var sizeByRank = []struct {
	below int
	size  string
}{
	{50, "10001+"}, {150, "5001-10000"}, {500, "1001-5000"}, {1000, "501-1000"},
	{1700, "201-500"}, {2800, "51-200"}, {4000, "11-50"},
}

package sandbox

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// vendorSearch is a post search as HarvestAPI takes it (REST post-search, the post-search
// actor); it runs over the world as the contract's search does.
type vendorSearch struct {
	keywords string
	window   time.Duration
	byDate   bool
	kind     func(PronetPost) bool
	filters  searchFilters
}

// vendorWindows are postedLimit's values; the search reaches at most 30 days back, as the
// contract's does, so the longer ones are 30 days too.
var vendorWindows = map[string]time.Duration{
	"": pronetSearchMax, "any": pronetSearchMax, "1h": time.Hour, "24h": 24 * time.Hour, "week": 7 * 24 * time.Hour,
	"month": pronetSearchMax, "3months": pronetSearchMax, "6months": pronetSearchMax, "year": pronetSearchMax,
}

// vendorPostWindows are scrapePostedLimit's values for profile and company posts, capped at
// the 60 days the world's timelines reach back.
var vendorPostWindows = map[string]time.Duration{
	"": pronetWindow, "any": pronetWindow, "1h": time.Hour, "24h": 24 * time.Hour, "week": 7 * 24 * time.Hour,
	"month": 30 * 24 * time.Hour, "3months": pronetWindow, "6months": pronetWindow, "year": pronetWindow,
}

var vendorContentTypes = map[string]func(PronetPost) bool{
	"":                       func(PronetPost) bool { return true },
	"videos":                 func(p PronetPost) bool { return p.Video },
	"images":                 func(p PronetPost) bool { return len(p.Images) > 0 },
	"live_videos":            func(p PronetPost) bool { return p.Live },
	"documents":              func(p PronetPost) bool { return p.Document },
	"collaborative_articles": func(p PronetPost) bool { return p.Link != "" },
	"jobs":                   func(PronetPost) bool { return false },
}

var renderFaultWord = regexp.MustCompile(`(?i)(^|[\s("])(sparse|malformed)[-_]`)

// keywordFault is the fault the words of a search carry; missing- words stay ordinary words
// (they match nothing), and sparse-/malformed- come off before matching so the search still
// finds posts to render.
func keywordFault(kw string) (vendorFault, string) {
	f := faultNone
	for _, w := range strings.FieldsFunc(kw, func(r rune) bool { return r == ' ' || r == '"' || r == '(' || r == ')' }) {
		if wf, _ := cutFault(w); wf != faultMissing {
			f = worst(f, wf)
		}
	}
	return f, renderFaultWord.ReplaceAllString(kw, "$1")
}

// mentionFilters reads mentioningMember (profile URLs, public identifiers, ACoAA… ids or
// urn:li:member:…) and mentioningCompany (company URLs, universal names or numeric ids).
func (w *World) mentionFilters(members, companies []string) (searchFilters, vendorFault, error) {
	var f searchFilters
	fault := faultNone
	if len(members)+len(companies) > 2*maxMentionFilters {
		return f, fault, fmt.Errorf("%w: too many mention filters", ErrInvalid)
	}
	for _, m := range members {
		if urn, ok := strings.CutPrefix(m, "urn:li:member:"); ok && isDigits(urn) {
			f.members = setAdd(f.members, m)
			continue
		}
		if isDigits(m) { // a bare member id
			f.members = setAdd(f.members, "urn:li:member:"+m)
			continue
		}
		p, pf, err := w.vendorPerson(m)
		if fault = worst(fault, pf); err != nil {
			return f, fault, err
		}
		f.members = setAdd(f.members, p.PronetURN())
	}
	for _, c := range companies {
		co, cf, err := w.vendorCompany(c)
		if fault = worst(fault, cf); err != nil {
			return f, fault, err
		}
		f.companies = setAdd(f.companies, fmt.Sprint(co.ID))
	}
	return f, fault, nil
}

func setAdd(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

// runVendorSearch finds the posts of a search, best first (or newest first by date): the
// ranking of every protocol's post search, the contract's included.
func (s *Sandbox) runVendorSearch(q vendorSearch, now time.Time) ([]PronetPost, error) {
	var m *pronetQuery
	if strings.TrimSpace(q.keywords) != "" {
		var err error
		if m, err = parsePronetQuery(q.keywords); err != nil {
			return nil, err
		}
	}
	kind := q.kind
	if kind == nil {
		kind = func(PronetPost) bool { return true }
	}
	type hit struct {
		post  PronetPost
		score int
	}
	var hits []hit
	from := now.Add(-q.window)
	for b := now.UnixMilli() / hourMS; b >= from.UnixMilli()/hourMS; b-- {
		for i := 0; i < pronetPerHour; i++ {
			p := s.world.PublicPronetPost(b, i)
			if p.Time.Before(from) || p.Time.After(now) || !kind(p) || !q.filters.keeps(p) {
				continue
			}
			n := 0
			if m != nil {
				var ok bool
				if ok, n = m.match(p.Text); !ok {
					continue
				}
			}
			reactions, _, _, _ := s.world.pronetFinal(p.URN)
			hits = append(hits, hit{p, n*1000 + reactions})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if !q.byDate && a.score != b.score {
			return b.score - a.score
		}
		return cmpDesc(a.post.URN, b.post.URN)
	})
	out := make([]PronetPost, len(hits))
	for i, h := range hits {
		out[i] = h.post
	}
	return out, nil
}

// authorPosts are the posts of a profile or company page in the window before now, newest first.
func (s *Sandbox) authorPosts(p *Person, c *Company, window time.Duration, now time.Time) []PronetPost {
	from, to := now.Add(-window), now.Add(time.Millisecond)
	if c != nil {
		return s.world.CompanyPosts(*c, from, to)
	}
	return s.world.ProfilePosts(*p, from, to)
}

// postComments are a post's comments, oldest first (newest first when byDate), within window.
func (s *Sandbox) postComments(urn uint64, window time.Duration, byDate bool, now time.Time) []Comment {
	all := s.world.Comments(urn, now)
	if window > 0 {
		from := now.Add(-window)
		kept := all[:0:0]
		for _, c := range all {
			if !c.Time.Before(from) {
				kept = append(kept, c)
			}
		}
		all = kept
	}
	if byDate {
		slices.Reverse(all)
	}
	return all
}

package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/search"
)

// FirmographicFilters is what social mapping and creator discovery filter
// on, embedded in both bodies (exported: huma describes and validates the
// fields of exported embedded structs only).
type FirmographicFilters struct {
	JobTitles             []string `json:"job_titles,omitempty" maxItems:"10" doc:"Keep people whose current title contains one of these (case-insensitive); each at most 100 characters."`
	JobTitlesExcludes     []string `json:"job_titles_excludes,omitempty" maxItems:"10"`
	CompanyDomainIncludes []string `json:"company_domain_includes,omitempty" maxItems:"100" doc:"A domain matches itself and its subdomains."`
	CompanyDomainExcludes []string `json:"company_domain_excludes,omitempty" maxItems:"100"`
	CompanySizes          []string `json:"company_sizes,omitempty" maxItems:"8" enum:"1-10,11-50,51-200,201-500,501-1000,1001-5000,5001-10000,10001+"`
	CompanySizesExcludes  []string `json:"company_sizes_excludes,omitempty" maxItems:"8" enum:"1-10,11-50,51-200,201-500,501-1000,1001-5000,5001-10000,10001+"`
	Industries            []string `json:"industries,omitempty" maxItems:"100" doc:"Case-insensitive; each at most 100 characters."`
	IndustriesExcludes    []string `json:"industries_excludes,omitempty" maxItems:"100"`
	LocationCountry       []string `json:"location_country,omitempty" maxItems:"250" doc:"ISO 3166-1 alpha-2 codes or English country names."`
	LocationExcludes      []string `json:"location_excludes,omitempty" maxItems:"250"`
	Followers             []string `json:"followers,omitempty" maxItems:"10" doc:"Follower-count ranges, MIN-MAX or MIN+ (e.g. 1000-5000, 10000+); several are OR'ed."`
	Page                  int      `json:"page,omitempty" minimum:"1" maximum:"10000000" doc:"Default 1; at most 10,000,000, as on every list paged by number."`
	PageSize              int      `json:"page_size,omitempty" enum:"10,25,50" doc:"Default 10."`
}

// Longest values of the filter lists, in characters: a job title as a
// pronet search's, a domain as DNS allows. (How many values each list
// holds is in the schema.)
const (
	maxIndustryLength = 100
	maxDomainLength   = 253
)

func (b FirmographicFilters) filters(p *problems) mapping.Filters {
	countries := func(field string, in []string) []string {
		out := make([]string, 0, len(in))
		for i, v := range in {
			code, ok := mapping.CountryCode(v)
			if !ok {
				p.add(fmt.Sprintf("%s[%d]", field, i), "%q is not an ISO 3166-1 alpha-2 code or an English country name", v)
				continue
			}
			out = append(out, code)
		}
		return out
	}
	f := mapping.Filters{
		JobTitles:          cleanList("body.job_titles", b.JobTitles, p),
		JobTitlesExcludes:  cleanList("body.job_titles_excludes", b.JobTitlesExcludes, p),
		DomainIncludes:     cleanList("body.company_domain_includes", b.CompanyDomainIncludes, p),
		DomainExcludes:     cleanList("body.company_domain_excludes", b.CompanyDomainExcludes, p),
		CompanySizes:       b.CompanySizes,
		CompanySizesExcl:   b.CompanySizesExcludes,
		Industries:         cleanList("body.industries", b.Industries, p),
		IndustriesExcludes: cleanList("body.industries_excludes", b.IndustriesExcludes, p),
		Countries:          countries("body.location_country", b.LocationCountry),
		CountriesExcludes:  countries("body.location_excludes", b.LocationExcludes),
	}
	// Indexes are the body's: cleanList has already reported (and dropped) empty items.
	for _, l := range []struct {
		field   string
		list    []string
		longest int
		domains bool
	}{
		{"body.job_titles", b.JobTitles, search.MaxJobTitleLen, false},
		{"body.job_titles_excludes", b.JobTitlesExcludes, search.MaxJobTitleLen, false},
		{"body.company_domain_includes", b.CompanyDomainIncludes, maxDomainLength, true},
		{"body.company_domain_excludes", b.CompanyDomainExcludes, maxDomainLength, true},
		{"body.industries", b.Industries, maxIndustryLength, false},
		{"body.industries_excludes", b.IndustriesExcludes, maxIndustryLength, false},
	} {
		for i, v := range l.list {
			v = strings.TrimSpace(v)
			switch n := utf8.RuneCountInString(v); {
			case n > l.longest:
				p.add(fmt.Sprintf("%s[%d]", l.field, i), "has %d characters; at most %d are allowed", n, l.longest)
			case l.domains && v != "" && (!strings.Contains(v, ".") || strings.ContainsAny(v, " /:@")):
				p.add(fmt.Sprintf("%s[%d]", l.field, i), "%q is not a domain such as acme.com", v)
			}
		}
	}
	for i, raw := range b.Followers {
		r, err := mapping.ParseRange(raw)
		if err != nil {
			p.add(fmt.Sprintf("body.followers[%d]", i), "%s", err.Error())
			continue
		}
		f.Followers = append(f.Followers, r)
	}
	return f
}

// withKeywords is the query of a body with these filters and the
// keywords, days and strength given (at keywordsField).
func (b FirmographicFilters) withKeywords(keywordsField string, keywords []string, days int, strength *int, p *problems) mapping.Query {
	q := mapping.Query{
		Keywords: keywordList(keywordsField, keywords, p),
		Days:     days,
		Strength: 1,
		Filters:  b.filters(p),
		Page:     cmpOr(b.Page, 1),
		PageSize: cmpOr(b.PageSize, 10),
	}
	if strength != nil {
		q.Strength = *strength
	}
	return q
}

// keywordList is cleanList for a query's keywords, each of which must
// also keep within mapping's bounds (mapping.KeywordProblem).
func keywordList(field string, in []string, p *problems) []string {
	out := cleanList(field, in, p)
	for i, v := range in {
		if v = strings.TrimSpace(v); v != "" {
			if msg := mapping.KeywordProblem(v); msg != "" {
				p.add(fmt.Sprintf("%s[%d]", field, i), "%s", msg)
			}
		}
	}
	return out
}

// mappingBody is the body of POST /v1/social/mapping.
type mappingBody struct {
	EngagedWithKeywords      []string `json:"engaged_with_keywords" minItems:"1" maxItems:"10" doc:"Posts about any of these (whole words or phrases; hashtags count), each at most 100 characters and 10 words."`
	EngagedWithDays          int      `json:"engaged_with_days" minimum:"1" maximum:"30" doc:"Engagements of the last N days."`
	EngagedWithTopicStrength *int     `json:"engaged_with_topic_strength,omitempty" minimum:"0" maximum:"5" doc:"Keyword mentions a post needs; default 1. 0 also admits posts a topic linked for one of the keywords."`
	FirmographicFilters
	Includes []string `json:"includes,omitempty" enum:"first_name,last_name,pronet_url,avatar,location,company,company_domain,job_title,followers,post.text,post.url,post.date,post.likes,post.comments,engagement.type" doc:"Members of each result; default every member."`
}

func (b mappingBody) query(p *problems) mapping.Query {
	return b.withKeywords("body.engaged_with_keywords", b.EngagedWithKeywords, b.EngagedWithDays, b.EngagedWithTopicStrength, p)
}

// queryInput is the input of social mapping and creator discovery; check
// keeps the query.
type queryInput[B interface{ query(*problems) mapping.Query }] struct {
	Body  B
	query mapping.Query
}

func (in *queryInput[B]) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *queryInput[B]) check(_ huma.Context, _ *Server, p *problems) error {
	in.query = in.Body.query(p)
	return nil
}

type mappingPost struct {
	Text     *string `json:"text,omitempty"`
	URL      *string `json:"url,omitempty"`
	Date     *string `json:"date,omitempty"`
	Likes    *int64  `json:"likes,omitempty"`
	Comments *int64  `json:"comments,omitempty"`
}

type mappingEngagement struct {
	Type string `json:"type" enum:"like,comment"`
}

// mappingResultOut is one person; members absent from includes are left out.
type mappingResultOut struct {
	FirstName     *string            `json:"first_name,omitempty"`
	LastName      *string            `json:"last_name,omitempty"`
	PronetURL     *string            `json:"pronet_url,omitempty"`
	Avatar        *string            `json:"avatar,omitempty"`
	Location      *string            `json:"location,omitempty"`
	Company       *string            `json:"company,omitempty"`
	CompanyDomain *string            `json:"company_domain,omitempty"`
	JobTitle      *string            `json:"job_title,omitempty"`
	Followers     *int64             `json:"followers,omitempty" doc:"0 until the person's profile is read."`
	Post          *mappingPost       `json:"post,omitempty"`
	Engagement    *mappingEngagement `json:"engagement,omitempty"`
}

type mappingData struct {
	Results []mappingResultOut `json:"results"`
	Page    int                `json:"page"`
	Total   int64              `json:"total" doc:"Distinct people that qualify."`
}

func (s *Server) handleSocialMapping(ctx context.Context, in *queryInput[mappingBody]) (*MeteredReply[mappingData], error) {
	q := in.query
	include := func(member string) bool {
		return len(in.Body.Includes) == 0 || slices.Contains(in.Body.Includes, member)
	}
	results, total, err := s.mapper.SocialMapping(ctx, q, s.now(), s.cfg.MappingMaxCandidates)
	var broad *mapping.ErrQueryTooBroad
	if errors.As(err, &broad) {
		return nil, NewAPIError(http.StatusUnprocessableEntity, CodeQueryTooBroad, tooBroadMessage(broad, "engagements", "of people its filters keep")).
			WithSuggestion("Narrow it: fewer or more specific keywords, a higher engaged_with_topic_strength, fewer engaged_with_days, or firmographic filters.")
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	spent, err := s.spend(ctx, credits.SocialMapping, int64(len(results)), "social-mapping")
	if err != nil {
		return nil, err
	}
	out := mappingData{Results: make([]mappingResultOut, 0, len(results)), Page: q.Page, Total: total}
	for _, r := range results {
		out.Results = append(out.Results, toMappingResult(r, include))
	}
	return &MeteredReply[mappingData]{SpentCredits: spent, Body: Envelope[mappingData]{Message: "Social mapping", Success: true, Data: out}}, nil
}

func toMappingResult(r mapping.Result, include func(string) bool) mappingResultOut {
	var o mappingResultOut
	str := func(member string, v string) *string {
		if !include(member) {
			return nil
		}
		return &v
	}
	p := r.Person
	o.FirstName, o.LastName, o.PronetURL, o.Avatar = str("first_name", p.FirstName), str("last_name", p.LastName), str("pronet_url", p.PronetURL), str("avatar", p.Avatar)
	o.Location, o.Company, o.CompanyDomain, o.JobTitle = str("location", countryName(p.Country)), str("company", p.Company), str("company_domain", p.CompanyDomain), str("job_title", p.JobTitle)
	if include("followers") {
		n := knownOrZero(p.Followers)
		o.Followers = &n
	}
	post := mappingPost{Text: str("post.text", r.PostText), URL: str("post.url", r.PostURL), Date: str("post.date", formatTime(r.PostDate))}
	if include("post.likes") {
		post.Likes = &r.PostLikes
	}
	if include("post.comments") {
		post.Comments = &r.PostComments
	}
	if post != (mappingPost{}) {
		o.Post = &post
	}
	if include("engagement.type") {
		o.Engagement = &mappingEngagement{Type: r.EngagementType}
	}
	return o
}

// tooBroadMessage says what a refused query weighed: the engagements (or
// authors) its filters leave, which is what the limit counts.
func tooBroadMessage(e *mapping.ErrQueryTooBroad, what, kept string) string {
	n := fmt.Sprint(e.Engagements)
	if e.AtLeast {
		n = "at least " + n
	}
	if e.Filtered {
		what += " " + kept
	}
	return fmt.Sprintf("The query matches %s %s, more than the %d one query may weigh.", n, what, e.Limit)
}

// knownOrZero is a follower count as the results show it: the spec gives a
// number, so a count not known yet (profile not read) is 0.
func knownOrZero(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

// countryName shows a stored country code as its English name.
func countryName(code string) string { return mapping.CountryName(code) }

// creatorsBody is the body of POST /v1/discover/creators.
type creatorsBody struct {
	PostedAboutKeywords      []string `json:"posted_about_keywords" minItems:"1" maxItems:"10" doc:"Authors of posts about any of these (whole words or phrases; hashtags count), each at most 100 characters and 10 words."`
	PostedAboutDays          int      `json:"posted_about_days" minimum:"1" maximum:"30" doc:"Posts published in the last N days."`
	PostedAboutTopicStrength *int     `json:"posted_about_topic_strength,omitempty" minimum:"0" maximum:"5" doc:"Keyword mentions a post needs; default 1. 0 also admits posts a topic linked for one of the keywords."`
	FirmographicFilters
}

func (b creatorsBody) query(p *problems) mapping.Query {
	return b.withKeywords("body.posted_about_keywords", b.PostedAboutKeywords, b.PostedAboutDays, b.PostedAboutTopicStrength, p)
}

type creatorOut struct {
	Name                string  `json:"name"`
	PronetURL           string  `json:"pronet_url"`
	Avatar              string  `json:"avatar"`
	Location            string  `json:"location"`
	Company             string  `json:"company"`
	CompanyDomain       string  `json:"company_domain"`
	JobTitle            string  `json:"job_title"`
	CompanySize         string  `json:"company_size"`
	CompanyIndustry     string  `json:"company_industry"`
	CompanyLogo         string  `json:"company_logo"`
	Followers           int64   `json:"followers" doc:"0 until their profile is read (the followers filter matches known counts only)."`
	AvgLast10Engagement float64 `json:"avg_last_10_engagement" doc:"Mean reactions + comments over their 10 most recent known posts."`
	AvgDaysBetweenPosts float64 `json:"avg_days_between_posts" doc:"Mean days between those posts; 0 when only one is known (no gap to measure)."`
	QualifyingPosts     int     `json:"qualifying_posts" doc:"Their posts about the keywords within the window."`
}

type creatorsData struct {
	Results []creatorOut `json:"results"`
	Page    int          `json:"page"`
	Total   int64        `json:"total" doc:"Distinct authors that qualify."`
}

func (s *Server) handleDiscoverCreators(ctx context.Context, in *queryInput[creatorsBody]) (*MeteredReply[creatorsData], error) {
	q := in.query
	results, total, err := s.mapper.DiscoverCreators(ctx, q, s.now(), s.cfg.MappingMaxCandidates)
	var broad *mapping.ErrQueryTooBroad
	if errors.As(err, &broad) {
		return nil, NewAPIError(http.StatusUnprocessableEntity, CodeQueryTooBroad, tooBroadMessage(broad, "authors", "its filters keep")).
			WithSuggestion("Narrow it: fewer or more specific keywords, a higher posted_about_topic_strength, fewer posted_about_days, or firmographic filters.")
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	spent, err := s.spend(ctx, credits.DiscoverCreators, int64(len(results)), "discover-creators")
	if err != nil {
		return nil, err
	}
	out := creatorsData{Results: make([]creatorOut, 0, len(results)), Page: q.Page, Total: total}
	for _, c := range results {
		pp := c.Person
		out.Results = append(out.Results, creatorOut{Name: cmpOr(pp.FullName, strings.TrimSpace(pp.FirstName+" "+pp.LastName)),
			PronetURL: pp.PronetURL, Avatar: pp.Avatar, Location: countryName(pp.Country), Company: pp.Company,
			CompanyDomain: pp.CompanyDomain, JobTitle: pp.JobTitle, CompanySize: pp.CompanySize, CompanyIndustry: pp.Industry,
			CompanyLogo: pp.CompanyLogo, Followers: knownOrZero(pp.Followers), AvgLast10Engagement: c.AvgEngagement, AvgDaysBetweenPosts: c.AvgDaysBetween,
			QualifyingPosts: c.QualifyingPosts})
	}
	return &MeteredReply[creatorsData]{SpentCredits: spent, Body: Envelope[creatorsData]{Message: "Creators", Success: true, Data: out}}, nil
}

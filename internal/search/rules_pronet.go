package search

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// PronetPosts is the body of a pronet keyword search (and of its preview).
type PronetPosts struct {
	Name                 string   `json:"name,omitempty"`
	Keywords             []string `json:"keywords,omitempty"`
	KeywordsAnd          []string `json:"keywords_and,omitempty"`
	KeywordsNot          []string `json:"keywords_not,omitempty"`
	JobTitles            []string `json:"job_titles,omitempty"`
	ContentType          string   `json:"content_type,omitempty"`
	PronetSortBy         string   `json:"pronet_sort_by,omitempty"`
	MentionsMember       []string `json:"mentions_member,omitempty"`
	MentionsOrganization []string `json:"mentions_organization,omitempty"`
	TimeFrame            string   `json:"time_frame,omitempty"`
	MaxResults           int      `json:"max_results,omitempty"`
	Frequency            string   `json:"frequency,omitempty"`
	WebhookURL           string   `json:"webhook_url,omitempty"`
}

// PronetProfile is the body of a pronet profile monitor (and of its preview).
type PronetProfile struct {
	Name       string `json:"name,omitempty"`
	ProfileURL string `json:"profile_url"`
	MaxResults int    `json:"max_results,omitempty"`
	Frequency  string `json:"frequency,omitempty"`
	// TimeFrame is how far back the first run reads (later runs read
	// what is newer than the last post collected).
	TimeFrame  string `json:"time_frame,omitempty"`
	WebhookURL string `json:"webhook_url,omitempty"`
}

// Limits of a pronet keyword search besides MaxKeywords.
const (
	MaxJobTitles     = 10
	MaxJobTitleLen   = 100
	MaxMentions      = 10
	maxPronetKeyword = 100
)

// Definition validates the body, fills in the defaults and lists every problem.
func (b PronetPosts) Definition(r Rules) (Definition, Problems) {
	var p Problems
	if r.ForCreate {
		checkName(b.Name, &p)
	}
	d := Definition{
		Keywords:     pronetKeywords("keywords", b.Keywords, &p),
		KeywordsAnd:  pronetKeywords("keywords_and", b.KeywordsAnd, &p),
		KeywordsNot:  pronetKeywords("keywords_not", b.KeywordsNot, &p),
		JobTitles:    cleanList("job_titles", b.JobTitles, &p),
		TimeFrame:    timeFrame(b.TimeFrame, "time_frame", PronetTimeFrames(), &p),
		MaxResults:   maxResults(b.MaxResults, "max_results", &p),
		Frequency:    frequency(b.Frequency, "frequency", &p),
		ContentType:  contentType(b.ContentType, "content_type", &p),
		PronetSortBy: pronetSortBy(b.PronetSortBy, "pronet_sort_by", &p),
		SearchType:   DefaultSearchType,
	}
	if len(b.Keywords) > MaxKeywords {
		p.add("keywords", "holds %d items; at most %d are allowed", len(b.Keywords), MaxKeywords)
	} else if total := len(b.Keywords) + len(b.KeywordsAnd) + len(b.KeywordsNot); total > MaxKeywords {
		p.add("keywords", "keywords, keywords_and and keywords_not hold %d items together; at most %d are allowed", total, MaxKeywords)
	}
	checkJobTitles("job_titles", b.JobTitles, &p)
	if len(b.MentionsMember) > MaxMentions {
		p.add("mentions_member", "holds %d items; at most %d are allowed", len(b.MentionsMember), MaxMentions)
	}
	for i, m := range b.MentionsMember {
		urn, err := pronet.ParseMemberURN(m)
		if err != nil {
			p.add(fmt.Sprintf("mentions_member[%d]", i), "must be a member URN such as urn:li:member:123456789 (the pronet_urn of POST /v1/profile/enrich)")
			continue
		}
		d.MentionsMember = appendNew(d.MentionsMember, urn)
	}
	if len(b.MentionsOrganization) > MaxMentions {
		p.add("mentions_organization", "holds %d items; at most %d are allowed", len(b.MentionsOrganization), MaxMentions)
	}
	for i, o := range b.MentionsOrganization {
		id, err := pronet.ParseCompanyID(o)
		if err != nil {
			p.add(fmt.Sprintf("mentions_organization[%d]", i), "must be a numeric company id such as 1441")
			continue
		}
		d.MentionsOrganization = appendNew(d.MentionsOrganization, id)
	}
	mentions := len(b.MentionsMember) > 0 || len(b.MentionsOrganization) > 0
	if len(b.Keywords)+len(b.KeywordsAnd) == 0 && !mentions {
		p.add("keywords", "is required unless mentions_member or mentions_organization is given")
	}
	d.WebhookURL = webhookURL(b.WebhookURL, "webhook_url", &p)
	return d, p
}

// Definition validates the body, fills in the defaults and lists every problem.
func (b PronetProfile) Definition(r Rules) (Definition, Problems) {
	var p Problems
	if r.ForCreate {
		checkName(b.Name, &p)
	}
	hosts := r.PronetHosts
	if len(hosts) == 0 {
		hosts = pronet.DefaultHosts()
	}
	username, err := pronet.ParseProfileURL(strings.TrimSpace(b.ProfileURL), hosts)
	if err != nil {
		p.add("profile_url", "must be a /in/ profile URL on %s, e.g. https://www.linkedin.com/in/jane-doe", strings.Join(hosts, " or "))
	}
	d := Definition{
		Keywords: []string{}, KeywordsAnd: []string{}, KeywordsNot: []string{}, JobTitles: []string{},
		TimeFrame:  timeFrame(b.TimeFrame, "time_frame", PronetTimeFrames(), &p),
		MaxResults: maxResults(b.MaxResults, "max_results", &p),
		Frequency:  frequency(b.Frequency, "frequency", &p),
		SearchType: DefaultSearchType,
	}
	if err == nil {
		d.ProfileURL, d.ProfileUsername = pronet.ProfileURL(username), username
	}
	d.WebhookURL = webhookURL(b.WebhookURL, "webhook_url", &p)
	return d, p
}

// pronetKeywords trims the keywords and reports those with nothing to search
// for once the quotes the provider's syntax cannot escape are dropped.
func pronetKeywords(field string, in []string, p *Problems) []string {
	out := make([]string, 0, len(in))
	for i, v := range in {
		v = strings.Join(strings.Fields(strings.ReplaceAll(v, `"`, " ")), " ")
		switch {
		case v == "":
			p.add(fmt.Sprintf("%s[%d]", field, i), "must not be empty")
			continue
		case len([]rune(v)) > maxPronetKeyword:
			p.add(fmt.Sprintf("%s[%d]", field, i), "must be at most %d characters", maxPronetKeyword)
		}
		out = append(out, v)
	}
	return out
}

func checkJobTitles(field string, titles []string, p *Problems) {
	if len(titles) > MaxJobTitles {
		p.add(field, "holds %d items; at most %d are allowed", len(titles), MaxJobTitles)
	}
	for i, t := range titles {
		if len([]rune(strings.TrimSpace(t))) > MaxJobTitleLen {
			p.add(fmt.Sprintf("%s[%d]", field, i), "must be at most %d characters", MaxJobTitleLen)
		}
	}
}

// contentType reads a content_type in the spec's spelling or lower case.
func contentType(v, field string, p *Problems) string {
	v = cmp.Or(strings.TrimSpace(v), DefaultContentType)
	for _, ct := range pronet.ContentTypes() {
		if strings.EqualFold(v, ct) {
			return ct
		}
	}
	p.add(field, "must be one of %s", strings.Join(pronet.ContentTypes(), ", "))
	return v
}

// pronetSortBy reads a pronet_sort_by in any case.
func pronetSortBy(v, field string, p *Problems) string {
	v = strings.ToLower(cmp.Or(strings.TrimSpace(v), DefaultPronetSortBy))
	if v != pronet.SortDate && v != pronet.SortRelevance {
		p.add(field, "must be date_posted or relevance")
	}
	return v
}

func appendNew(list []string, v string) []string {
	for _, have := range list {
		if have == v {
			return list
		}
	}
	return append(list, v)
}

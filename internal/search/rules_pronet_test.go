package search_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

func TestPronetRulesListEveryProblemByField(t *testing.T) {
	_, ps := search.PronetPosts{Keywords: []string{"ok", `""`}, JobTitles: []string{strings.Repeat("t", 101)}, ContentType: "reels",
		PronetSortBy: "likes", MentionsMember: []string{"jane"}, MentionsOrganization: []string{"acme"}, TimeFrame: "past-year",
		MaxResults: 5, Frequency: "sometimes"}.Definition(search.Rules{ForCreate: true})
	want := []string{"name", "keywords[1]", "job_titles[0]", "content_type", "pronet_sort_by", "mentions_member[0]",
		"mentions_organization[0]", "time_frame", "max_results", "frequency"}
	for _, f := range want {
		if !slices.Contains(fields(ps), f) {
			t.Errorf("problems %v do not name %s", ps, f)
		}
	}
	d, ps := search.PronetPosts{MentionsMember: []string{"urn:li:member:12", "urn:li:member:12"}, ContentType: "LIVEVIDEOS"}.Definition(search.Rules{})
	if len(ps) != 0 || !slices.Equal(d.MentionsMember, []string{"urn:li:member:12"}) || d.ContentType != "liveVideos" ||
		d.PronetSortBy != "date_posted" || d.TimeFrame != "past-week" || d.MaxResults != 50 {
		t.Fatalf("mention-only preview body = %+v, %v", d, ps)
	}
	_, ps = search.PronetProfile{Name: "x", ProfileURL: "https://www.linkedin.com/company/acme"}.Definition(search.Rules{ForCreate: true})
	if !slices.Equal(fields(ps), []string{"profile_url"}) {
		t.Fatalf("profile problems = %v", ps)
	}
}

// FuzzPronetPostsDefinition: any body is judged without panicking, and a
// body without problems makes a definition the connector can send as is.
func FuzzPronetPostsDefinition(f *testing.F) {
	f.Add("sales", "crm", "spam", "founder", "posts", "relevance", "urn:li:member:1", "1441", "past-24h", 10)
	f.Add(`"`, "", "", "", "LIVEVIDEOS", "", "", "", "", 0)
	f.Add("", "", "", "", "", "", "urn:li:member:0", "01", "all-time", 101)
	f.Fuzz(func(t *testing.T, kw, and, not, title, contentType, sortBy, member, org, timeFrame string, maxResults int) {
		opt := func(v string) []string {
			if v == "" {
				return nil
			}
			return strings.Split(v, "|")
		}
		b := search.PronetPosts{Name: "x", Keywords: opt(kw), KeywordsAnd: opt(and), KeywordsNot: opt(not), JobTitles: opt(title),
			ContentType: contentType, PronetSortBy: sortBy, MentionsMember: opt(member), MentionsOrganization: opt(org),
			TimeFrame: timeFrame, MaxResults: maxResults}
		d, ps := b.Definition(search.Rules{ForCreate: true})
		for _, p := range ps {
			if p.Field == "" || p.Message == "" {
				t.Fatalf("problem without field or message: %+v", p)
			}
		}
		if len(ps) > 0 {
			return
		}
		if n := len(d.Keywords) + len(d.KeywordsAnd) + len(d.KeywordsNot); n > search.MaxKeywords ||
			len(d.Keywords)+len(d.KeywordsAnd)+len(d.MentionsMember)+len(d.MentionsOrganization) == 0 {
			t.Fatalf("accepted %d keywords, mentions %v %v", n, d.MentionsMember, d.MentionsOrganization)
		}
		for _, k := range slices.Concat(d.Keywords, d.KeywordsAnd, d.KeywordsNot) {
			if k == "" || strings.Contains(k, `"`) || k != strings.TrimSpace(k) {
				t.Fatalf("accepted keyword %q", k)
			}
		}
		for _, m := range d.MentionsMember {
			if urn, err := pronet.ParseMemberURN(m); err != nil || urn != m {
				t.Fatalf("accepted member %q", m)
			}
		}
		if !slices.Contains(pronet.ContentTypes(), d.ContentType) || !slices.Contains(search.PronetTimeFrames(), d.TimeFrame) ||
			(d.PronetSortBy != pronet.SortDate && d.PronetSortBy != pronet.SortRelevance) || d.MaxResults < 10 || d.MaxResults > 100 {
			t.Fatalf("accepted definition %+v", d)
		}
	})
}

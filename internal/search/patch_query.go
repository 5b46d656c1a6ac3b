package search

import "strings"

// PatchQuery is the query.* a patch may change: the keyword lists of a
// keyword search. A list that is nil is left as it is; [] empties it.
type PatchQuery struct {
	Keywords    []string `json:"keywords,omitempty"`
	KeywordsAnd []string `json:"keywords_and,omitempty"`
	KeywordsNot []string `json:"keywords_not,omitempty"`
}

func (q *PatchQuery) given() bool {
	return q != nil && (q.Keywords != nil || q.KeywordsAnd != nil || q.KeywordsNot != nil)
}

// or is v when it was given, else was.
func or(v, was []string) []string {
	if v != nil {
		return v
	}
	return was
}

// requery applies the patch's keywords and mentions to d by checking the
// whole definition again with the rules of a create, so a patched search
// holds what a created one may (keyword count, compiled query length,
// mentions), and its query is compiled anew from the result at each run.
// Each problem is named at its place in the patch body.
func requery(kind Kind, d Definition, q *PatchQuery, f *PatchFilters, r Rules, p *Problems) Definition {
	mentions := f != nil && (f.MentionsMember != nil || f.MentionsOrganization != nil)
	if !q.given() && !mentions {
		return d
	}
	if q == nil {
		q = &PatchQuery{}
	}
	if f == nil {
		f = &PatchFilters{}
	}
	if mentions && kind != KindPronetPosts {
		if f.MentionsMember != nil {
			p.add("filters.mentions_member", "applies to pronet-posts searches only")
		}
		if f.MentionsOrganization != nil {
			p.add("filters.mentions_organization", "applies to pronet-posts searches only")
		}
	}
	if q.given() && (kind == KindProfile || kind == KindPronetProfile) {
		p.add("query.keywords", "applies to keyword searches, not to profile monitors")
	}
	if len(*p) > 0 {
		return d
	}
	r.ForCreate = false
	var (
		nd Definition
		ps Problems
	)
	switch kind {
	case KindPosts:
		var hasMedia *string
		if d.HasMedia != "" {
			hasMedia = &d.HasMedia
		}
		nd, ps = MicroblogPosts{
			Keywords: or(q.Keywords, d.Keywords), KeywordsAnd: or(q.KeywordsAnd, d.KeywordsAnd), KeywordsNot: or(q.KeywordsNot, d.KeywordsNot),
			TimeFrame: d.TimeFrame, MaxResults: d.MaxResults, Frequency: string(d.Frequency), SearchType: d.SearchType,
			MicroblogLanguage: d.Language, ExcludeRetweets: d.ExcludeRetweets, ExcludeReplies: d.ExcludeReplies,
			VerifiedOnly: d.VerifiedOnly, HasLinks: d.HasLinks, UseFullArchive: d.UseFullArchive, HasMedia: hasMedia,
			FromUsers: d.FromUsers, ToUser: d.ToUser, URLContains: d.URLContains, RetweetsOf: d.RetweetsOf,
			ConversationID: d.ConversationID, ListID: d.ListID, ContextAnnotation: d.ContextAnnotation, PlaceCountry: d.PlaceCountry,
		}.Definition(r)
	case KindPronetPosts:
		nd, ps = PronetPosts{
			Keywords: or(q.Keywords, d.Keywords), KeywordsAnd: or(q.KeywordsAnd, d.KeywordsAnd), KeywordsNot: or(q.KeywordsNot, d.KeywordsNot),
			JobTitles: d.JobTitles, ContentType: d.ContentType, PronetSortBy: d.PronetSortBy,
			MentionsMember: or(f.MentionsMember, d.MentionsMember), MentionsOrganization: or(f.MentionsOrganization, d.MentionsOrganization),
			TimeFrame: d.TimeFrame, MaxResults: d.MaxResults, Frequency: string(d.Frequency),
		}.Definition(r)
	default:
		return d
	}
	for _, pr := range ps {
		switch {
		case strings.HasPrefix(pr.Field, "keywords"):
			pr.Field = "query." + pr.Field
		case strings.HasPrefix(pr.Field, "mentions_"):
			pr.Field = "filters." + pr.Field
		}
		*p = append(*p, pr)
	}
	d.Keywords, d.KeywordsAnd, d.KeywordsNot = nd.Keywords, nd.KeywordsAnd, nd.KeywordsNot
	d.MentionsMember, d.MentionsOrganization = nd.MentionsMember, nd.MentionsOrganization
	return d
}

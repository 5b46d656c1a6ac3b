package httpapi

import (
	"context"

	"github.com/trawlhq/trawl/internal/search"
)

// pronetPostsBody is the body of POST /v1/searches/pronet/posts and its
// preview; its rules are search.PronetPosts's.
type pronetPostsBody struct {
	Name                 string   `json:"name,omitempty" maxLength:"255" doc:"1-255 characters; required to create, ignored by the preview."`
	Keywords             []string `json:"keywords,omitempty" maxItems:"10" doc:"OR keywords (phrases are searched as phrases); may be omitted only with mentions_member or mentions_organization."`
	KeywordsAnd          []string `json:"keywords_and,omitempty" doc:"Keywords that must all be present."`
	KeywordsNot          []string `json:"keywords_not,omitempty" doc:"Excluded keywords. keywords, keywords_and and keywords_not hold at most 10 items together."`
	JobTitles            []string `json:"job_titles,omitempty" maxItems:"10" doc:"Keep posts whose author's current job title contains one of these (case-insensitive)."`
	ContentType          string   `json:"content_type,omitempty" doc:"posts (default: every post), videos, photos, liveVideos, collaborativeArticles or documents." example:"posts"`
	PronetSortBy         string   `json:"pronet_sort_by,omitempty" doc:"date_posted (default) or relevance." example:"date_posted"`
	MentionsMember       []string `json:"mentions_member,omitempty" maxItems:"10" doc:"Member URNs (urn:li:member:<id>, as POST /v1/profile/enrich returns them in pronet_urn); keeps posts mentioning any of them."`
	MentionsOrganization []string `json:"mentions_organization,omitempty" maxItems:"10" doc:"Numeric company ids; keeps posts mentioning any of them."`
	TimeFrame            string   `json:"time_frame,omitempty" enum:"past-24h,past-week,past-month,PAST-24H,PAST-WEEK,PAST-MONTH" doc:"Default past-week."`
	MaxResults           int      `json:"max_results,omitempty" minimum:"10" maximum:"100" doc:"Results per run, 10-100; default 50."`
	Frequency            string   `json:"frequency,omitempty" enum:"HOURLY,EVERY_12H,DAILY,WEEKLY,MONTHLY,QUARTERLY,hourly,every_12h,daily,weekly,monthly,quarterly" doc:"Default DAILY; HOURLY needs ENTERPRISE or CUSTOM. Ignored by the preview."`
	WebhookURL           string   `json:"webhook_url,omitempty" doc:"Absolute http(s) URL that receives each run's new results, signed as Standard Webhooks (see GET /v1/searches/{id}/deliveries)."`
}

// pronetProfileBody is the body of POST /v1/searches/pronet/profile and its
// preview; its rules are search.PronetProfile's.
type pronetProfileBody struct {
	Name       string `json:"name,omitempty" maxLength:"255" doc:"1-255 characters; required to create, ignored by the preview."`
	ProfileURL string `json:"profile_url" doc:"The member's /in/ profile URL, e.g. https://www.linkedin.com/in/jane-doe." example:"https://www.linkedin.com/in/jane-doe"`
	MaxResults int    `json:"max_results,omitempty" minimum:"10" maximum:"100" doc:"Results per run, 10-100; default 50."`
	Frequency  string `json:"frequency,omitempty" enum:"HOURLY,EVERY_12H,DAILY,WEEKLY,MONTHLY,QUARTERLY,hourly,every_12h,daily,weekly,monthly,quarterly" doc:"Default DAILY; HOURLY needs ENTERPRISE or CUSTOM. Ignored by the preview."`
	TimeFrame  string `json:"time_frame,omitempty" enum:"past-24h,past-week,past-month,PAST-24H,PAST-WEEK,PAST-MONTH" doc:"How far back the first run reads; default past-week."`
	WebhookURL string `json:"webhook_url,omitempty" doc:"Absolute http(s) URL that receives each run's new results, signed as Standard Webhooks (see GET /v1/searches/{id}/deliveries)."`
}

func (b pronetPostsBody) definition(r search.Rules) (search.Definition, search.Problems) {
	return search.PronetPosts(b).Definition(r)
}

func (b pronetProfileBody) definition(r search.Rules) (search.Definition, search.Problems) {
	return search.PronetProfile(b).Definition(r)
}

func (s *Server) handleCreatePronetPostsSearch(ctx context.Context, in *searchInput[pronetPostsBody]) (*searchCreatedReply, error) {
	return s.createSearch(ctx, in.Body.Name, search.KindPronetPosts, in.def)
}

func (s *Server) handleCreatePronetProfileSearch(ctx context.Context, in *searchInput[pronetProfileBody]) (*searchCreatedReply, error) {
	return s.createSearch(ctx, in.Body.Name, search.KindPronetProfile, in.def)
}

func (s *Server) handlePreviewPronetPosts(ctx context.Context, in *searchInput[pronetPostsBody]) (*previewReply, error) {
	return s.preview(ctx, search.KindPronetPosts, in.def)
}

func (s *Server) handlePreviewPronetProfile(ctx context.Context, in *searchInput[pronetProfileBody]) (*previewReply, error) {
	return s.preview(ctx, search.KindPronetProfile, in.def)
}

package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

// postsBody is the body of POST /v1/searches/microblog/posts and its preview.
type postsBody struct {
	Name              string   `json:"name,omitempty" maxLength:"255" doc:"1-255 characters; required to create, ignored by the preview."`
	Keywords          []string `json:"keywords,omitempty" maxItems:"10" doc:"OR keywords; may be omitted only with a standalone operator."`
	KeywordsAnd       []string `json:"keywords_and,omitempty" doc:"Keywords that must all be present."`
	KeywordsNot       []string `json:"keywords_not,omitempty" doc:"Excluded keywords. keywords, keywords_and and keywords_not hold at most 10 items together."`
	TimeFrame         string   `json:"time_frame,omitempty" enum:"past-24h,past-week,past-month,past-6-months,past-year,all-time,PAST-24H,PAST-WEEK,PAST-MONTH,PAST-6-MONTHS,PAST-YEAR,ALL-TIME" doc:"Default past-week."`
	MaxResults        int      `json:"max_results,omitempty" minimum:"10" maximum:"100" doc:"Results per run, 10-100; default 50."`
	Frequency         string   `json:"frequency,omitempty" enum:"HOURLY,EVERY_12H,DAILY,WEEKLY,MONTHLY,QUARTERLY,hourly,every_12h,daily,weekly,monthly,quarterly" doc:"Default DAILY; HOURLY needs ENTERPRISE or CUSTOM. Ignored by the preview."`
	SearchType        string   `json:"search_type,omitempty" enum:"Top,Latest,Videos,Photos,top,latest,videos,photos" doc:"Default Latest."`
	MicroblogLanguage string   `json:"microblog_language,omitempty" doc:"Language code, e.g. en or pt-BR."`
	ExcludeRetweets   bool     `json:"exclude_retweets,omitempty"`
	ExcludeReplies    bool     `json:"exclude_replies,omitempty"`
	VerifiedOnly      bool     `json:"verified_only,omitempty"`
	HasLinks          bool     `json:"has_links,omitempty"`
	UseFullArchive    bool     `json:"use_full_archive,omitempty" doc:"Needs a key with full-archive access."`
	HasMedia          *string  `json:"has_media,omitempty" nullable:"true" doc:"any, images or video; null means no filter."`
	FromUsers         []string `json:"from_users,omitempty" doc:"Usernames (standalone operator)."`
	ToUser            string   `json:"to_user,omitempty" doc:"Username (standalone operator)."`
	URLContains       string   `json:"url_contains,omitempty" doc:"Standalone operator."`
	RetweetsOf        string   `json:"retweets_of,omitempty" doc:"Username (standalone operator)."`
	ConversationID    string   `json:"conversation_id,omitempty" doc:"Numeric post id (standalone operator)."`
	ListID            string   `json:"list_id,omitempty" doc:"Numeric list id (standalone operator)."`
	ContextAnnotation string   `json:"context_annotation,omitempty" doc:"domain_id.entity_id (standalone operator)."`
	PlaceCountry      string   `json:"place_country,omitempty" doc:"ISO 3166-1 alpha-2 country code (standalone operator)."`
	WebhookURL        string   `json:"webhook_url,omitempty" doc:"Absolute http(s) URL that receives each run's new results, signed as Standard Webhooks (see GET /v1/searches/{id}/deliveries)."`
}

// profileBody is the body of POST /v1/searches/microblog/profile and its preview.
type profileBody struct {
	Name       string `json:"name,omitempty" maxLength:"255" doc:"1-255 characters; required to create, ignored by the preview."`
	ProfileURL string `json:"profile_url" doc:"A profile URL on x.com or twitter.com, e.g. https://x.com/jack."`
	MaxResults int    `json:"max_results,omitempty" minimum:"10" maximum:"100" doc:"Results per run, 10-100; default 50."`
	Frequency  string `json:"frequency,omitempty" enum:"HOURLY,EVERY_12H,DAILY,WEEKLY,MONTHLY,QUARTERLY,hourly,every_12h,daily,weekly,monthly,quarterly" doc:"Default DAILY. Ignored by the preview."`
	WebhookURL string `json:"webhook_url,omitempty" doc:"Absolute http(s) URL that receives each run's new results, signed as Standard Webhooks (see GET /v1/searches/{id}/deliveries)."`
}

// addSearchProblems adds the rule problems of a search body.
func addSearchProblems(ps search.Problems, p *problems) {
	for _, sp := range ps {
		field := "body"
		if sp.Field != "" {
			field += "." + sp.Field
		}
		p.add(field, "%s", sp.Message)
	}
}

// rules are the settings the search rules read, for a create or a preview.
func (s *Server) rules(forCreate bool) search.Rules {
	return search.Rules{ForCreate: forCreate, QueryMaxLength: s.cfg.QueryMaxLength,
		MicroblogHosts: s.cfg.MicroblogHosts, PronetHosts: s.cfg.PronetHosts}
}

// gate enforces the plan and key requirements of a definition.
func gate(p auth.Principal, d search.Definition) error {
	g := d.Gate(p.Account.Plan, p.Key.FullArchive)
	switch {
	case g == nil:
		return nil
	case g.Feature != "":
		return planRequired(p.Account.Plan, g.Feature).
			WithSuggestion("Use DAILY or another frequency, or upgrade to ENTERPRISE or CUSTOM for HOURLY.")
	}
	return NewAPIError(http.StatusForbidden, CodeElevatedAccess, "use_full_archive needs a key with full-archive access.",
		Detail{Field: "body." + g.Field, Message: g.Message}).
		WithSuggestion("Create a key with `trawl keys create --full-archive`, or drop use_full_archive.")
}

// searchQuery and searchFilters are the spec's query.* and filters.* of a saved search.
type searchQuery struct {
	Keywords          []string `json:"keywords"`
	KeywordsAnd       []string `json:"keywords_and"`
	KeywordsNot       []string `json:"keywords_not"`
	MonitoringType    string   `json:"monitoring_type" enum:"microblog-posts,microblog-profile,pronet-posts,pronet-profile"`
	ProfileURL        string   `json:"profile_url,omitempty"`
	MicroblogLanguage string   `json:"microblog_language,omitempty"`
	ExcludeRetweets   bool     `json:"exclude_retweets,omitempty"`
	ExcludeReplies    bool     `json:"exclude_replies,omitempty"`
	VerifiedOnly      bool     `json:"verified_only,omitempty"`
	HasLinks          bool     `json:"has_links,omitempty"`
	UseFullArchive    bool     `json:"use_full_archive,omitempty"`
	HasMedia          string   `json:"has_media,omitempty"`
	FromUsers         []string `json:"from_users,omitzero" doc:"Microblog keyword searches ([] when none)."`
	ToUser            string   `json:"to_user,omitempty"`
	URLContains       string   `json:"url_contains,omitempty"`
	RetweetsOf        string   `json:"retweets_of,omitempty"`
	ConversationID    string   `json:"conversation_id,omitempty"`
	ListID            string   `json:"list_id,omitempty"`
	ContextAnnotation string   `json:"context_annotation,omitempty"`
	PlaceCountry      string   `json:"place_country,omitempty"`

	// Pronet keyword searches.
	MentionsMember       []string `json:"mentions_member,omitzero" doc:"Pronet keyword searches: member URNs whose mentions the search keeps ([] when none)."`
	MentionsOrganization []string `json:"mentions_organization,omitzero" doc:"Pronet keyword searches: numeric ids of companies whose mentions the search keeps ([] when none)."`
}

type searchFilters struct {
	TimeFrame    string   `json:"time_frame"`
	MaxResults   int      `json:"max_results"`
	Frequency    string   `json:"frequency"`
	JobTitles    []string `json:"job_titles"`
	SearchType   string   `json:"search_type,omitempty" doc:"Microblog searches."`
	ContentType  string   `json:"content_type,omitempty" doc:"Pronet keyword searches."`
	PronetSortBy string   `json:"pronet_sort_by,omitempty" doc:"Pronet keyword searches."`
}

type searchStats struct {
	ResultsToday    int64 `json:"results_today" doc:"Results collected since 00:00 UTC."`
	ResultsThisWeek int64 `json:"results_this_week" doc:"Results collected since Monday 00:00 UTC."`
}

// savedSearch is a saved search as the API shows it.
type savedSearch struct {
	ID            string        `json:"id"`
	Name          string        `json:"name"`
	Status        string        `json:"status" enum:"active,paused,completed"`
	CreatedAt     string        `json:"created_at"`
	UpdatedAt     string        `json:"updated_at"`
	LastResultAt  *string       `json:"last_result_at"`
	TotalResults  int64         `json:"total_results"`
	Query         searchQuery   `json:"query"`
	Filters       searchFilters `json:"filters"`
	LastRunAt     *string       `json:"last_run_at" doc:"When the search last ran."`
	NextRunAt     *string       `json:"next_run_at" doc:"When it runs next; null unless active."`
	LastError     *string       `json:"last_error" doc:"Why the last run failed; null after a successful run."`
	Stats         *searchStats  `json:"stats,omitempty" doc:"Only in GET /v1/searches/{id}."`
	CreditsCharge *int64        `json:"credits_charged,omitempty" doc:"Only on creation."`
	// The hosted API's SearchSummary has it here; clients of it read it.
	MonitoringType string  `json:"monitoring_type" enum:"microblog-posts,microblog-profile,pronet-posts,pronet-profile" doc:"Same as query.monitoring_type."`
	WebhookURL     *string `json:"webhook_url" doc:"Where each run's new results are POSTed; null when none."`
	WebhookSecret  *string `json:"webhook_secret,omitempty" doc:"The webhook's signing secret (whsec_…), shown once, in the answer of the write that created it."`
}

// searchCreatedReply answers a create: the hosted API puts credits_charged
// beside data too, where its clients read it.
type searchCreatedReply struct {
	SpentCredits int64 `header:"x-spent-credits" doc:"Credits this request spent."`
	Body         struct {
		Envelope[savedSearch]
		CreditsCharged int64 `json:"credits_charged" doc:"Credits the creation spent (as data.credits_charged)."`
	}
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

func toSavedSearch(s search.Search) savedSearch {
	d := s.Definition
	out := savedSearch{
		ID: s.ID, Name: s.Name, Status: string(s.Status), MonitoringType: string(s.Kind),
		CreatedAt: formatTime(s.CreatedAt), UpdatedAt: formatTime(s.UpdatedAt),
		LastResultAt: optTime(s.LastResultAt), TotalResults: s.TotalResults,
		Query: searchQuery{
			Keywords: nonNil(d.Keywords), KeywordsAnd: nonNil(d.KeywordsAnd), KeywordsNot: nonNil(d.KeywordsNot),
			MonitoringType: string(s.Kind), ProfileURL: d.ProfileURL, MicroblogLanguage: d.Language,
			ExcludeRetweets: d.ExcludeRetweets, ExcludeReplies: d.ExcludeReplies, VerifiedOnly: d.VerifiedOnly,
			HasLinks: d.HasLinks, UseFullArchive: d.UseFullArchive, HasMedia: d.HasMedia,
			ToUser: d.ToUser, URLContains: d.URLContains, RetweetsOf: d.RetweetsOf, ConversationID: d.ConversationID,
			ListID: d.ListID, ContextAnnotation: d.ContextAnnotation, PlaceCountry: d.PlaceCountry,
		},
		Filters: searchFilters{TimeFrame: d.TimeFrame, MaxResults: d.MaxResults, Frequency: string(d.Frequency),
			JobTitles: nonNil(d.JobTitles), ContentType: d.ContentType, PronetSortBy: d.PronetSortBy},
		LastRunAt: optTime(s.LastRunAt),
	}
	if !s.Kind.Pronet() {
		out.Filters.SearchType = d.SearchType
	}
	// The lists of one kind are there, [] when empty, on that kind only.
	switch s.Kind {
	case search.KindPosts:
		out.Query.FromUsers = nonNil(d.FromUsers)
	case search.KindPronetPosts:
		out.Query.MentionsMember, out.Query.MentionsOrganization = nonNil(d.MentionsMember), nonNil(d.MentionsOrganization)
	}
	if s.Status == search.StatusActive {
		out.NextRunAt = optTime(s.NextRunAt)
	}
	if s.LastError != "" {
		out.LastError = &s.LastError
	}
	if d.WebhookURL != "" {
		out.WebhookURL = &d.WebhookURL
	}
	return out
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// searchBody is the body of a saved search's create and preview, checked
// by its kind's rules.
type searchBody interface {
	definition(search.Rules) (search.Definition, search.Problems)
}

func (b postsBody) definition(r search.Rules) (search.Definition, search.Problems) {
	return search.MicroblogPosts(b).Definition(r)
}

func (b profileBody) definition(r search.Rules) (search.Definition, search.Problems) {
	return search.MicroblogProfile(b).Definition(r)
}

// searchInput is the input of a saved search's create and preview; check
// keeps the definition.
type searchInput[B searchBody] struct {
	Body B
	def  search.Definition
}

func (in *searchInput[B]) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *searchInput[B]) check(ctx huma.Context, s *Server, p *problems) error {
	d, ps := in.Body.definition(s.rules(!previewing(ctx)))
	in.def = d
	addSearchProblems(ps, p)
	return nil
}

func (s *Server) createSearch(ctx context.Context, name string, kind search.Kind, d search.Definition) (*searchCreatedReply, error) {
	p := principalFrom(ctx)
	if err := gate(p, d); err != nil {
		return nil, err
	}
	sr := search.Search{AccountID: p.Account.ID, Name: strings.TrimSpace(name), Kind: kind, Definition: d}
	shown := s.ensureSearchWebhookSecret(&sr)
	charge := credits.Charge{AccountID: p.Account.ID, Feature: credits.SearchCreate, Amount: 1, Allocation: s.cfg.MonthlyCredits(p.Account),
		Action: "POST /v1/searches/" + strings.Replace(string(kind), "-", "/", 1)}
	if err := s.store.CreateSearchWithin(ctx, &sr, charge, s.cfg.SearchRunLease, s.cfg.SearchLimit(p.Account.Plan)); err != nil {
		return nil, s.fail(ctx, err)
	}
	out := toSavedSearch(sr)
	out.CreditsCharge, out.WebhookSecret = &charge.Amount, shown
	r := &searchCreatedReply{SpentCredits: charge.Amount}
	r.Body.Envelope = Envelope[savedSearch]{Message: "Search created", Success: true, Data: out}
	r.Body.CreditsCharged = charge.Amount
	return r, nil
}

func (s *Server) handleCreatePostsSearch(ctx context.Context, in *searchInput[postsBody]) (*searchCreatedReply, error) {
	return s.createSearch(ctx, in.Body.Name, search.KindPosts, in.def)
}

func (s *Server) handleCreateProfileSearch(ctx context.Context, in *searchInput[profileBody]) (*searchCreatedReply, error) {
	return s.createSearch(ctx, in.Body.Name, search.KindProfile, in.def)
}

// Previews.

type previewMeta struct {
	Count          int    `json:"count"`
	TotalAvailable int    `json:"total_available" doc:"Results the upstream returned for the query within max_results."`
	MonitoringType string `json:"monitoring_type" enum:"microblog-posts,microblog-profile,pronet-posts,pronet-profile"`
}

type previewReply struct {
	Body struct {
		Message string        `json:"message"`
		Success bool          `json:"success"`
		Data    []source.Item `json:"data"`
		Meta    previewMeta   `json:"meta"`
	}
}

func (s *Server) preview(ctx context.Context, kind search.Kind, d search.Definition) (*previewReply, error) {
	if err := gate(principalFrom(ctx), d); err != nil {
		return nil, err
	}
	// Nothing stored: the same fetch code as a first run.
	items, err := s.collector.Preview(ctx, search.Search{Kind: kind, Definition: d})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := &previewReply{}
	out.Body.Message, out.Body.Success = "Preview", true
	out.Body.Data = items
	if out.Body.Data == nil {
		out.Body.Data = []source.Item{}
	}
	out.Body.Meta = previewMeta{Count: len(items), TotalAvailable: len(items), MonitoringType: string(kind)}
	return out, nil
}

func (s *Server) handlePreviewPosts(ctx context.Context, in *searchInput[postsBody]) (*previewReply, error) {
	return s.preview(ctx, search.KindPosts, in.def)
}

func (s *Server) handlePreviewProfile(ctx context.Context, in *searchInput[profileBody]) (*previewReply, error) {
	return s.preview(ctx, search.KindProfile, in.def)
}

// Management.

type searchIDInput struct {
	ID string `path:"id" doc:"Search id."`
}

func (s *Server) accountSearch(ctx context.Context, id string) (search.Search, error) {
	sr, err := s.store.AccountSearch(ctx, principalFrom(ctx).Account.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return search.Search{}, notFound("Search " + id)
	}
	if err != nil {
		return search.Search{}, s.fail(ctx, err)
	}
	return sr, nil
}

func (s *Server) handleGetSearch(ctx context.Context, in *searchIDInput) (*Reply[savedSearch], error) {
	sr, err := s.accountSearch(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	st, err := s.store.SearchStats(ctx, sr.ID, s.now())
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := toSavedSearch(sr)
	out.Stats = &searchStats{ResultsToday: st.ResultsToday, ResultsThisWeek: st.ResultsThisWeek}
	return reply("Search", out), nil
}

type patchFilters struct {
	TimeFrame    string   `json:"time_frame,omitempty" enum:"past-24h,past-week,past-month,past-6-months,past-year,all-time,PAST-24H,PAST-WEEK,PAST-MONTH,PAST-6-MONTHS,PAST-YEAR,ALL-TIME" doc:"Pronet searches take past-24h, past-week or past-month."`
	MaxResults   int      `json:"max_results,omitempty" minimum:"10" maximum:"100"`
	Frequency    string   `json:"frequency,omitempty" enum:"HOURLY,EVERY_12H,DAILY,WEEKLY,MONTHLY,QUARTERLY,hourly,every_12h,daily,weekly,monthly,quarterly"`
	JobTitles    []string `json:"job_titles,omitempty" doc:"Pronet keyword searches keep posts whose author's current title contains one (case-insensitive); at most 10."`
	ContentType  string   `json:"content_type,omitempty" doc:"Pronet keyword searches only: posts, videos, photos, liveVideos, collaborativeArticles or documents."`
	PronetSortBy string   `json:"pronet_sort_by,omitempty" doc:"Pronet keyword searches only: date_posted or relevance."`
	// The hosted API's PATCH takes them; checked again as a create checks them.
	MentionsMember       []string `json:"mentions_member,omitempty" maxItems:"10" doc:"Pronet keyword searches only: member URNs, replacing the search's ([] empties them)."`
	MentionsOrganization []string `json:"mentions_organization,omitempty" maxItems:"10" doc:"Pronet keyword searches only: numeric company ids, replacing the search's ([] empties them)."`
}

// patchQuery is the query a patch may change: a keyword search's lists,
// each replacing the search's when given; checked again as a create checks them.
type patchQuery struct {
	Keywords    []string `json:"keywords,omitempty" maxItems:"10" doc:"OR keywords."`
	KeywordsAnd []string `json:"keywords_and,omitempty" doc:"Keywords that must all be present."`
	KeywordsNot []string `json:"keywords_not,omitempty" doc:"Excluded keywords. The three lists hold at most 10 items together."`
}

type patchSearchInput struct {
	ID   string `path:"id" doc:"Search id."`
	Body struct {
		Name       *string       `json:"name,omitempty" doc:"1-255 characters."`
		Status     string        `json:"status,omitempty" enum:"active,paused,ACTIVE,PAUSED"`
		Query      *patchQuery   `json:"query,omitempty" doc:"Keyword searches: new keyword lists; the query is checked and compiled anew."`
		Filters    *patchFilters `json:"filters,omitempty"`
		WebhookURL *string       `json:"webhook_url,omitempty" doc:"Sets the webhook_url (a new one gets a signing secret, shown once in this answer); \"\" clears it."`
	}
	patched search.Search
	resumed bool
}

func (in *patchSearchInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

// check applies the patch to the search it names, kept with whether it
// resumed it.
func (in *patchSearchInput) check(ctx huma.Context, s *Server, p *problems) error {
	sr, err := s.accountSearch(ctx.Context(), in.ID)
	if err != nil {
		return err
	}
	patch := search.Patch{Name: in.Body.Name, Status: in.Body.Status, Query: (*search.PatchQuery)(in.Body.Query), Filters: (*search.PatchFilters)(in.Body.Filters),
		WebhookURL: in.Body.WebhookURL}
	resumed, ps := patch.ApplyRules(&sr, s.now(), s.rules(false))
	in.patched, in.resumed = sr, resumed
	addSearchProblems(ps, p)
	return nil
}

func (s *Server) handlePatchSearch(ctx context.Context, in *patchSearchInput) (*Reply[savedSearch], error) {
	sr := in.patched
	if err := gate(principalFrom(ctx), sr.Definition); err != nil {
		return nil, err
	}
	shown := s.ensureSearchWebhookSecret(&sr)
	if err := s.store.UpdateSearch(ctx, &sr, in.resumed, s.cfg.SearchRunLease); err != nil {
		return nil, s.fail(ctx, err)
	}
	out := toSavedSearch(sr)
	out.WebhookSecret = shown
	return reply("Search updated", out), nil
}

type deletedData struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

func (s *Server) handleDeleteSearch(ctx context.Context, in *searchIDInput) (*Reply[deletedData], error) {
	err := s.store.DeleteSearch(ctx, principalFrom(ctx).Account.ID, in.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("Search " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Search deleted", deletedData{ID: in.ID, Deleted: true}), nil
}

type listSearchesInput struct {
	Status   string `query:"status" enum:"active,paused,completed,ACTIVE,PAUSED,COMPLETED" doc:"Only searches in this status."`
	Limit    int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Searches per page, 1-100."`
	PageSize int    `query:"page_size" minimum:"1" maximum:"100" doc:"Alias of limit (give one of them)."`
	Cursor   string `query:"cursor" doc:"next_cursor of the previous page."`
}

// Resolve implements huma.Resolver: page_size, the alias of limit.
func (in *listSearchesInput) Resolve(ctx huma.Context) []error {
	var p problems
	cursorPageSize(queryOf(ctx), &in.Limit, in.PageSize, 100, &p)
	return p.errs()
}

type pagination struct {
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
	TotalCount *int64  `json:"total_count,omitempty"`
}

// newPagination describes a page whose successor starts at next ("" on the
// last page).
func newPagination(next string, total *int64) pagination {
	p := pagination{HasMore: next != "", TotalCount: total}
	if next != "" {
		p.NextCursor = &next
	}
	return p
}

type listSearchesReply struct {
	Body struct {
		Message    string        `json:"message"`
		Success    bool          `json:"success"`
		Data       []savedSearch `json:"data"`
		Pagination pagination    `json:"pagination"`
	}
}

func badCursor() error {
	return validationError(Detail{Field: "query.cursor", Message: "is not a cursor this API returned"})
}

func (s *Server) handleListSearches(ctx context.Context, in *listSearchesInput) (*listSearchesReply, error) {
	page, err := s.store.ListSearches(ctx, principalFrom(ctx).Account.ID, search.Status(strings.ToLower(in.Status)), in.Limit, in.Cursor)
	if errors.Is(err, store.ErrBadCursor) {
		return nil, badCursor()
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := &listSearchesReply{}
	out.Body.Message, out.Body.Success = "Searches", true
	out.Body.Data = make([]savedSearch, 0, len(page.Searches))
	for _, sr := range page.Searches {
		out.Body.Data = append(out.Body.Data, toSavedSearch(sr))
	}
	out.Body.Pagination = newPagination(page.NextCursor, nil)
	return out, nil
}

type runData struct {
	SearchID     string `json:"search_id"`
	NewResults   int    `json:"new_results" doc:"Results this run collected that were not stored yet."`
	TotalResults int64  `json:"total_results"`
}

func (s *Server) handleRunSearch(ctx context.Context, in *searchIDInput) (*Reply[runData], error) {
	sr, err := s.accountSearch(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if sr.Status != search.StatusActive {
		return nil, NewAPIError(http.StatusConflict, CodeConflict, "The search is "+string(sr.Status)+"; only active searches run.").
			WithSuggestion(`Resume it with PATCH {"status": "active"} first.`)
	}
	out, err := s.collector.Run(ctx, sr.ID)
	if errors.Is(err, search.ErrNotRunnable) || errors.Is(err, search.ErrGone) {
		return nil, notFound("Search " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Search ran", runData{SearchID: sr.ID, NewResults: out.NewResults, TotalResults: out.TotalResults}), nil
}

package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/topic"
)

// topicBody is the body of POST /v1/topics.
type topicBody struct {
	Name        string   `json:"name" maxLength:"255" doc:"1-255 characters."`
	Keywords    []string `json:"keywords" minItems:"1" maxItems:"10" doc:"Any of these (OR)."`
	KeywordsAnd []string `json:"keywords_and,omitempty" doc:"All of these."`
	KeywordsNot []string `json:"keywords_not,omitempty" doc:"None of these. keywords, keywords_and and keywords_not hold at most 10 items together."`
	JobTitles   []string `json:"job_titles,omitempty" doc:"Keep only engagers whose title contains one of these (case-insensitive); empty keeps everyone."`
	TimeFrame   string   `json:"time_frame,omitempty" enum:"past-24h,past-week,past-month,PAST-24H,PAST-WEEK,PAST-MONTH" doc:"Age of the posts a discovery links; default past-week."`
	MaxResults  int      `json:"max_results,omitempty" minimum:"10" maximum:"100" doc:"Posts linked per discovery run, 10-100; default 50."`
	ContentType string   `json:"content_type,omitempty" enum:"posts,videos,photos,liveVideos,collaborativeArticles,documents,livevideos,collaborativearticles" doc:"Kind of posts; default posts (every kind)."`
	SortBy      string   `json:"sort_by,omitempty" enum:"date_posted,relevance,DATE_POSTED,RELEVANCE" doc:"Default date_posted."`
}

func (b topicBody) definition(p *problems) topic.Definition {
	checkName(b.Name, p)
	d := topic.Definition{
		Keywords:    cleanList("body.keywords", b.Keywords, p),
		KeywordsAnd: cleanList("body.keywords_and", b.KeywordsAnd, p),
		KeywordsNot: cleanList("body.keywords_not", b.KeywordsNot, p),
		JobTitles:   cleanList("body.job_titles", b.JobTitles, p),
		TimeFrame:   cmpOr(strings.ToLower(b.TimeFrame), topic.DefaultTimeFrame),
		MaxResults:  cmpOr(b.MaxResults, topic.DefaultMaxResults),
		ContentType: cmpOr(canonicalContentType(b.ContentType), topic.DefaultContentType),
		SortBy:      cmpOr(strings.ToLower(b.SortBy), topic.DefaultSortBy),
	}
	if n := len(b.Keywords) + len(b.KeywordsAnd) + len(b.KeywordsNot); n > topic.MaxKeywords {
		p.add("body.keywords", "keywords, keywords_and and keywords_not hold %d items together; at most %d are allowed", n, topic.MaxKeywords)
	}
	return d
}

// canonicalContentType spells a content_type the spec's way (the schema
// also accepts it in lower case).
func canonicalContentType(s string) string {
	for _, v := range topic.ContentTypes() {
		if strings.EqualFold(s, v) {
			return v
		}
	}
	return s
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// topicOut is a topic as the API shows it: the spec's fields and what a user
// needs to see the work.
type topicOut struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Status           string   `json:"status" enum:"ACTIVE,PAUSED,STOPPED,EXPIRED"`
	Keywords         []string `json:"keywords"`
	KeywordsAnd      []string `json:"keywords_and"`
	KeywordsNot      []string `json:"keywords_not"`
	JobTitles        []string `json:"job_titles"`
	TimeFrame        string   `json:"time_frame"`
	MaxResults       int      `json:"max_results"`
	ContentType      string   `json:"content_type" doc:"posts (every kind, the default) or the kind of attachment the posts carry."`
	SortBy           string   `json:"sort_by"`
	ExpiresAt        string   `json:"expires_at" doc:"End of the 30-day lifecycle."`
	LastRun          *string  `json:"last_run" doc:"Most recent discovery run."`
	NewItems         bool     `json:"new_items" doc:"Whether the last run linked new posts."`
	NumberOfNewItems int      `json:"number_of_new_items"`
	Created          string   `json:"created"`
	Updated          string   `json:"updated"`
	PostsCount       int64    `json:"posts_count"`
	EngagementsCount int64    `json:"engagements_count"`
	NextRunAt        *string  `json:"next_run_at" doc:"Next discovery (06:00 UTC daily); null unless active."`
	LastError        *string  `json:"last_error" doc:"Why the last collection failed or waits; null when all is well."`
}

func toTopic(t topic.Topic) topicOut {
	out := topicOut{ID: t.ID, Name: t.Name, Status: string(t.Status),
		Keywords: nonNil(t.Definition.Keywords), KeywordsAnd: nonNil(t.Definition.KeywordsAnd),
		KeywordsNot: nonNil(t.Definition.KeywordsNot), JobTitles: nonNil(t.Definition.JobTitles),
		TimeFrame: t.Definition.TimeFrame, MaxResults: t.Definition.MaxResults, SortBy: t.Definition.SortBy,
		// Topics created before the default was stored have none.
		ContentType: cmpOr(t.Definition.ContentType, topic.DefaultContentType),
		ExpiresAt:   formatTime(t.ExpiresAt), LastRun: optTime(t.LastRunAt), NewItems: t.NewItems,
		NumberOfNewItems: t.NumberOfNewItems, Created: formatTime(t.CreatedAt), Updated: formatTime(t.UpdatedAt),
		PostsCount: t.PostsCount, EngagementsCount: t.EngagementsCount}
	if t.Status == topic.StatusActive {
		out.NextRunAt = optTime(t.NextRunAt)
	}
	if t.LastError != "" {
		out.LastError = &t.LastError
	}
	return out
}

type createTopicInput struct {
	Body topicBody
	def  topic.Definition
}

func (in *createTopicInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *createTopicInput) check(_ huma.Context, _ *Server, p *problems) error {
	in.def = in.Body.definition(p)
	return nil
}

type topicCreated struct {
	Message        string   `json:"message"`
	Success        bool     `json:"success"`
	Data           topicOut `json:"data"`
	CreditsCharged int64    `json:"credits_charged" doc:"Creating is free; collected posts and engagements cost 1 credit each."`
}

type createTopicReply struct{ Body topicCreated }

func (s *Server) handleCreateTopic(ctx context.Context, in *createTopicInput) (*createTopicReply, error) {
	t := topic.Topic{AccountID: principalFrom(ctx).Account.ID, Name: strings.TrimSpace(in.Body.Name), Definition: in.def}
	if err := s.store.CreateTopic(ctx, &t, s.cfg.SearchRunLease); err != nil {
		return nil, s.fail(ctx, err)
	}
	return &createTopicReply{Body: topicCreated{Message: "Topic created", Success: true, Data: toTopic(t)}}, nil
}

type topicIDInput struct {
	ID string `path:"id" doc:"Topic id."`
}

func (s *Server) accountTopic(ctx context.Context, id string) (topic.Topic, error) {
	t, err := s.store.AccountTopic(ctx, principalFrom(ctx).Account.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return topic.Topic{}, notFound("Topic " + id)
	}
	if err != nil {
		return topic.Topic{}, s.fail(ctx, err)
	}
	return t, nil
}

func (s *Server) handleGetTopic(ctx context.Context, in *topicIDInput) (*Reply[topicOut], error) {
	t, err := s.accountTopic(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return reply("Topic", toTopic(t)), nil
}

type pageInfo struct {
	Page       int     `json:"page"`
	PageSize   int     `json:"page_size"`
	TotalCount int64   `json:"total_count"`
	TotalPages int64   `json:"total_pages"`
	NextCursor *string `json:"next_cursor,omitempty" doc:"Engagers list in cursor mode: pass as cursor for the next page; absent on the last page."`
}

func newPageInfo(q PageQuery, total int64) pageInfo {
	return pageInfo{Page: q.Page, PageSize: q.PageSize, TotalCount: total,
		TotalPages: (total + int64(q.PageSize) - 1) / int64(q.PageSize)}
}

type listTopicsInput struct {
	PageQuery
	Status string `query:"status" enum:"ACTIVE,PAUSED,STOPPED,EXPIRED,active,paused,stopped,expired" doc:"Only topics in this status."`
}

type pagedReply[T any] struct {
	Body struct {
		Message    string   `json:"message"`
		Success    bool     `json:"success"`
		Data       []T      `json:"data"`
		Pagination pageInfo `json:"pagination"`
	}
}

func paged[T any](message string, items []T, q PageQuery, total int64) *pagedReply[T] {
	out := &pagedReply[T]{}
	out.Body.Message, out.Body.Success, out.Body.Data = message, true, items
	out.Body.Pagination = newPageInfo(q, total)
	return out
}

func (s *Server) handleListTopics(ctx context.Context, in *listTopicsInput) (*pagedReply[topicOut], error) {
	ts, total, err := s.store.ListTopics(ctx, principalFrom(ctx).Account.ID, topic.Status(strings.ToUpper(in.Status)), in.Page, in.PageSize)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	items := make([]topicOut, 0, len(ts))
	for _, t := range ts {
		items = append(items, toTopic(t))
	}
	return paged("Topics", items, in.PageQuery, total), nil
}

type patchTopicInput struct {
	ID   string `path:"id" doc:"Topic id."`
	Body struct {
		Name   *string `json:"name,omitempty" doc:"1-255 characters."`
		Status string  `json:"status,omitempty" enum:"ACTIVE,PAUSED,STOPPED,active,paused,stopped" doc:"PAUSED stops collecting until ACTIVE again; STOPPED is final."`
	}
}

func (in *patchTopicInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *patchTopicInput) check(_ huma.Context, _ *Server, p *problems) error {
	if in.Body.Name != nil {
		checkName(*in.Body.Name, p)
	}
	return nil
}

func (s *Server) handlePatchTopic(ctx context.Context, in *patchTopicInput) (*Reply[topicOut], error) {
	t, err := s.accountTopic(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if in.Body.Name != nil {
		t.Name = strings.TrimSpace(*in.Body.Name)
	}
	if st := topic.Status(strings.ToUpper(in.Body.Status)); st != "" {
		t.Status = st
	}
	err = s.store.UpdateTopic(ctx, &t, s.cfg.SearchRunLease)
	switch {
	case errors.Is(err, store.ErrConflict):
		return nil, NewAPIError(http.StatusConflict, CodeConflict, "The topic has ended and cannot change.",
			Detail{Field: "body.status", Message: "the topic is STOPPED or EXPIRED, which is final"}).
			WithSuggestion("Create a new topic.")
	case errors.Is(err, store.ErrNotFound):
		return nil, notFound("Topic " + in.ID)
	case err != nil:
		return nil, s.fail(ctx, err)
	}
	if t, err = s.accountTopic(ctx, in.ID); err != nil {
		return nil, err
	}
	return reply("Topic updated", toTopic(t)), nil
}

func (s *Server) handleDeleteTopic(ctx context.Context, in *topicIDInput) (*Reply[deletedData], error) {
	err := s.store.DeleteTopic(ctx, principalFrom(ctx).Account.ID, in.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("Topic " + in.ID)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Topic deleted", deletedData{ID: in.ID, Deleted: true}), nil
}

// topicPostOut is a linked post: the pronet post record and the link.
type topicPostOut struct {
	pronet.Post
	LinkedAt          string  `json:"linked_at"`
	DiscoveryInterval string  `json:"discovery_interval" enum:"initial,rediscovery"`
	EngagementsCount  int64   `json:"engagements_count" doc:"Engagements the topic keeps on this post."`
	NextFollowUpAt    *string `json:"next_follow_up_at" doc:"Next Day 1/3/5 collection; null when done."`
}

type topicPagedInput struct {
	ID string `path:"id" doc:"Topic id."`
	PageQuery
}

func (s *Server) handleTopicPosts(ctx context.Context, in *topicPagedInput) (*pagedReply[topicPostOut], error) {
	t, err := s.accountTopic(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	posts, total, err := s.store.TopicPosts(ctx, t.ID, in.Page, in.PageSize)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	items := make([]topicPostOut, 0, len(posts))
	for _, p := range posts {
		out := topicPostOut{LinkedAt: formatTime(p.LinkedAt), DiscoveryInterval: string(p.DiscoveryInterval),
			EngagementsCount: p.EngagementsCount}
		if err := json.Unmarshal(p.Record, &out.Post); err != nil {
			return nil, s.fail(ctx, err)
		}
		if t.Status == topic.StatusActive {
			out.NextFollowUpAt = optTime(p.NextFollowUpAt)
		}
		items = append(items, out)
	}
	return paged("Topic posts", items, in.PageQuery, total), nil
}

type engagementOut struct {
	ID                string `json:"id"`
	ProspectID        string `json:"prospect_id" doc:"The person's pronet URN."`
	PronetPostID      string `json:"pronet_post_id"`
	DiscoveryInterval string `json:"discovery_interval" enum:"initial,rediscovery,day1,day3,day5"`
	Created           string `json:"created"`
	Prospect          struct {
		FullName  string `json:"full_name"`
		PronetURL string `json:"pronet_url"`
		JobTitle  string `json:"job_title"`
		Company   string `json:"company"`
	} `json:"prospect"`
	Engagement struct {
		Type string `json:"type" enum:"like,comment"`
		Text string `json:"text"`
	} `json:"engagement"`
}

func toEngagements(es []store.Engagement) []engagementOut {
	out := make([]engagementOut, 0, len(es))
	for _, e := range es {
		o := engagementOut{ID: e.ID, ProspectID: e.Person.URN, PronetPostID: e.PostURN,
			DiscoveryInterval: string(e.DiscoveryInterval), Created: formatTime(e.CreatedAt)}
		o.Prospect.FullName, o.Prospect.PronetURL = e.Person.FullName, e.Person.PronetURL
		o.Prospect.JobTitle, o.Prospect.Company = cmpOr(e.Person.JobTitle, e.Person.Headline), e.Person.Company
		o.Engagement.Type, o.Engagement.Text = e.Type, e.Text
		out = append(out, o)
	}
	return out
}

type topicEngagersInput struct {
	ID string `path:"id" doc:"Topic id."`
	PageQuery
	Cursor string `query:"cursor" doc:"Start after this next_cursor of a previous page instead of at page: deep pages cost what the first does. Send cursor=start for the first page in this mode."`
	AuthorQuery
}

// Resolve implements huma.Resolver: the paging (no page or offset beside a
// cursor) and the author filters. PageQuery's and AuthorQuery's resolvers
// are called from here: with this one, huma does not call theirs.
func (in *topicEngagersInput) Resolve(ctx huma.Context) []error {
	var p problems
	raw := queryOf(ctx)
	in.PageQuery.resolve(raw, &p)
	noCursorWithPage(raw, &p)
	return append(p.errs(), in.AuthorQuery.Resolve(ctx)...)
}

func (s *Server) handleTopicEngagers(ctx context.Context, in *topicEngagersInput) (*huma.StreamResponse, error) {
	t, err := s.accountTopic(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if in.csv {
		exp := s.store.ExportTopicEngagers(t.ID, in.filter, csvBatch)
		return s.csvAnswer(ctx, "topic-"+t.ID+"-engagers.csv", engagersCSVHeader, func(ctx context.Context) ([][]string, error) {
			es, err := exp.Next(ctx)
			out := make([][]string, len(es))
			for i, e := range es {
				out[i] = engagerRecord(e)
			}
			return out, err
		})
	}
	q := in.PageQuery
	if in.Cursor == "" {
		es, total, err := s.store.FilteredTopicEngagers(ctx, t.ID, in.filter, in.Page, in.PageSize)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		return s.jsonAnswer(paged("Topic engagements", toEngagements(es), q, total).Body), nil
	}
	cursor := in.Cursor
	if cursor == "start" {
		cursor = store.FirstEngagersCursor()
	}
	es, next, total, err := s.store.FilteredTopicEngagersAfter(ctx, t.ID, in.filter, cursor, in.PageSize)
	if errors.Is(err, store.ErrBadCursor) {
		return nil, badCursor()
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := paged("Topic engagements", toEngagements(es), q, total)
	out.Body.Pagination.NextCursor = &next
	if next == "" {
		out.Body.Pagination.NextCursor = nil
	}
	return s.jsonAnswer(out.Body), nil
}

type postEngagementsInput struct {
	ID     string `path:"id" doc:"Topic id."`
	PostID string `path:"post_id" doc:"Pronet post id (the numeric activity id, as pronet_post_id and urn show it)."`
	PageQuery
}

func (s *Server) handlePostEngagements(ctx context.Context, in *postEngagementsInput) (*pagedReply[engagementOut], error) {
	t, err := s.accountTopic(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	urn, err := pronet.ParsePostURN(in.PostID)
	if err != nil {
		return nil, notFound("Post " + in.PostID + " of topic " + in.ID)
	}
	if ok, err := s.store.TopicHasPost(ctx, t.ID, urn); err != nil {
		return nil, s.fail(ctx, err)
	} else if !ok {
		return nil, notFound("Post " + in.PostID + " of topic " + in.ID)
	}
	es, total, err := s.store.PostEngagements(ctx, t.ID, urn, in.Page, in.PageSize)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return paged("Post engagements", toEngagements(es), in.PageQuery, total), nil
}

type creditsSummaryInput struct {
	ID   string `path:"id" doc:"Topic id."`
	From string `query:"from" doc:"ISO 8601; default the start of the current billing period."`
	To   string `query:"to" doc:"ISO 8601; default the end of the current billing period."`

	from, to time.Time
}

func (in *creditsSummaryInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *creditsSummaryInput) check(_ huma.Context, s *Server, p *problems) error {
	now := s.now()
	in.from, in.to = period(in.From, in.To, credits.PeriodStart(now), credits.PeriodEnd(now).Add(-time.Millisecond), p)
	return nil
}

type intervalCredits struct {
	Interval string  `json:"interval" enum:"initial,rediscovery,day1,day3,day5"`
	Credits  float64 `json:"credits"`
	// BilledEngagementsCount is what the hosted API gives per interval.
	BilledEngagementsCount int64  `json:"billed_engagements_count" doc:"Engagements billed in this interval."`
	UpstreamCost           string `json:"upstream_cost_usd" doc:"What the interval's upstream calls (its discovery or its hydrations) cost at the vendor, in USD with 6 decimals (a Trawl addition)." example:"0.012000"`
}

// creditsPeriod is the period a credits summary covers.
type creditsPeriod struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Source string `json:"source" enum:"billing_period,query" doc:"billing_period when from and to were not given."`
}

// creditsSummaryReply carries period and allocation_method beside data too,
// where the hosted API has them.
type creditsSummaryReply struct {
	Body struct {
		Envelope[creditsSummaryOut]
		Period           creditsPeriod `json:"period"`
		AllocationMethod string        `json:"allocation_method" enum:"split_evenly" doc:"As data.allocation_method."`
	}
}

type creditsSummaryOut struct {
	Period                      creditsPeriod     `json:"period"`
	AllocationMethod            string            `json:"allocation_method" enum:"split_evenly" doc:"A post or engagement several of the account's topics share is paid once and split evenly between them."`
	TotalCredits                float64           `json:"total_credits"`
	NewPostCredits              float64           `json:"new_post_credits"`
	EngagementCredits           float64           `json:"engagement_credits"`
	BilledPostsCount            int64             `json:"billed_posts_count"`
	BilledEngagementsCount      int64             `json:"billed_engagements_count"`
	LastChargedAt               *string           `json:"last_charged_at"`
	EngagementCreditsByInterval []intervalCredits `json:"engagement_credits_by_interval"`
	UpstreamCost                string            `json:"upstream_cost_usd" doc:"What the topic's collection cost at the vendor in the period, in USD with 6 decimals (a Trawl addition): its discoveries, its even share of the hydrations of the posts it links (as credits are split) and of the profile reads of its people (profiles_upstream_cost_usd), failed calls the vendor billed included." example:"0.086000"`
	ProfilesUpstreamCost        string            `json:"profiles_upstream_cost_usd" doc:"The part of upstream_cost_usd that reading the profiles of the topic's engagers and post authors cost, its even share of each read with the other active topics showing the person (a Trawl addition; no credits and no interval of engagement_credits_by_interval)." example:"0.008000"`
}

func (s *Server) handleTopicCreditsSummary(ctx context.Context, in *creditsSummaryInput) (*creditsSummaryReply, error) {
	from, to := in.from, in.to
	t, err := s.accountTopic(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	sum, err := s.store.TopicCreditsSummary(ctx, t, from, to)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	cost, err := s.store.TopicUpstreamCost(ctx, t.ID, from, to)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	var out creditsSummaryOut
	out.Period.From, out.Period.To, out.Period.Source = formatTime(from), formatTime(to), "billing_period"
	if in.From != "" || in.To != "" {
		out.Period.Source = "query"
	}
	out.AllocationMethod = "split_evenly"
	out.NewPostCredits, out.EngagementCredits = round4(sum.NewPostCredits), round4(sum.EngagementCredits)
	out.TotalCredits = round4(sum.NewPostCredits + sum.EngagementCredits)
	out.BilledPostsCount, out.BilledEngagementsCount = sum.BilledPosts, sum.BilledEngagements
	out.LastChargedAt = optTime(sum.LastChargedAt)
	out.EngagementCreditsByInterval = []intervalCredits{}
	for _, iv := range []topic.Interval{topic.Initial, topic.Rediscovery, topic.Day1, topic.Day3, topic.Day5} {
		out.EngagementCreditsByInterval = append(out.EngagementCreditsByInterval,
			intervalCredits{Interval: string(iv), Credits: round4(sum.EngagementCreditsByInt[iv]), BilledEngagementsCount: sum.EngagementsByInt[iv],
				UpstreamCost: source.Micros(cost.ByInterval[iv]).USD()})
	}
	out.UpstreamCost = source.Micros(cost.Total).USD()
	out.ProfilesUpstreamCost = source.Micros(cost.ByInterval[topic.ProfileReads]).USD()
	r := &creditsSummaryReply{}
	r.Body.Envelope = reply("Topic credits summary", out).Body
	r.Body.Period, r.Body.AllocationMethod = out.Period, out.AllocationMethod
	return r, nil
}

// round4 keeps four decimals of an evenly split credit amount.
func round4(v float64) float64 {
	const scale = 10000
	r := v * scale
	if r < 0 {
		return float64(int64(r-0.5)) / scale
	}
	return float64(int64(r+0.5)) / scale
}

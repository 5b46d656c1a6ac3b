package httpapi

import (
	"context"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// postURNProblem is what a bad post identifier is told.
const postURNProblem = "must be a post URL such as https://www.linkedin.com/feed/update/urn:li:activity:7262340993178763264, urn:li:activity:<id> or the numeric id"

type postByURLRequest struct {
	PostURL string `json:"postUrl" minLength:"1" maxLength:"2048" doc:"URL of the post (/feed/update/urn:li:activity:<id> or /posts/<slug>-activity-<id>-…); urn:li:activity:<id> and the bare id are accepted too." example:"https://www.linkedin.com/feed/update/urn:li:activity:7262340993178763264/"`
}

type postByURLInput struct {
	Body postByURLRequest
	urn  string
}

func (in *postByURLInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *postByURLInput) check(_ huma.Context, _ *Server, p *problems) error {
	in.urn = parsePostField(in.Body.PostURL, "body.postUrl", p)
	return nil
}

func parsePostField(raw, field string, p *problems) string {
	urn, err := pronet.ParsePostURN(raw)
	if err != nil {
		p.add(field, postURNProblem)
	}
	return urn
}

// postCounts are a post's engagement counts, gathered from its record.
type postCounts struct {
	Reactions    int `json:"reactions" doc:"Every reaction (totalReactionCount)."`
	Likes        int `json:"likes"`
	Empathy      int `json:"empathy"`
	Praise       int `json:"praise"`
	Appreciation int `json:"appreciation"`
	Interest     int `json:"interest"`
	Funny        int `json:"funny"`
	Comments     int `json:"comments"`
	Reposts      int `json:"reposts"`
}

// postDetail is one post: the pronet post record, with its counts gathered in counts.
type postDetail struct {
	pronet.Post
	Counts postCounts `json:"counts" doc:"The record's engagement counts in one object."`
}

func (s *Server) handlePostByURL(ctx context.Context, in *postByURLInput) (*MeteredReply[postDetail], error) {
	ctx, bill := meterLookup(ctx, "POST /v1/post/by-url", credits.PostLookups)
	p, err := s.pronet.Post(pronet.Interactive(ctx), in.urn)
	if err != nil {
		return nil, s.failLookup(ctx, bill, "post "+in.urn, "post:"+in.urn, err)
	}
	spent, err := s.charge(ctx, bill, 1, "post:"+in.urn)
	if err != nil {
		return nil, err
	}
	d := postDetail{Post: p, Counts: postCounts{Reactions: p.TotalReactionCount, Likes: p.LikeCount, Empathy: p.EmpathyCount,
		Praise: p.PraiseCount, Appreciation: p.AppreciationCount, Interest: p.InterestCount, Funny: p.FunnyCount,
		Comments: p.CommentsCount, Reposts: p.RepostsCount}}
	return &MeteredReply[postDetail]{SpentCredits: spent, Body: Envelope[postDetail]{
		Message: "Found 1 post.", Success: true, Data: d}}, nil
}

type postCommentsInput struct {
	Body commentsPageRequest
	urn  string
}

func (in *postCommentsInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *postCommentsInput) check(_ huma.Context, _ *Server, p *problems) error {
	in.urn = parsePostField(in.Body.PostURN, "body.postUrn", p)
	return nil
}

func (s *Server) handlePostComments(ctx context.Context, in *postCommentsInput) (*MeteredReply[pronet.CommentsPage], error) {
	return s.comments(ctx, "POST /v1/post/comments", credits.PostLookups, in.urn, in.Body.Page, in.Body.Limit)
}

// comments answers a page of a post's comments, charging feature 1 credit per comment, in the
// ledger under action.
func (s *Server) comments(ctx context.Context, action string, feature credits.Feature, urn string, page, limit int) (*MeteredReply[pronet.CommentsPage], error) {
	page = max(page, 1)
	ref := "post:" + urn + ":page:" + strconv.Itoa(page)
	ctx, bill := meterLookup(ctx, action, feature)
	got, err := s.pronet.Comments(pronet.Interactive(ctx), urn, page, limit)
	if err != nil {
		return nil, s.failLookup(ctx, bill, "post "+urn, ref, err)
	}
	got.Comments = capItems(got.Comments)
	if limit > 0 {
		got.Comments = got.Comments[:min(len(got.Comments), limit)]
	}
	// Replies travel inside the comment they answer; the charge is per comment of the page.
	spent, err := s.charge(ctx, bill, int64(len(got.Comments)), ref)
	if err != nil {
		return nil, err
	}
	return &MeteredReply[pronet.CommentsPage]{SpentCredits: spent, Body: Envelope[pronet.CommentsPage]{
		Message: countMessage(len(got.Comments), "comment"), Success: true, Data: got}}, nil
}

type postEngagementsRequest struct {
	PostURL string `json:"postUrl" minLength:"1" maxLength:"2048" doc:"URL of the post; urn:li:activity:<id> and the bare id are accepted too." example:"https://www.linkedin.com/feed/update/urn:li:activity:7262340993178763264/"`
	Page    int    `json:"page,omitempty" minimum:"1" maximum:"1000" default:"1" doc:"Page of reactions, from 1."`
	Limit   int    `json:"limit,omitempty" minimum:"1" maximum:"100" doc:"Reactions a page (1-100); without it, the provider's page (50)."`
}

type postReactionsInput struct {
	Body postEngagementsRequest
	urn  string
}

func (in *postReactionsInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *postReactionsInput) check(_ huma.Context, _ *Server, p *problems) error {
	in.urn = parsePostField(in.Body.PostURL, "body.postUrl", p)
	return nil
}

// engagementsPage is a page of the people who reacted to a post.
type engagementsPage struct {
	CurrentPage int              `json:"currentPage"`
	Items       []pronet.Reactor `json:"items" doc:"One item per reaction: the person and reactionType (LIKE, PRAISE, EMPATHY, INTEREST, APPRECIATION or ENTERTAINMENT)."`
	Total       int              `json:"total" doc:"Reactions on the post."`
	TotalPages  int              `json:"totalPages"`
}

func (s *Server) handlePostReactions(ctx context.Context, in *postReactionsInput) (*MeteredReply[engagementsPage], error) {
	page := max(in.Body.Page, 1)
	ref := "post:" + in.urn + ":reactions:" + strconv.Itoa(page)
	ctx, bill := meterLookup(ctx, "POST /v1/post/engagements", credits.PostLookups)
	got, err := s.pronet.Reactions(pronet.Interactive(ctx), in.urn, page, in.Body.Limit)
	if err != nil {
		return nil, s.failLookup(ctx, bill, "post "+in.urn, ref, err)
	}
	items := capItems(got.Items)
	if in.Body.Limit > 0 {
		items = items[:min(len(items), in.Body.Limit)]
	}
	spent, err := s.charge(ctx, bill, int64(len(items)), ref)
	if err != nil {
		return nil, err
	}
	return &MeteredReply[engagementsPage]{SpentCredits: spent, Body: Envelope[engagementsPage]{
		Message: countMessage(len(items), "engagement"), Success: true,
		Data: engagementsPage{CurrentPage: page, Items: items, Total: got.Total, TotalPages: got.TotalPage}}}, nil
}

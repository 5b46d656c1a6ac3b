package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/enrich"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// maxLookupItems is the spec's cap on items (and so credits) per live lookup.
const maxLookupItems = action.MaxLookupItems

// profilePostsPageSize is the provider's page of profile posts: page N starts at N×50.
const profilePostsPageSize = 50

type profilePostsRequest struct {
	ProfileURL      string `json:"profileUrl" minLength:"1" maxLength:"2048" doc:"Profile URL of the member, on a pronet host: https://www.linkedin.com/in/<name>." example:"https://www.linkedin.com/in/jane-doe"`
	Page            int    `json:"page,omitempty" minimum:"0" maximum:"1000" default:"0" doc:"Page of 50 posts, from 0 (newest). Ignored when paginationToken is given."`
	After           string `json:"after,omitempty" format:"date-time" doc:"Only posts published after this RFC 3339 date-time." example:"2026-11-01T00:00:00Z"`
	PaginationToken string `json:"paginationToken,omitempty" maxLength:"2048" doc:"paginationToken of a previous response, to read the next page."`
}

type profilePostsInput struct {
	Body     profilePostsRequest
	username string
	after    time.Time
}

func (in *profilePostsInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *profilePostsInput) check(_ huma.Context, s *Server, p *problems) error {
	in.username = s.profileUsername(in.Body.ProfileURL, p)
	if in.Body.After != "" {
		var err error
		if in.after, err = time.Parse(time.RFC3339Nano, in.Body.After); err != nil {
			p.add("body.after", "must be an RFC 3339 date-time such as 2026-11-01T00:00:00Z")
		}
	}
	return nil
}

type profilePostsBody struct {
	Message         string        `json:"message" doc:"What happened."`
	Success         bool          `json:"success" doc:"Always true on success."`
	Data            []pronet.Post `json:"data" maxItems:"50" doc:"The member's posts, newest first."`
	PaginationToken *string       `json:"paginationToken" nullable:"true" doc:"Token for the next page; null on the last page."`
}

type profilePostsReply struct {
	SpentCredits int64 `header:"x-spent-credits" doc:"Credits this request spent: one per post returned."`
	Body         profilePostsBody
}

type companyPostsRequest struct {
	CompanyURL string `json:"companyUrl" minLength:"1" maxLength:"2048" doc:"Full URL of the company page: https://www.linkedin.com/company/<name>." example:"https://www.linkedin.com/company/acme"`
	Limit      int    `json:"limit,omitempty" minimum:"1" maximum:"50" default:"50" doc:"Most posts to return, newest first (1-50)."`
}

type companyPostsInput struct {
	Body companyPostsRequest
	slug string
}

func (in *companyPostsInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *companyPostsInput) check(_ huma.Context, s *Server, p *problems) error {
	var err error
	if in.slug, err = pronet.ParseCompanyURL(in.Body.CompanyURL, s.cfg.PronetHosts); err != nil {
		p.add("body.companyUrl", "must be a company page URL such as https://www.linkedin.com/company/acme")
	}
	return nil
}

// commentsPageRequest asks for a page of a post's comments (company comments and post comments).
type commentsPageRequest struct {
	PostURN string `json:"postUrn" minLength:"1" maxLength:"2048" doc:"Numeric identifier of the post, taken from its URL (urn:li:activity:<id> and post URLs are accepted too)." example:"7262340993178763264"`
	Page    int    `json:"page,omitempty" minimum:"1" maximum:"1000" default:"1" doc:"Page of comments, from 1."`
	Limit   int    `json:"limit,omitempty" minimum:"1" maximum:"100" doc:"Comments a page (1-100); without it, the provider's page (10)."`
}

type companyCommentsInput struct {
	Body commentsPageRequest
	urn  string
}

func (in *companyCommentsInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *companyCommentsInput) check(_ huma.Context, _ *Server, p *problems) error {
	in.urn = parsePostField(in.Body.PostURN, "body.postUrn", p)
	return nil
}

type profileEnrichRequest struct {
	ProfileURL string `json:"profileUrl" minLength:"1" maxLength:"2048" doc:"Full profile URL of the member: https://www.linkedin.com/in/<name>." example:"https://www.linkedin.com/in/jane-doe"`
}

type profileEnrichInput struct {
	Body     profileEnrichRequest
	username string
}

func (in *profileEnrichInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *profileEnrichInput) check(_ huma.Context, s *Server, p *problems) error {
	in.username = s.profileUsername(in.Body.ProfileURL, p)
	return nil
}

// profileUsername is the member of a body's profileUrl.
func (s *Server) profileUsername(raw string, p *problems) string {
	username, err := pronet.ParseProfileURL(raw, s.cfg.PronetHosts)
	if err != nil {
		p.add("body.profileUrl", "must be a profile URL such as https://www.linkedin.com/in/jane-doe")
	}
	return username
}

type enrichedProfile struct {
	Prospect   enrich.Prospect     `json:"prospect" doc:"The person; pronet_urn can be used as a mentions_member value."`
	Experience []enrich.Experience `json:"experience" doc:"Jobs, current ones first."`
}

func (s *Server) handleProfilePosts(ctx context.Context, in *profilePostsInput) (*profilePostsReply, error) {
	username, after := in.username, in.after
	start := in.Body.Page * profilePostsPageSize
	if in.Body.PaginationToken != "" {
		start = 0 // the token alone says where the next page starts
	}
	ctx, bill := meterLookup(ctx, spendAction(credits.ProfilePosts), credits.ProfilePosts)
	posts, next, err := s.pronet.ProfilePosts(pronet.Interactive(ctx), pronet.ProfilePostsParams{Username: username, PaginationToken: in.Body.PaginationToken, Start: start})
	if err != nil {
		return nil, s.failLookup(ctx, bill, "profile "+pronet.ProfileURL(username), "profile:"+username, err)
	}
	if in.Body.After != "" {
		var older bool
		posts, older = postsAfter(posts, after)
		if older {
			// Posts come newest first: once one is too old, every later page is too.
			next = ""
		}
	}
	posts = capItems(posts)
	spent, err := s.charge(ctx, bill, int64(len(posts)), "profile:"+username)
	if err != nil {
		return nil, err
	}
	out := &profilePostsReply{SpentCredits: spent, Body: profilePostsBody{
		Message: countMessage(len(posts), "post"), Success: true, Data: posts}}
	if next != "" {
		out.Body.PaginationToken = &next
	}
	return out, nil
}

func (s *Server) handleCompanyPosts(ctx context.Context, in *companyPostsInput) (*MeteredReply[[]pronet.Post], error) {
	slug := in.slug
	ctx, bill := meterLookup(ctx, spendAction(credits.CompanyPosts), credits.CompanyPosts)
	posts, err := s.pronet.CompanyPosts(pronet.Interactive(ctx), slug)
	if err != nil {
		return nil, s.failLookup(ctx, bill, "company page "+pronet.CompanyURL(slug), "company:"+slug, err)
	}
	posts = capItems(posts)
	if in.Body.Limit > 0 {
		posts = posts[:min(len(posts), in.Body.Limit)]
	}
	spent, err := s.charge(ctx, bill, int64(len(posts)), "company:"+slug)
	if err != nil {
		return nil, err
	}
	return &MeteredReply[[]pronet.Post]{SpentCredits: spent, Body: Envelope[[]pronet.Post]{
		Message: countMessage(len(posts), "post"), Success: true, Data: posts}}, nil
}

func (s *Server) handleCompanyComments(ctx context.Context, in *companyCommentsInput) (*MeteredReply[pronet.CommentsPage], error) {
	return s.comments(ctx, spendAction(credits.CompanyComments), credits.CompanyComments, in.urn, in.Body.Page, in.Body.Limit)
}

func (s *Server) handleProfileEnrich(ctx context.Context, in *profileEnrichInput) (*MeteredReply[enrichedProfile], error) {
	username := in.username
	ctx, bill := meterLookup(ctx, spendAction(credits.ProfileEnrich), credits.ProfileEnrich)
	// The two upstreams are independent; asking both at once halves the wait.
	var (
		person     enrich.Person
		profile    pronet.Profile
		pdlErr     error
		profileErr error
		wg         sync.WaitGroup
	)
	wg.Go(func() { person, pdlErr = s.enrich.PersonByProfile(ctx, pronet.ProfileURL(username)) })
	wg.Go(func() { profile, profileErr = s.pronet.Profile(pronet.Interactive(ctx), username) })
	wg.Wait()
	for _, err := range []error{profileErr, pdlErr} {
		if err != nil && !errors.Is(err, source.ErrNotFound) {
			return nil, enrichFailure(s.failLookup(ctx, bill, "profile", "enrich:"+username, err))
		}
	}
	if profileErr != nil && pdlErr != nil {
		s.recordLookupCost(ctx, bill, "enrich:"+username)
		return nil, notFound("The profile " + pronet.ProfileURL(username)).
			WithSuggestion("Check the profile URL; nothing was charged.")
	}
	prospect, experience := enrich.BuildProspect(person, profile)
	spent, err := s.charge(ctx, bill, 1, "enrich:"+username)
	if err != nil {
		return nil, err
	}
	return &MeteredReply[enrichedProfile]{SpentCredits: spent, Body: Envelope[enrichedProfile]{
		Message: "Profile enriched.", Success: true, Data: enrichedProfile{Prospect: prospect, Experience: experience}}}, nil
}

// lookupFail maps an upstream failure to the error model, naming what was
// looked up ("profile …", "post …") when it does not exist; nothing has been
// charged by then.
// enrichFailure answers an upstream failure of enrichment with 500, as the
// spec's table for the endpoint says ("service error during profile
// enrichment"), where the other lookups answer 502; the code stays
// UPSTREAM_ERROR, which says whose failure it was.
func enrichFailure(err error) error {
	var e *Error
	if errors.As(err, &e) && e.status == http.StatusBadGateway {
		e.status = http.StatusInternalServerError
	}
	return err
}

func (s *Server) lookupFail(ctx context.Context, what string, err error) error {
	if errors.Is(err, source.ErrNotFound) {
		return notFound("The " + what).WithSuggestion("Check the URL or identifier; nothing was charged.")
	}
	return s.fail(ctx, err)
}

// postsAfter keeps the posts published after t and reports whether any was dropped. A post
// whose time cannot be read is dropped: it cannot be shown to be newer.
func postsAfter(posts []pronet.Post, t time.Time) ([]pronet.Post, bool) {
	out := make([]pronet.Post, 0, len(posts))
	dropped := false
	for _, p := range posts {
		if at, ok := postTime(p); ok && at.After(t) {
			out = append(out, p)
			continue
		}
		dropped = true
	}
	return out, dropped
}

func postTime(p pronet.Post) (time.Time, bool) {
	if p.PostedDateTimestamp > 0 {
		return time.UnixMilli(p.PostedDateTimestamp), true
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateTime} {
		if at, err := time.Parse(layout, p.PostedDate); err == nil {
			return at, true
		}
	}
	return time.Time{}, false
}

// capItems enforces the spec's 50 items per request, whatever the provider sent.
func capItems[T any](items []T) []T {
	if items == nil {
		return []T{}
	}
	return items[:min(len(items), maxLookupItems)]
}

func countMessage(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("Found 1 %s.", noun)
	}
	return fmt.Sprintf("Found %d %ss.", n, noun)
}

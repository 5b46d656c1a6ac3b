package httpapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/credits"
)

// spend charges the caller's account amount credits for feature and returns
// what the ledger recorded, for the x-spent-credits header. Spending nothing
// records nothing.
func (s *Server) spend(ctx context.Context, feature credits.Feature, amount int64, reference string) (int64, error) {
	return s.spendAs(ctx, spendAction(feature), feature, amount, reference)
}

// spendAs is spend naming the action (the endpoint) the ledger shows, for a feature that
// several endpoints spend (post_lookups).
func (s *Server) spendAs(ctx context.Context, action string, feature credits.Feature, amount int64, reference string) (int64, error) {
	if amount <= 0 {
		return 0, nil
	}
	p := principalFrom(ctx)
	c := credits.Charge{AccountID: p.Account.ID, Feature: feature, Amount: amount, Allocation: s.cfg.MonthlyCredits(p.Account),
		Reference: reference, Action: action}
	if _, err := s.store.SpendCharge(ctx, c); err != nil {
		return 0, s.fail(ctx, fmt.Errorf("charge %s: %w", feature, err))
	}
	return amount, nil
}

// spendAction is the endpoint that spends a feature's credits, as the
// ledger's action names it ("" for features spent elsewhere).
func spendAction(f credits.Feature) string {
	switch f {
	case credits.ProfilePosts:
		return "POST /v1/profile/posts"
	case credits.CompanyPosts:
		return "POST /v1/company/posts"
	case credits.CompanyComments:
		return "POST /v1/company/comments"
	case credits.ProfileEnrich:
		return "POST /v1/profile/enrich"
	case credits.CompanyEnrich:
		return "POST /v1/company/enrich"
	case credits.SocialMapping:
		return "POST /v1/social/mapping"
	case credits.DiscoverCreators:
		return "POST /v1/discover/creators"
	}
	return ""
}

// spentCreditsHeader is on every answer of a metered endpoint.
const spentCreditsHeader = "x-spent-credits"

// metaMetered marks an operation whose success answer declares
// x-spent-credits.
const metaMetered = "metered"

// markMetered notes, as an operation is registered, whether it is metered:
// its success answer declares the x-spent-credits header.
func markMetered(_ *huma.OpenAPI, op *huma.Operation) {
	for code, r := range op.Responses {
		if _, ok := r.Headers[spentCreditsHeader]; ok && strings.HasPrefix(code, "2") {
			op.Metadata[metaMetered] = true
			return
		}
	}
}

// zeroSpentCredits puts x-spent-credits: 0 on every answer of a metered
// endpoint before anything else runs, so that an answer that charged
// nothing (a 404, a 429, an upstream failure, a refusal) still says so; an
// answer that charged sets its own figure over it.
func (s *Server) zeroSpentCredits(ctx huma.Context, next func(huma.Context)) {
	if metered, _ := ctx.Operation().Metadata[metaMetered].(bool); metered {
		ctx.SetHeader(spentCreditsHeader, "0")
	}
	next(ctx)
}

package httpapi

import (
	"context"
	"strconv"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source"
)

// The hosted API's account and credit endpoints (reference/hosted-api.md,
// 1f and 5): who the key is, what the account has left, where its credits
// went. Credit amounts are strings there, and so they are here.

type accountSubscription struct {
	Plan             string `json:"plan" enum:"STARTER,ENTERPRISE,CUSTOM" doc:"The account's plan."`
	Status           string `json:"status" enum:"active" doc:"Always active: a self-hosted plan does not lapse."`
	CurrentPeriodEnd string `json:"current_period_end" doc:"End of the current billing period (the first instant of next UTC month); credits reset then."`
}

type accountRateLimit struct {
	Tier          string `json:"tier" enum:"LIGHT,ENTERPRISE" doc:"LIGHT on STARTER, ENTERPRISE on ENTERPRISE and CUSTOM (the hosted API's tiers)."`
	Limit         int    `json:"limit" doc:"Requests the key may make per window (the plan's TRAWL_RATE_LIMIT_<PLAN>)."`
	WindowSeconds int    `json:"window_seconds" doc:"Length of the rate-limit window."`
}

type accountData struct {
	UserID         string              `json:"user_id" doc:"The account's id."`
	OrganisationID *string             `json:"organisation_id" doc:"Always null: Trawl has accounts, not organisations."`
	TestMode       bool                `json:"test_mode" doc:"True when the microblog or pronet source is the built-in sandbox (synthetic data)."`
	Permissions    []string            `json:"permissions" doc:"The calling key's permissions ('*' is every one)."`
	Subscription   accountSubscription `json:"subscription"`
	RateLimit      accountRateLimit    `json:"rate_limit"`
}

func (s *Server) handleAccount(ctx context.Context, _ *struct{}) (*Reply[accountData], error) {
	p := principalFrom(ctx)
	perms := make([]string, 0, len(p.Key.Permissions))
	for _, perm := range p.Key.Permissions {
		perms = append(perms, string(perm))
	}
	tier := "ENTERPRISE"
	if p.Account.Plan == auth.PlanStarter {
		tier = "LIGHT"
	}
	return reply("Account", accountData{
		UserID: p.Account.ID, TestMode: s.cfg.MicroblogAPIURL == "" || s.cfg.PronetAPIURL == "",
		Permissions:  perms,
		Subscription: accountSubscription{Plan: string(p.Account.Plan), Status: "active", CurrentPeriodEnd: formatTime(credits.PeriodEnd(s.now()))},
		RateLimit:    accountRateLimit{Tier: tier, Limit: s.cfg.RateLimit(p.Account.Plan), WindowSeconds: int(rateWindow / time.Second)},
	}), nil
}

type creditBalance struct {
	Balance          string `json:"balance" doc:"Credits left this period (as remaining)." example:"958"`
	Used             string `json:"used" doc:"Credits spent this period." example:"42"`
	Limit            string `json:"limit" doc:"The period's allocation: the plan's monthly credits, or the account's own." example:"1000"`
	Remaining        string `json:"remaining" doc:"limit minus used, never below 0." example:"958"`
	SubscriptionPlan string `json:"subscription_plan" enum:"STARTER,ENTERPRISE,CUSTOM"`
	NextReset        string `json:"next_reset" doc:"When the next period starts (the first instant of next UTC month)."`
}

func (s *Server) handleCreditBalance(ctx context.Context, _ *struct{}) (*Reply[creditBalance], error) {
	p := principalFrom(ctx)
	b, err := s.store.Balance(ctx, p.Account.ID, s.cfg.MonthlyCredits(p.Account))
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	left := strconv.FormatInt(b.Remaining(), 10)
	return reply("Credit balance", creditBalance{
		Balance: left, Used: strconv.FormatInt(b.Used, 10), Limit: strconv.FormatInt(b.Allocation, 10), Remaining: left,
		SubscriptionPlan: string(p.Account.Plan), NextReset: formatTime(credits.PeriodEnd(s.now())),
	}), nil
}

type creditDaysInput struct {
	Days int `query:"days" minimum:"1" maximum:"366" default:"30" doc:"The last this many days, 1-366."`
}

type creditUsageInput struct {
	Days   int `query:"days" minimum:"1" maximum:"366" default:"30" doc:"The last this many days, 1-366."`
	Limit  int `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Spends per page, 1-100."`
	Offset int `query:"offset" minimum:"0" maximum:"1000000000" default:"0" doc:"Spends to skip."`
}

type ledgerEntry struct {
	ID            string  `json:"id"`
	Credits       string  `json:"credits" doc:"Credits spent, as a string (as the hosted API gives it)." example:"3"`
	Action        string  `json:"action" doc:"What was paid for: the endpoint (POST /v1/profile/enrich), the workflow step, or the topic collection."`
	Feature       string  `json:"feature" doc:"The usage summary's feature the spend counts under." enum:"search_create,profile_posts,company_posts,company_comments,profile_enrich,company_enrich,post_lookups,social_mapping,discover_creators,social_topics,workflow_execution"`
	Created       string  `json:"created" doc:"When the credits were spent."`
	WorkflowID    *string `json:"workflow_id" doc:"The workflow whose step spent them; null otherwise."`
	SavedSearchID *string `json:"saved_search_id" doc:"The saved search whose creation spent them; null otherwise."`
	UpstreamCost  string  `json:"upstream_cost_usd" doc:"What the upstream vendor billed for the operation, in USD with 6 decimals (a Trawl addition)." example:"0.004000"`
}

type ledgerPagination struct {
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor" doc:"Always null: this list pages by offset."`
	Total      int64   `json:"total" doc:"Spends in the period."`
	Limit      int     `json:"limit"`
	Offset     int     `json:"offset"`
}

type ledgerReply struct {
	Body struct {
		Message    string           `json:"message"`
		Success    bool             `json:"success"`
		Data       []ledgerEntry    `json:"data"`
		Pagination ledgerPagination `json:"pagination"`
	}
}

func optID(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) handleCreditUsage(ctx context.Context, in *creditUsageInput) (*ledgerReply, error) {
	p := principalFrom(ctx)
	entries, total, err := s.store.Ledger(ctx, p.Account.ID, s.now().Add(-time.Duration(in.Days)*24*time.Hour), in.Limit, in.Offset)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := &ledgerReply{}
	out.Body.Message, out.Body.Success = "Credit usage", true
	out.Body.Data = make([]ledgerEntry, 0, len(entries))
	for _, e := range entries {
		action := e.Action
		if action == "" {
			action = string(e.Feature)
		}
		out.Body.Data = append(out.Body.Data, ledgerEntry{ID: e.ID, Credits: strconv.FormatInt(e.Amount, 10), Action: action,
			Feature: string(e.Feature), Created: formatTime(e.CreatedAt), WorkflowID: optID(e.WorkflowID), SavedSearchID: optID(e.SearchID),
			UpstreamCost: source.Micros(e.UpstreamCostMicros).USD()})
	}
	out.Body.Pagination = ledgerPagination{HasMore: int64(in.Offset+len(entries)) < total, Total: total, Limit: in.Limit, Offset: in.Offset}
	return out, nil
}

type featureTotal struct {
	Feature      string `json:"feature" enum:"search_create,profile_posts,company_posts,company_comments,profile_enrich,company_enrich,post_lookups,social_mapping,discover_creators,social_topics,workflow_execution"`
	TotalCredits string `json:"total_credits" doc:"Credits the feature spent in the period, as a string." example:"120"`
	Count        int64  `json:"count" doc:"Spends it took."`
	UpstreamCost string `json:"upstream_cost_usd" doc:"What the feature's upstream calls cost at the vendors in the period, in USD with 6 decimals, those of operations that charged no credits included (a Trawl addition)." example:"0.120000"`
}

func (s *Server) handleCreditBreakdown(ctx context.Context, in *creditDaysInput) (*Reply[[]featureTotal], error) {
	p := principalFrom(ctx)
	totals, err := s.store.LedgerByFeature(ctx, p.Account.ID, s.now().Add(-time.Duration(in.Days)*24*time.Hour))
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := make([]featureTotal, 0, len(totals))
	for _, t := range totals {
		out = append(out, featureTotal{Feature: string(t.Feature), TotalCredits: strconv.FormatInt(t.Total, 10), Count: t.Count,
			UpstreamCost: source.Micros(t.UpstreamCostMicros).USD()})
	}
	return reply("Credits by feature", out), nil
}

type searchLimits struct {
	Limit     *int64 `json:"limit" doc:"Most saved searches the plan allows (TRAWL_SEARCH_LIMIT_<PLAN>); null when unlimited."`
	Unlimited bool   `json:"unlimited"`
	Used      int64  `json:"used" doc:"Saved searches the account has, paused and completed ones included, deleted ones not."`
	Remaining *int64 `json:"remaining" doc:"How many more it may create; null when unlimited."`
}

func (s *Server) handleSearchLimits(ctx context.Context, _ *struct{}) (*Reply[searchLimits], error) {
	p := principalFrom(ctx)
	used, err := s.store.CountSearches(ctx, p.Account.ID)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := searchLimits{Unlimited: true, Used: used}
	if limit := s.cfg.SearchLimit(p.Account.Plan); limit > 0 {
		left := max(limit-used, 0)
		out = searchLimits{Limit: &limit, Used: used, Remaining: &left}
	}
	return reply("Saved-search limits", out), nil
}

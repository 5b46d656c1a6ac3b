package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
)

// The hosted API's account and credit endpoints, and the saved-search
// quota (reference/hosted-api.md 1f, 5; docs/decisions.md, "Account and
// credit endpoints").

type hostedAccountView struct {
	UserID         string   `json:"user_id"`
	OrganisationID *string  `json:"organisation_id"`
	TestMode       bool     `json:"test_mode"`
	Permissions    []string `json:"permissions"`
	Subscription   struct {
		Plan             string `json:"plan"`
		Status           string `json:"status"`
		CurrentPeriodEnd string `json:"current_period_end"`
	} `json:"subscription"`
	RateLimit struct {
		Tier          string `json:"tier"`
		Limit         int    `json:"limit"`
		WindowSeconds int    `json:"window_seconds"`
	} `json:"rate_limit"`
}

type creditBalanceView struct {
	Balance, Used, Limit, Remaining string
	SubscriptionPlan                string `json:"subscription_plan"`
	NextReset                       string `json:"next_reset"`
}

type searchLimitsView struct {
	Limit     *int64 `json:"limit"`
	Unlimited bool   `json:"unlimited"`
	Used      int64  `json:"used"`
	Remaining *int64 `json:"remaining"`
}

type creditLedgerView struct {
	Data []struct {
		ID            string  `json:"id"`
		Credits       string  `json:"credits"`
		Action        string  `json:"action"`
		Feature       string  `json:"feature"`
		Created       string  `json:"created"`
		WorkflowID    *string `json:"workflow_id"`
		SavedSearchID *string `json:"saved_search_id"`
	} `json:"data"`
	Pagination struct {
		HasMore    bool    `json:"has_more"`
		NextCursor *string `json:"next_cursor"`
		Total      int64   `json:"total"`
		Limit      int     `json:"limit"`
		Offset     int     `json:"offset"`
	} `json:"pagination"`
}

func getEnvelope[T any](t *testing.T, c *client.Client, path string) T {
	t.Helper()
	var v T
	if err := mustDo(t, c, http.MethodGet, path, nil, 200).Data(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func creditLedgerOf(t *testing.T, c *client.Client, query string) creditLedgerView {
	t.Helper()
	var v creditLedgerView
	if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/credits/usage"+query, nil, 200).Body, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestAccountCreditsAndSearchLimits(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		clk := clock.NewFake(time.Date(2026, 11, 15, 10, 0, 0, 0, time.UTC))
		ts := startServerAt(t, serverEnv(t, engine, map[string]string{"TRAWL_SEARCH_LIMIT_STARTER": "2",
			"TRAWL_RATE_LIMIT_STARTER": "5000", "TRAWL_RATE_LIMIT_ENTERPRISE": "7000"}), clk.Now)
		acct := newAccount(t, ts, "quota", "STARTER", "10")
		c := newKey(t, ts, acct, "*")
		reader := newKey(t, ts, acct, "searches:read")
		narrow := newKey(t, ts, acct, "topics:read")

		t.Run("account", func(t *testing.T) {
			a := getEnvelope[hostedAccountView](t, narrow, "/v1/account")
			if a.UserID != acct || a.OrganisationID != nil || !a.TestMode || !slices.Equal(a.Permissions, []string{"topics:read"}) ||
				a.Subscription.Plan != "STARTER" || a.Subscription.Status != "active" || a.Subscription.CurrentPeriodEnd != "2026-12-01T00:00:00.000Z" ||
				a.RateLimit.Tier != "LIGHT" || a.RateLimit.Limit != 5000 || a.RateLimit.WindowSeconds != 60 {
				t.Fatalf("account %+v", a)
			}
			ent := newKey(t, ts, newAccount(t, ts, "big", "ENTERPRISE", ""), "*")
			if a := getEnvelope[hostedAccountView](t, ent, "/v1/account"); a.RateLimit.Tier != "ENTERPRISE" || a.RateLimit.Limit != 7000 || !slices.Equal(a.Permissions, []string{"*"}) {
				t.Fatalf("enterprise account %+v", a)
			}
			if l := getEnvelope[searchLimitsView](t, ent, "/v1/searches/limits"); !l.Unlimited || l.Limit != nil || l.Remaining != nil || l.Used != 0 {
				t.Fatalf("enterprise limits %+v, want unlimited", l)
			}
		})

		var ids []string
		t.Run("quota", func(t *testing.T) {
			if l := getEnvelope[searchLimitsView](t, reader, "/v1/searches/limits"); l.Unlimited || l.Limit == nil || *l.Limit != 2 || l.Used != 0 || *l.Remaining != 2 {
				t.Fatalf("limits %+v", l)
			}
			r := do(t, narrow, http.MethodGet, "/v1/searches/limits", nil)
			if wantError(t, r, 403, "FORBIDDEN"); r.Err().More == nil || r.Err().More.Permission != "searches:read" {
				t.Fatalf("403 %s does not name the permission", r.Body)
			}
			r = do(t, reader, http.MethodPost, "/v1/searches/microblog/posts", map[string]any{"name": "x", "keywords": []string{"CRM"}})
			if wantError(t, r, 403, "FORBIDDEN"); r.Err().More.Permission != "searches:write" || !slices.Equal(r.Err().More.Permissions, []string{"searches:write"}) {
				t.Fatalf("403 %s does not name searches:write", r.Body)
			}
			for _, name := range []string{"one", "two"} {
				ids = append(ids, createSearch(t, c, map[string]any{"name": name, "keywords": []string{"CRM"}}).ID)
				clk.Advance(time.Second)
			}
			r = do(t, c, http.MethodPost, "/v1/searches/microblog/posts", map[string]any{"name": "three", "keywords": []string{"CRM"}})
			wantError(t, r, 409, "CONFLICT")
			if m := r.Err().More; m == nil || m.Limit == nil || *m.Limit != 2 || *m.Used != 2 || m.Plan != "STARTER" || spentHeader(r) != 0 {
				t.Fatalf("over the quota: %s (x-spent-credits %q)", r.Body, r.Header.Get("x-spent-credits"))
			}
			if b := getEnvelope[creditBalanceView](t, c, "/v1/credits/balance"); b.Used != "2" {
				t.Fatalf("a refused create charged: balance %+v", b)
			}
			if l := getEnvelope[searchLimitsView](t, c, "/v1/searches/limits"); l.Used != 2 || *l.Remaining != 0 {
				t.Fatalf("a refused create stored a search: limits %+v", l)
			}
			mustDo(t, c, http.MethodDelete, "/v1/searches/"+ids[0], nil, 200)
			if l := getEnvelope[searchLimitsView](t, c, "/v1/searches/limits"); l.Used != 1 || *l.Remaining != 1 {
				t.Fatalf("after a delete: limits %+v", l)
			}
			ids = append(ids, createSearch(t, c, map[string]any{"name": "three", "keywords": []string{"CRM"}}).ID)
		})

		t.Run("balance", func(t *testing.T) {
			b := getEnvelope[creditBalanceView](t, narrow, "/v1/credits/balance")
			if b != (creditBalanceView{Balance: "7", Used: "3", Limit: "10", Remaining: "7", SubscriptionPlan: "STARTER", NextReset: "2026-12-01T00:00:00.000Z"}) {
				t.Fatalf("balance %+v", b)
			}
		})

		t.Run("usage", func(t *testing.T) {
			l := creditLedgerOf(t, narrow, "")
			if len(l.Data) != 3 || l.Pagination.Total != 3 || l.Pagination.HasMore || l.Pagination.NextCursor != nil || l.Pagination.Limit != 20 || l.Pagination.Offset != 0 {
				t.Fatalf("ledger %+v", l)
			}
			for i, e := range l.Data { // newest first
				if e.Credits != "1" || e.Feature != "search_create" || e.Action != "POST /v1/searches/microblog/posts" ||
					e.WorkflowID != nil || e.SavedSearchID == nil || *e.SavedSearchID != ids[len(ids)-1-i] || e.ID == "" || e.Created == "" {
					t.Fatalf("entry %d: %+v, want the spend of search %s", i, e, ids[len(ids)-1-i])
				}
			}
			if p := creditLedgerOf(t, narrow, "?limit=2"); len(p.Data) != 2 || !p.Pagination.HasMore || p.Data[0].ID != l.Data[0].ID {
				t.Fatalf("first page %+v", p)
			}
			if p := creditLedgerOf(t, narrow, "?limit=2&offset=2"); len(p.Data) != 1 || p.Pagination.HasMore || p.Data[0].ID != l.Data[2].ID || p.Pagination.Offset != 2 {
				t.Fatalf("second page %+v", p)
			}
			var by []struct {
				Feature      string `json:"feature"`
				TotalCredits string `json:"total_credits"`
				Count        int64  `json:"count"`
			}
			if err := mustDo(t, narrow, http.MethodGet, "/v1/credits/breakdown", nil, 200).Data(&by); err != nil {
				t.Fatal(err)
			}
			if len(by) != 1 || by[0].Feature != "search_create" || by[0].TotalCredits != "3" || by[0].Count != 3 {
				t.Fatalf("breakdown %+v", by)
			}
		})

		t.Run("bad query values", func(t *testing.T) {
			for path, field := range map[string]string{
				"/v1/credits/usage?days=0": "query.days", "/v1/credits/usage?days=abc": "query.days",
				"/v1/credits/usage?limit=0": "query.limit", "/v1/credits/usage?limit=101": "query.limit",
				"/v1/credits/usage?offset=-1": "query.offset", "/v1/credits/breakdown?days=400": "query.days",
			} {
				wantError(t, do(t, c, http.MethodGet, path, nil), 400, "VALIDATION_ERROR", field)
			}
			if b := getEnvelope[creditBalanceView](t, c, "/v1/credits/balance"); b.Used != "3" {
				t.Fatalf("balance %+v after refused requests", b)
			}
		})

		t.Run("a new period", func(t *testing.T) {
			clk.Advance(40 * 24 * time.Hour) // 2026-12-25
			if b := getEnvelope[creditBalanceView](t, c, "/v1/credits/balance"); b.Used != "0" || b.Remaining != "10" || b.NextReset != "2027-01-01T00:00:00.000Z" {
				t.Fatalf("balance in December %+v", b)
			}
			if l := creditLedgerOf(t, c, ""); len(l.Data) != 0 || l.Pagination.Total != 0 {
				t.Fatalf("the last 30 days hold %+v", l)
			}
			if l := creditLedgerOf(t, c, "?days=60"); len(l.Data) != 3 {
				t.Fatalf("the last 60 days hold %+v", l)
			}
		})
	})
}

package console

import (
	"net/http"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/workflow"
)

// failedShown is how many failed executions the overview lists.
const failedShown = 10

type overviewData struct {
	CreditsLeft, CreditsUsed, CreditsAllocation int64
	ActiveSearches                              int64
	SearchesDenied                              string
	ActiveTopics                                int64
	TopicsDenied                                string
	ResultsToday                                int64
	EngagementsToday                            int64
	EngagementsDenied                           string
	// Chart is the period's credits per day by feature.
	Chart       creditsChart
	Failed      []workflow.Execution
	FailedLimit int
	// Permissions are what the key may do, each permission by name
	// ("*" spelled out), with the plan's.
	Permissions []string
	Plan        string
}

// topicsDenied is why the session may not read topics ("" when it may):
// the permission first, then the plan, in the API's order.
func topicsDenied(s session) string {
	if !s.p.Key.Has(auth.PermTopicsRead) {
		return lacks(auth.PermTopicsRead)
	}
	if !s.p.Account.Plan.Allows(auth.FeatureTopics) {
		return "The " + string(s.p.Account.Plan) + " plan does not include topics."
	}
	return ""
}

// overview: the figures of GET /v1/credits/balance and /v1/usage, and the
// account's last failed executions.
func (c *Console) overview(w http.ResponseWriter, r *http.Request, s session) {
	ctx := r.Context()
	acct := s.p.Account
	var monthly int64
	if c.cfg != nil {
		monthly = c.cfg.MonthlyCredits(acct)
	}
	b, err := c.store.Balance(ctx, acct.ID, monthly)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d := overviewData{CreditsLeft: b.Remaining(), CreditsUsed: b.Used, CreditsAllocation: b.Allocation, FailedLimit: failedShown,
		Permissions: keyPermissions(s.p.Key), Plan: string(acct.Plan)}
	if s.p.Key.Has(auth.PermSearchesRead) {
		if d.ActiveSearches, err = c.store.CountActiveSearches(ctx, acct.ID); err != nil {
			c.serverError(w, r, err)
			return
		}
	} else {
		d.SearchesDenied = lacks(auth.PermSearchesRead)
	}
	now := c.now().UTC()
	today := utcDay(now)
	// Topics need their permission and the plan's feature, as their routes do.
	if d.TopicsDenied = topicsDenied(s); d.TopicsDenied == "" {
		if d.ActiveTopics, err = c.store.CountActiveTopics(ctx, acct.ID); err != nil {
			c.serverError(w, r, err)
			return
		}
		if d.EngagementsToday, err = c.store.EngagementsCollected(ctx, acct.ID, today, now.Add(time.Millisecond)); err != nil {
			c.serverError(w, r, err)
			return
		}
	}
	d.EngagementsDenied = d.TopicsDenied
	u, err := c.store.Usage(ctx, acct.ID, today, now)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d.ResultsToday = u.ResultsTotal
	// The chart: the ledger of GET /v1/credits/usage (which any key reads)
	// summed per day and feature over the billing period.
	from := credits.PeriodStart(now)
	days, err := c.store.CreditsByDay(ctx, acct.ID, from, now.Add(time.Millisecond))
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d.Chart = newCreditsChart(from, today, days)
	if d.Failed, err = c.store.RecentFailedExecutions(ctx, acct.ID, failedShown); err != nil {
		c.serverError(w, r, err)
		return
	}
	v := s.view("Overview", "overview")
	v.Data = d
	c.render(w, http.StatusOK, "overview", v)
}

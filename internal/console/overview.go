package console

import (
	"net/http"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/workflow"
)

// failedShown is how many failed executions the overview lists.
const failedShown = 10

type overviewData struct {
	CreditsLeft, CreditsUsed, CreditsAllocation int64
	ActiveSearches                              int64
	SearchesDenied                              string
	ResultsToday                                int64
	Failed                                      []workflow.Execution
	FailedLimit                                 int
	// Permissions are what the key may do, each permission by name
	// ("*" spelled out), with the plan's.
	Permissions []string
	Plan        string
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
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	u, err := c.store.Usage(ctx, acct.ID, today, now)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	d.ResultsToday = u.ResultsTotal
	if d.Failed, err = c.store.RecentFailedExecutions(ctx, acct.ID, failedShown); err != nil {
		c.serverError(w, r, err)
		return
	}
	v := s.view("Overview", "overview")
	v.Data = d
	c.render(w, http.StatusOK, "overview", v)
}

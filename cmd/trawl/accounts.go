package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trawlhq/trawl/internal/app"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
)

type accountsCmd struct {
	Create accountsCreateCmd `cmd:"" help:"Create an account."`
	List   accountsListCmd   `cmd:"" help:"List accounts."`
	Show   accountsShowCmd   `cmd:"" help:"Show an account: plan, this period's credits and what it holds."`
	Update accountsUpdateCmd `cmd:"" help:"Change an account's plan or credits; the current period follows at once."`
	Delete accountsDeleteCmd `cmd:"" help:"Delete an account with its keys and everything it owns."`
}

type accountsCreateCmd struct {
	Name       string `required:"" help:"Account name."`
	Plan       string `required:"" enum:"STARTER,ENTERPRISE,CUSTOM,starter,enterprise,custom" help:"Plan: STARTER, ENTERPRISE or CUSTOM."`
	Credits    *int64 `help:"Monthly credits, overriding the plan's allocation."`
	JSON       bool   `name:"json" help:"Print JSON."`
	storeFlags `embed:""`
}

func (c accountsCreateCmd) Run(cfg *config.Config, e env) error {
	if strings.TrimSpace(c.Name) == "" {
		return fmt.Errorf("--name must not be empty")
	}
	if c.Credits != nil && *c.Credits < 0 {
		return fmt.Errorf("--credits must not be negative")
	}
	plan, err := auth.ParsePlan(c.Plan)
	if err != nil {
		return fmt.Errorf("--plan: %w", err)
	}
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	a := auth.Account{Name: c.Name, Plan: plan, MonthlyCredits: c.Credits}
	if err := st.CreateAccount(e.ctx, &a); err != nil {
		return err
	}
	if c.JSON {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"id": a.ID, "name": a.Name, "plan": a.Plan, "monthly_credits": cfg.MonthlyCredits(a)})
	}
	fmt.Fprintf(e.stdout, "Created account %s (%s, plan %s, %d credits a month).\n", a.ID, a.Name, a.Plan, cfg.MonthlyCredits(a))
	return nil
}

type accountsListCmd struct {
	JSON       bool `name:"json" help:"Print JSON."`
	storeFlags `embed:""`
}

func (c accountsListCmd) Run(cfg *config.Config, e env) error {
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	accts, err := st.Accounts(e.ctx)
	if err != nil {
		return err
	}
	if c.JSON {
		out := make([]map[string]any, 0, len(accts))
		for _, a := range accts {
			out = append(out, map[string]any{"id": a.ID, "name": a.Name, "plan": a.Plan, "monthly_credits": cfg.MonthlyCredits(a), "created_at": a.CreatedAt})
		}
		return json.NewEncoder(e.stdout).Encode(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPLAN\tMONTHLY CREDITS\tCREATED")
	for _, a := range accts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", a.ID, a.Name, a.Plan, cfg.MonthlyCredits(a), a.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

type accountsShowCmd struct {
	ID         string `arg:"" name:"account-id" help:"Account id."`
	JSON       bool   `name:"json" help:"Print JSON."`
	storeFlags `embed:""`
}

func (c accountsShowCmd) Run(cfg *config.Config, e env) error {
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	a, err := st.Account(e.ctx, c.ID)
	if err != nil {
		return err
	}
	bal, err := st.Balance(e.ctx, a.ID, cfg.MonthlyCredits(a))
	if err != nil {
		return err
	}
	n, err := st.AccountCounts(e.ctx, a.ID)
	if err != nil {
		return err
	}
	v := accountView(cfg, a, bal)
	v["keys"], v["active_keys"], v["searches"], v["topics"] = n.Keys, n.ActiveKeys, n.Searches, n.Topics
	v["workflows"], v["executions"], v["secrets"] = n.Workflows, n.Executions, n.Secrets
	if c.JSON {
		return json.NewEncoder(e.stdout).Encode(v)
	}
	printAccount(e, cfg, a, bal)
	fmt.Fprintf(e.stdout, "Keys:            %d (%d active)\nSearches:        %d\nTopics:          %d\nWorkflows:       %d (%d executions kept)\nSecrets:         %d\n",
		n.Keys, n.ActiveKeys, n.Searches, n.Topics, n.Workflows, n.Executions, n.Secrets)
	return nil
}

// accountView is an account and its current period, as --json prints them.
func accountView(cfg *config.Config, a auth.Account, bal credits.Balance) map[string]any {
	source := "plan"
	if a.MonthlyCredits != nil {
		source = "account"
	}
	return map[string]any{"id": a.ID, "name": a.Name, "plan": a.Plan, "created_at": a.CreatedAt,
		"monthly_credits": cfg.MonthlyCredits(a), "monthly_credits_source": source,
		"period": map[string]any{"start": bal.PeriodStart, "end": credits.PeriodEnd(bal.PeriodStart),
			"allocation": bal.Allocation, "used": bal.Used, "remaining": bal.Remaining()}}
}

func printAccount(e env, cfg *config.Config, a auth.Account, bal credits.Balance) {
	source := "the plan's"
	if a.MonthlyCredits != nil {
		source = "set for this account"
	}
	fmt.Fprintf(e.stdout, "Account:         %s (%s)\nPlan:            %s\nMonthly credits: %d (%s)\nThis period:     %s to %s: %d allocated, %d used, %d remaining\nCreated:         %s\n",
		a.ID, a.Name, a.Plan, cfg.MonthlyCredits(a), source,
		bal.PeriodStart.Format(time.DateOnly), credits.PeriodEnd(bal.PeriodStart).Format(time.DateOnly),
		bal.Allocation, bal.Used, bal.Remaining(), a.CreatedAt.Format(time.RFC3339))
}

type accountsUpdateCmd struct {
	ID         string `arg:"" name:"account-id" help:"Account id."`
	Plan       string `placeholder:"PLAN" help:"New plan: STARTER, ENTERPRISE or CUSTOM."`
	Credits    string `placeholder:"N|plan" help:"Monthly credits: a number overrides the plan's allocation, 'plan' follows the plan's again."`
	AddCredits int64  `name:"add-credits" placeholder:"N" help:"Credits added to the current period alone (a one-off top-up)."`
	JSON       bool   `name:"json" help:"Print JSON."`
	storeFlags `embed:""`
}

func (c accountsUpdateCmd) Run(cfg *config.Config, e env) error {
	var ch store.AccountChange
	if c.Plan != "" {
		plan, err := auth.ParsePlan(c.Plan)
		if err != nil {
			return fmt.Errorf("--plan: %w", err)
		}
		ch.Plan = &plan
	}
	switch c.Credits {
	case "":
	case "plan":
		var none *int64
		ch.MonthlyCredits = &none
	default:
		n, err := strconv.ParseInt(c.Credits, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("--credits must be a whole number of credits, 0 or more, or 'plan'; got %q", c.Credits)
		}
		override := &n
		ch.MonthlyCredits = &override
	}
	if c.AddCredits < 0 {
		return fmt.Errorf("--add-credits must not be negative; lower --credits to take credits away")
	}
	ch.TopUp = c.AddCredits
	if ch.Plan == nil && ch.MonthlyCredits == nil && ch.TopUp == 0 {
		return errors.New("nothing to change: give --plan, --credits or --add-credits")
	}
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	a, bal, err := st.UpdateAccount(e.ctx, c.ID, ch, cfg.MonthlyCredits)
	if err != nil {
		return err
	}
	if c.JSON {
		return json.NewEncoder(e.stdout).Encode(accountView(cfg, a, bal))
	}
	fmt.Fprintln(e.stdout, "Updated.")
	printAccount(e, cfg, a, bal)
	return nil
}

type accountsDeleteCmd struct {
	ID         string `arg:"" name:"account-id" help:"Account id."`
	Yes        bool   `name:"yes" help:"Delete without asking: without it, the command only says what would be deleted."`
	JSON       bool   `name:"json" help:"Print JSON."`
	storeFlags `embed:""`
}

func (c accountsDeleteCmd) Run(cfg *config.Config, e env) error {
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	a, err := st.Account(e.ctx, c.ID)
	if err != nil {
		return err
	}
	n, err := st.AccountCounts(e.ctx, a.ID)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%d keys, %d searches with their results, %d topics, %d workflows with %d executions, %d secrets, and its credit ledger",
		n.Keys, n.Searches, n.Topics, n.Workflows, n.Executions, n.Secrets)
	if !c.Yes {
		fmt.Fprintf(e.stdout, "Account %s (%s) holds %s.\nDeleting it removes all of this for good; its keys stop working at once.\nThe posts, people and engagements its topics collected stay in the pool every account's social mapping shares.\n",
			a.ID, a.Name, what)
		return errors.New("not deleted: run again with --yes to delete it")
	}
	if err := st.DeleteAccount(e.ctx, a.ID); err != nil {
		return err
	}
	if c.JSON {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"id": a.ID, "deleted": true, "keys": n.Keys, "searches": n.Searches,
			"topics": n.Topics, "workflows": n.Workflows, "executions": n.Executions, "secrets": n.Secrets})
	}
	fmt.Fprintf(e.stdout, "Deleted account %s (%s): %s.\n", a.ID, a.Name, what)
	return nil
}

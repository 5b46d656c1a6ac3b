package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/workflow"
)

// TestLedgerReferencesMigration: migration 00030 names the saved search of
// earlier search_create spends and the workflow of earlier workflow steps'
// spends, from the reference they kept; other spends name neither.
func TestLedgerReferencesMigration(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s, url := storeAt(t, engine, 29, time.Now)
			a := auth.Account{Name: "a", Plan: auth.PlanCustom}
			if err := s.CreateAccount(ctx, &a); err != nil {
				t.Fatal(err)
			}
			w := workflow.Workflow{AccountID: a.ID, Name: "w", Status: workflow.StatusPublished, Enabled: true,
				Definition: workflow.Definition{Trigger: &workflow.Trigger{Kind: workflow.TriggerWebhook}}}
			giveBack := lendVersions(t, s)
			if err := s.CreateWorkflow(ctx, &w, nil); err != nil {
				t.Fatal(err)
			}
			giveBack()
			x := workflow.Execution{WorkflowID: w.ID, AccountID: a.ID, Version: 1, Definition: w.Definition, EventName: workflow.TriggerWebhook, Trigger: map[string]any{}}
			if _, err := s.CreateExecution(ctx, &x, nil, time.Minute, true); err != nil {
				t.Fatal(err)
			}
			searchID := ident.New()
			at := time.Now().Add(-time.Hour)
			for i, row := range [][2]string{{"search_create", searchID}, {"workflow_execution", x.ID + "/enrich"}, {"profile_enrich", "enrich:jane"}} {
				if _, err := s.DB().ExecContext(ctx, `INSERT INTO credit_ledger (id, account_id, feature, amount, reference, created_at) VALUES ($1, $2, $3, 1, $4, $5)`,
					ident.New(), a.ID, row[0], row[1], at.Add(time.Duration(i)*time.Second).UnixMilli()); err != nil {
					t.Fatal(err)
				}
			}

			again := storetest.OpenURL(t, url, nil) // migrates
			got, total, err := again.Ledger(ctx, a.ID, at, 10, 0)
			if err != nil || total != 3 {
				t.Fatalf("ledger %+v, total %d, %v", got, total, err)
			}
			enrich, step, create := got[0], got[1], got[2]
			if enrich.WorkflowID != "" || enrich.SearchID != "" || step.WorkflowID != w.ID || step.SearchID != "" ||
				create.SearchID != searchID || create.WorkflowID != "" || create.Action != "" {
				t.Fatalf("migrated ledger %+v", got)
			}
		})
	}
}

package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/workflow"
)

// TestExecutionTriggerKeepsNUL: migration 00026 keeps the triggers stored
// before it, and an execution's trigger holds NUL (a webhook payload may)
// on both engines; jsonb refused it on PostgreSQL.
func TestExecutionTriggerKeepsNUL(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			s, url := storeAt(t, engine, 25, time.Now)
			// CreateExecution writes today's columns: lend it the one a
			// later migration (00027) adds, for as long as it writes.
			if _, err := s.DB().ExecContext(ctx, `ALTER TABLE workflow_executions ADD COLUMN lease_owner TEXT`); err != nil {
				t.Fatal(err)
			}
			a := auth.Account{Name: "a", Plan: auth.PlanCustom}
			if err := s.CreateAccount(ctx, &a); err != nil {
				t.Fatal(err)
			}
			giveBack := lendVersions(t, s)
			w := workflow.Workflow{AccountID: a.ID, Name: "w", Status: workflow.StatusPublished, Enabled: true,
				Definition: workflow.Definition{Trigger: &workflow.Trigger{Kind: workflow.TriggerWebhook}}}
			if err := s.CreateWorkflow(ctx, &w, nil); err != nil {
				t.Fatal(err)
			}
			create := func(s *store.Store, trigger map[string]any) string {
				t.Helper()
				x := workflow.Execution{WorkflowID: w.ID, AccountID: a.ID, Version: 1, Definition: w.Definition,
					EventName: workflow.TriggerWebhook, Trigger: trigger}
				if _, err := s.CreateExecution(ctx, &x, nil, time.Minute, true); err != nil {
					t.Fatal(err)
				}
				return x.ID
			}
			check := func(s *store.Store, id string, want map[string]any) {
				t.Helper()
				x, _, err := s.Execution(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(x.Trigger, want) {
					t.Fatalf("trigger %q, want %q", x.Trigger, want)
				}
			}
			before := map[string]any{"email": "cfo@example.com", "amount": float64(250), "tags": []any{"a"}}
			old := create(s, before)
			if _, err := s.DB().ExecContext(ctx, `ALTER TABLE workflow_executions DROP COLUMN lease_owner`); err != nil {
				t.Fatal(err)
			}
			giveBack()
			// The next start migrates (its statements are prepared on the
			// new schema).
			again := storetest.OpenURL(t, url, nil)
			check(again, old, before)
			withNUL := map[string]any{"note": "a\x00b", "list": []any{"\x00"}, "k\x00": "\\u0000 as text"}
			check(again, create(again, withNUL), withNUL)
		})
	}
}

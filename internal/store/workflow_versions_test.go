package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/workflow"
)

// lendVersions gives a database migrated short of 00031 the table today's
// CreateWorkflow and UpdateWorkflow write to, for as long as they write;
// the returned func takes it back before the migration makes it.
func lendVersions(t *testing.T, s *store.Store) func() {
	t.Helper()
	ctx := context.Background()
	if _, err := s.DB().ExecContext(ctx, `CREATE TABLE workflow_versions (id TEXT, workflow_id TEXT, number BIGINT,
		name TEXT, description TEXT, definition TEXT, change_summary TEXT, published_at BIGINT)`); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := s.DB().ExecContext(ctx, `DROP TABLE workflow_versions`); err != nil {
			t.Fatal(err)
		}
	}
}

func setDef(v string) workflow.Definition {
	return workflow.Definition{Actions: []workflow.Action{{ID: "s", Kind: "builtin:set", Inputs: map[string]any{"values": map[string]any{"v": v}}}},
		Edges: []workflow.Edge{{From: workflow.Source, To: "s"}}}
}

// TestWorkflowVersions: migration 00031 gives every workflow its live
// definition as the version of its number; from then on creating makes
// version 1, a publish the next one with its summary even when nothing
// changed, a change of the live definition the next one without, and a
// rename none.
func TestWorkflowVersions(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
			s, url := storeAt(t, engine, 30, clk.Now)
			a := auth.Account{Name: "a", Plan: auth.PlanCustom}
			if err := s.CreateAccount(ctx, &a); err != nil {
				t.Fatal(err)
			}
			giveBack := lendVersions(t, s)
			old := workflow.Workflow{AccountID: a.ID, Name: "old", Definition: setDef("1"), Status: workflow.StatusDraft}
			if err := s.CreateWorkflow(ctx, &old, nil); err != nil {
				t.Fatal(err)
			}
			clk.Advance(time.Minute)
			if _, err := s.UpdateWorkflow(ctx, a.ID, old.ID, func(w *workflow.Workflow, _ *workflow.Draft) (store.WorkflowEdit, error) {
				w.Definition = setDef("2")
				return store.WorkflowEdit{}, nil
			}); err != nil {
				t.Fatal(err)
			}
			giveBack()

			again := storetest.OpenURL(t, url, clk.Now) // migrates
			vs, err := again.WorkflowVersions(ctx, a.ID, old.ID)
			if err != nil || len(vs) != 1 || vs[0].Number != 2 || vs[0].ChangeSummary != nil || !workflow.SameDefinition(vs[0].Definition, setDef("2")) ||
				!vs[0].PublishedAt.Equal(clk.Now().Truncate(time.Millisecond)) {
				t.Fatalf("migrated versions %+v, %v", vs, err)
			}

			w := workflow.Workflow{AccountID: a.ID, Name: "new", Definition: setDef("1"), Status: workflow.StatusDraft}
			if err := again.CreateWorkflow(ctx, &w, nil); err != nil {
				t.Fatal(err)
			}
			edit := func(f func(w *workflow.Workflow) store.WorkflowEdit) workflow.Workflow {
				t.Helper()
				clk.Advance(time.Minute)
				got, err := again.UpdateWorkflow(ctx, a.ID, w.ID, func(w *workflow.Workflow, _ *workflow.Draft) (store.WorkflowEdit, error) {
					return f(w), nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			summary := "nothing, but published"
			pub := &workflow.Version{ChangeSummary: &summary}
			if got := edit(func(w *workflow.Workflow) store.WorkflowEdit {
				w.Status = workflow.StatusPublished
				return store.WorkflowEdit{Publish: pub}
			}); got.Version != 2 || pub.Number != 2 || pub.ID == "" || !pub.PublishedAt.Equal(got.UpdatedAt) {
				t.Fatalf("publish: workflow %d, version %+v", got.Version, pub)
			}
			if got := edit(func(w *workflow.Workflow) store.WorkflowEdit { w.Definition = setDef("3"); return store.WorkflowEdit{} }); got.Version != 3 {
				t.Fatalf("a changed definition made version %d", got.Version)
			}
			if got := edit(func(w *workflow.Workflow) store.WorkflowEdit { w.Name = "renamed"; return store.WorkflowEdit{} }); got.Version != 3 {
				t.Fatalf("a rename made version %d", got.Version)
			}
			vs, err = again.WorkflowVersions(ctx, a.ID, w.ID)
			if err != nil || len(vs) != 3 || vs[0].Number != 3 || vs[1].Number != 2 || vs[2].Number != 1 ||
				vs[1].ChangeSummary == nil || *vs[1].ChangeSummary != summary || vs[1].ID != pub.ID || vs[0].ChangeSummary != nil ||
				!workflow.SameDefinition(vs[0].Definition, setDef("3")) {
				t.Fatalf("versions %+v, %v", vs, err)
			}
		})
	}
}

package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/workflow"
)

// TestDraftsMigration: migration 00028 gives every published workflow
// that a publish left without a draft (as publishing did before) the
// draft a publish leaves today, equal to its live workflow; drafts that
// exist, unpublished and deleted workflows are left as they are.
func TestDraftsMigration(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
			s, url := storeAt(t, engine, 27, clk.Now)
			a := auth.Account{Name: "a", Plan: auth.PlanCustom}
			if err := s.CreateAccount(ctx, &a); err != nil {
				t.Fatal(err)
			}
			def := func(text string) workflow.Definition {
				return workflow.Definition{Actions: []workflow.Action{{ID: "note", Kind: "builtin:set", Inputs: map[string]any{"values": map[string]any{"text": text}}}},
					Edges: []workflow.Edge{{From: workflow.Source, To: "note"}}}
			}
			giveBack := lendVersions(t, s)
			made := map[string]workflow.Workflow{}
			for _, name := range []string{"published", "edited", "unpublished", "deleted"} {
				clk.Advance(time.Minute)
				w := workflow.Workflow{AccountID: a.ID, Name: name, Description: "about " + name, Definition: def(name), Status: workflow.StatusPublished}
				if name == "unpublished" {
					w.Status = workflow.StatusDraft
				}
				if err := s.CreateWorkflow(ctx, &w, nil); err != nil {
					t.Fatal(err)
				}
				made[name] = w
			}
			clk.Advance(time.Minute)
			edited := workflow.Draft{WorkflowID: made["edited"].ID, Name: "edited 2", Definition: def("v2")}
			if _, err := s.PutDraft(ctx, a.ID, &edited); err != nil {
				t.Fatal(err)
			}
			if err := s.DeleteWorkflow(ctx, a.ID, made["deleted"].ID); err != nil {
				t.Fatal(err)
			}

			giveBack()
			again := storetest.OpenURL(t, url, nil) // migrates
			w := made["published"]
			live, d, err := again.WorkflowDraft(ctx, a.ID, w.ID)
			if err != nil {
				t.Fatalf("the published workflow has no draft: %v", err)
			}
			if !d.Synced(live) || d.Name != "published" || d.Description != "about published" || !d.CreatedAt.Equal(w.UpdatedAt) || !d.LastModified.Equal(w.UpdatedAt) {
				t.Fatalf("migrated draft %+v of %+v", d, live)
			}
			id, err := uuid.Parse(d.ID)
			if err != nil || id.Version() != 7 || id.Variant() != uuid.RFC4122 || !ident.Valid(d.ID) {
				t.Fatalf("draft id %q: version %d, variant %v, %v", d.ID, id.Version(), id.Variant(), err)
			}
			if sec, nsec := id.Time().UnixTime(); time.Unix(sec, nsec).UnixMilli() != w.UpdatedAt.UnixMilli() {
				t.Fatalf("draft id %s is of %v, want %v", d.ID, time.Unix(sec, nsec).UTC(), w.UpdatedAt)
			}
			if _, d, err := again.WorkflowDraft(ctx, a.ID, made["edited"].ID); err != nil || d.ID != edited.ID || d.Name != "edited 2" || !d.LastModified.Equal(edited.LastModified) {
				t.Fatalf("an existing draft changed: %+v, %v", d, err)
			}
			if _, _, err := again.WorkflowDraft(ctx, a.ID, made["unpublished"].ID); err == nil {
				t.Fatal("an unpublished workflow got a draft")
			}
			var n int
			if err := again.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM workflow_drafts WHERE workflow_id = $1`, made["deleted"].ID).Scan(&n); err != nil || n != 0 {
				t.Fatalf("a deleted workflow got %d drafts (%v)", n, err)
			}
		})
	}
}

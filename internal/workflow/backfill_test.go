package workflow_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/workflow"
)

// TestBackfillSourceOf: only a published workflow on stored events (new
// posts, engagements) has a source; the refusal names the trigger.
func TestBackfillSourceOf(t *testing.T) {
	on := func(kind string, inputs map[string]any) workflow.Workflow {
		return workflow.Workflow{ID: "w", Status: workflow.StatusPublished, SearchID: "s",
			Definition: workflow.Definition{Trigger: &workflow.Trigger{Kind: kind, Inputs: inputs}}}
	}
	if src, err := workflow.BackfillSourceOf(on(workflow.TriggerNewPost, nil)); err != nil || src.SearchID != "s" || src.Kind != workflow.TriggerNewPost {
		t.Fatalf("new post: %+v, %v", src, err)
	}
	if src, err := workflow.BackfillSourceOf(on(workflow.TriggerEngagement, map[string]any{"topic_id": "t"})); err != nil || src.TopicID != "t" {
		t.Fatalf("engagement: %+v, %v", src, err)
	}
	for _, kind := range []string{workflow.TriggerWebhook, workflow.TriggerScheduled} {
		_, err := workflow.BackfillSourceOf(on(kind, nil))
		var nb *workflow.NotBackfillableError
		if !errors.As(err, &nb) || nb.Trigger != kind || !strings.Contains(nb.Message, kind) {
			t.Fatalf("%s: %v, want a refusal naming it", kind, err)
		}
	}
	draft := on(workflow.TriggerNewPost, nil)
	draft.Status = workflow.StatusDraft
	if _, err := workflow.BackfillSourceOf(draft); err == nil || !strings.Contains(err.Error(), "PUBLISHED") {
		t.Fatalf("draft: %v", err)
	}
}

// TestExecutionCredits sums the catalogue costs of the steps.
func TestExecutionCredits(t *testing.T) {
	cat := action.NewCatalogue()
	def := workflow.Definition{Actions: []workflow.Action{{ID: "a", Kind: "person_enrichment"}, {ID: "b", Kind: "builtin:set"},
		{ID: "c", Kind: "generic_agent"}, {ID: "d", Kind: "no_such_kind"}}}
	if got := workflow.ExecutionCredits(def, cat); got != 2 {
		t.Fatalf("credits %d, want 2", got)
	}
}

// TestBackfillFloor: a workflow older than the execution retention may not
// backfill events from before the prune cutoff; a younger one may.
func TestBackfillFloor(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	retention := 720 * time.Hour
	young := workflow.Workflow{CreatedAt: now.Add(-time.Hour)}
	if f := workflow.BackfillFloor(young, now, retention); !f.IsZero() {
		t.Fatalf("young workflow floor %s", f)
	}
	old := workflow.Workflow{CreatedAt: now.Add(-2 * retention)}
	if f := workflow.BackfillFloor(old, now, retention); !f.Equal(now.Add(-retention)) {
		t.Fatalf("old workflow floor %s", f)
	}
}

// TestBackfillCursor: a cursor reads back as written; anything else is refused.
func TestBackfillCursor(t *testing.T) {
	c := workflow.BackfillCursor{At: time.UnixMilli(1764236400123).UTC(), ID: "01a21cb5-9eb9-786d-b1de-afee49252343"}
	got, err := workflow.ParseBackfillCursor(c.Encode())
	if err != nil || got != c {
		t.Fatalf("round trip %+v, %v; want %+v", got, err, c)
	}
	for _, bad := range []string{"", "%%", "MTIz", "eC95"} {
		if _, err := workflow.ParseBackfillCursor(bad); err == nil {
			t.Fatalf("%q parsed", bad)
		}
	}
}

// FuzzParseBackfillCursor: any string parses or is refused, without a
// panic, and what parses encodes back to a cursor that parses the same.
func FuzzParseBackfillCursor(f *testing.F) {
	f.Add(workflow.BackfillCursor{At: time.UnixMilli(0), ID: "x"}.Encode())
	f.Add("MTIz")
	f.Add("%%")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := workflow.ParseBackfillCursor(s)
		if err != nil {
			return
		}
		again, err := workflow.ParseBackfillCursor(c.Encode())
		if err != nil || !again.At.Equal(c.At) || again.ID != c.ID {
			t.Fatalf("%q: %+v, then %+v, %v", s, c, again, err)
		}
	})
}

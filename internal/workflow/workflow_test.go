package workflow

import (
	"testing"
	"time"
)

// TestAfterPublish: a publish leaves the draft, equal to what went live;
// a draft that already was is left untouched, last_modified included.
func TestAfterPublish(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	now := t0.Add(time.Hour)
	def := func(text string) Definition {
		return Definition{Actions: []Action{{ID: "note", Kind: "builtin:set", Inputs: map[string]any{"values": map[string]any{"text": text}}}},
			Edges: []Edge{{From: Source, To: "note"}}}
	}
	live := Workflow{ID: "w1", Name: "Tell sales", Description: "d", Definition: def("v2"), Status: StatusPublished}

	promoted := Draft{ID: "d1", WorkflowID: "w1", Name: "Tell sales", Description: "d", Definition: def("v2"), CreatedAt: t0, LastModified: t0}
	if got := AfterPublish(&promoted, live, now); !got.Synced(live) || !got.LastModified.Equal(t0) || got.ID != "d1" || !got.CreatedAt.Equal(t0) {
		t.Errorf("a promoted draft changed: %+v", got)
	}

	// The PATCH that published also renamed the workflow.
	renamed := live
	renamed.Name = "Tell sales now"
	got := AfterPublish(&promoted, renamed, now)
	if !got.Synced(renamed) || got.Name != "Tell sales now" || !got.LastModified.Equal(now) || got.ID != "d1" || !got.CreatedAt.Equal(t0) {
		t.Errorf("after a renaming publish: %+v", got)
	}
	if promoted.Name != "Tell sales" {
		t.Error("the draft given was changed in place")
	}

	// A publish without a draft leaves one.
	got = AfterPublish(nil, live, now)
	if !got.Synced(live) || got.WorkflowID != "w1" || got.ID != "" || !got.CreatedAt.Equal(now) || !got.LastModified.Equal(now) {
		t.Errorf("without a draft: %+v", got)
	}
	// Editing it (or the live workflow) unsyncs it.
	got.Definition = def("v3")
	if got.Synced(live) {
		t.Error("an edited draft is synced")
	}
}

package workflow

import (
	"context"
	"testing"
	"time"
)

// TestTriggerCatalogueListsEveryPayloadField builds each trigger kind's
// test event (the sample, with every override set) and checks that the
// catalogue lists every field of its payload; the store's tests check
// the payloads the dispatcher builds from real events the same way.
func TestTriggerCatalogueListsEveryPayloadField(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	o := Overrides{AuthorURL: ptr("https://x.com/a"), Text: ptr("t"), PostURL: ptr("https://x.com/a/status/1"),
		Source: ptr("microblog"), Likes: ptr(int64(1)), Comments: ptr(int64(2)), DatePosted: &now}
	inputs := map[string]map[string]any{
		TriggerEngagement: {"topic_id": "01938f2e-0000-7000-8000-000000000001"},
		TriggerScheduled:  {"cron": "0 9 * * *"},
	}
	seen := map[string]bool{}
	for _, spec := range TriggerCatalogue() {
		seen[spec.Kind] = true
		def := triggered(spec.Kind, inputs[spec.Kind])
		for _, over := range []Overrides{{}, o} {
			ev, err := NewTestEvent(context.Background(), &fakeEvents{}, Workflow{ID: "w", AccountID: "a"}, def, over, now)
			if err != nil {
				t.Fatal(err)
			}
			if spec.Kind == TriggerWebhook {
				continue // free-form: whatever was delivered
			}
			if got := UnlistedFields(spec.Kind, ev.Payload); len(got) > 0 {
				t.Errorf("%s: payload fields missing from the catalogue's outputs: %v", spec.Kind, got)
			}
		}
		if spec.Outputs["type"] != "object" {
			t.Errorf("%s: outputs are not an object schema", spec.Kind)
		}
	}
	for _, kind := range TriggerKinds() {
		if !seen[kind] {
			t.Errorf("trigger kind %s is not in the catalogue", kind)
		}
	}
	if len(TriggerCatalogue()) != len(TriggerKinds()) {
		t.Errorf("catalogue has %d kinds, TriggerKinds %d", len(TriggerCatalogue()), len(TriggerKinds()))
	}
	if got := UnlistedFields(TriggerScheduled, map[string]any{"scheduled_at": "", "extra": 1}); len(got) != 1 || got[0] != "extra" {
		t.Errorf("UnlistedFields = %v, want [extra]", got)
	}
}

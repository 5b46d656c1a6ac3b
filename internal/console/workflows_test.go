package console

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/trawlhq/trawl/internal/workflow"
)

// The editor's form read back into a definition, and the API's problems
// placed at the inputs they point to.

func TestEditorFormPlacesTheAPIsMessages(t *testing.T) {
	def := workflow.Definition{Trigger: &workflow.Trigger{Kind: workflow.TriggerScheduled, Inputs: map[string]any{"cron": "x"}},
		Actions: []workflow.Action{{ID: "a", Kind: "builtin:set"}, {ID: "b", Kind: "nope"}},
		Edges:   []workflow.Edge{{From: workflow.Source, To: "a"}, {From: "a", To: "b", Conditional: &workflow.Conditional{Type: "match"}}}}
	f := newEditorForm("W", "", def)
	summary := field{ID: "change-summary"}
	p := apiProblem{Code: "VALIDATION_ERROR", Message: "Invalid.", Fields: []fieldProblem{
		{Field: "body.workflow.trigger.inputs.cron", Pointer: "/workflow/trigger/inputs/cron", Message: "bad cron"},
		{Field: "body.workflow.actions[1].kind", Message: "is not an action kind"},
		{Field: "body.draft.workflow.actions[0].inputs.values", Pointer: "/draft/workflow/actions/0/inputs/values", Message: "is required"},
		{Field: "body.workflow.actions[0]", Pointer: "/workflow/actions/0", Message: "is not reachable"},
		{Field: "body.workflow.actions[1].retry.backoff_ms", Message: "must be 0-3600000"},
		{Field: "body.workflow.edges[1].conditional.ref", Message: "is required for a match edge"},
		{Field: "body.workflow.edges[1].to", Message: "names no action"},
		{Field: "body.name", Message: "must be 1-255 characters"},
		{Field: "body.change_summary", Message: "too long"},
		{Field: "body.workflow.actions[7].id", Message: "no such row"},
		{Field: "header.x-api-key", Message: "lacks permission"},
	}}
	placed, marked := f.placeProblem(p, def, map[string]*field{"/change_summary": &summary})
	got := map[string]string{}
	for _, fd := range []field{f.Name, f.TriggerKind, f.TriggerInputs, f.Actions[0].ID, f.Actions[0].Inputs, f.Actions[1].Kind,
		f.Actions[1].BackoffMS, f.Edges[1].Ref, f.Edges[1].To, summary} {
		got[fd.ID] = fd.Error
	}
	want := map[string]string{"name": "must be 1-255 characters", "trigger-kind": "", "trigger-inputs": "bad cron",
		"action-0-id": "is not reachable", "action-0-inputs": "is required", "action-1-kind": "is not an action kind",
		"action-1-retry-backoff": "must be 0-3600000", "edge-1-ref": "is required for a match edge", "edge-1-to": "names no action",
		"change-summary": "too long"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages by input:\n got %v\nwant %v", got, want)
	}
	if len(placed.Unplaced) != 2 || placed.Unplaced[0].Field != "body.workflow.actions[7].id" || placed.Unplaced[1].Field != "header.x-api-key" {
		t.Errorf("unplaced = %+v, want the missing row and the header", placed.Unplaced)
	}
	if want := map[string]string{"trigger": "bad cron", "a": "is required", "b": "is not an action kind"}; !reflect.DeepEqual(marked, want) {
		t.Errorf("graph marks = %v, want %v", marked, want)
	}
}

func TestEditorFormReadsRowsAndRefusesWhatIsNotJSON(t *testing.T) {
	form := url.Values{"name": {"W"}, "trigger-kind": {"workflows/webhook"}, "trigger-inputs": {""},
		"action-count": {"3"},
		"action-0-id":  {"gone"}, "action-0-kind": {"builtin:set"}, "action-0-remove": {"1"},
		"action-1-id": {"kept"}, "action-1-kind": {"builtin:set"}, "action-1-inputs": {`{"values": {"x": "a > b"}}`}, "action-1-retry-max": {"3"},
		"action-2-inputs": {"{}"}, // the blank row
		"edge-count":      {"2"}, "edge-0-from": {"$source"}, "edge-0-to": {"kept"}, "edge-0-cond": {""}}
	f := parseEditorForm(form)
	def, ok := f.definition()
	if !ok || len(def.Actions) != 1 || def.Actions[0].ID != "kept" || def.Actions[0].Retry == nil || def.Actions[0].Retry.MaxAttempts != 3 ||
		len(def.Edges) != 1 || def.Edges[0].Conditional != nil || def.Trigger.Kind != workflow.TriggerWebhook {
		t.Fatalf("definition = %+v, %v", def, ok)
	}
	if v := newEditorForm("W", "", def).Actions[0].Inputs.Value; v != "{\n  \"values\": {\n    \"x\": \"a > b\"\n  }\n}" {
		t.Errorf("inputs shown as %q", v)
	}

	form.Set("action-1-inputs", `{"values": `)
	form.Set("action-1-timeout", "soon")
	f = parseEditorForm(form)
	def, ok = f.definition()
	if ok || f.Actions[0].Inputs.Error == "" || f.Actions[0].Timeout.Error != "must be a whole number" {
		t.Fatalf("unreadable inputs: ok %v, inputs %q, timeout %q", ok, f.Actions[0].Inputs.Error, f.Actions[0].Timeout.Error)
	}
	if m := f.localMarks(def); m["kept"] == "" {
		t.Errorf("graph marks of unreadable inputs = %v", m)
	}
	form.Set("action-1-inputs", `["x"]`)
	f = parseEditorForm(form)
	if _, ok := f.definition(); ok || f.Actions[0].Inputs.Error != `must be a JSON object, such as {"name": "value"}` {
		t.Errorf("an array for inputs: ok %v, %q", ok, f.Actions[0].Inputs.Error)
	}
}

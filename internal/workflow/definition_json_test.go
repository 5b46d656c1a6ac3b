package workflow

import (
	"encoding/json"
	"testing"
)

// TestDefinitionJSONGivesEveryMember: a definition is written with every
// member the spec gives it, whatever was left out when it was saved: the
// trigger (the new-post one it stands for), its inputs and each action's
// name and inputs, with actions and edges as arrays.
func TestDefinitionJSONGivesEveryMember(t *testing.T) {
	for name, tc := range map[string]struct {
		def  Definition
		want string
	}{
		"nothing given": {Definition{},
			`{"trigger":{"kind":"workflows/new-post","inputs":{}},"actions":[],"edges":[]}`},
		"no names or inputs": {Definition{Trigger: &Trigger{Kind: TriggerWebhook},
			Actions: []Action{{ID: "a", Kind: "builtin:exit"}}, Edges: []Edge{{From: Source, To: "a"}}},
			`{"trigger":{"kind":"workflows/webhook","inputs":{}},"actions":[{"id":"a","kind":"builtin:exit","name":"","inputs":{}}],"edges":[{"from":"$source","to":"a"}]}`},
		"all given": {Definition{Trigger: &Trigger{Kind: TriggerEngagement, Inputs: map[string]any{"topic_id": "t1"}},
			Actions: []Action{{ID: "a", Kind: "builtin:set", Name: "Set", Inputs: map[string]any{"values": map[string]any{"x": 1}}}},
			Edges:   []Edge{{From: Source, To: "a"}}},
			`{"trigger":{"kind":"workflows/engagement","inputs":{"topic_id":"t1"}},"actions":[{"id":"a","kind":"builtin:set","name":"Set","inputs":{"values":{"x":1}}}],"edges":[{"from":"$source","to":"a"}]}`},
	} {
		b, err := json.Marshal(tc.def)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", name, b, tc.want)
		}
		// What is written reads back as the same definition.
		var back Definition
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !SameDefinition(back, tc.def) || back.TriggerKind() != tc.def.TriggerKind() {
			t.Errorf("%s: read back as %+v", name, back)
		}
	}
	// A trigger left out is the new-post trigger it stands for, and an
	// input list left out is an empty one: a draft saved either way is in
	// sync with the live definition.
	if !SameDefinition(Definition{}, Definition{Trigger: &Trigger{Kind: TriggerNewPost, Inputs: map[string]any{}}}) {
		t.Error("no trigger and the explicit new-post trigger differ")
	}
	if SameDefinition(Definition{}, Definition{Trigger: &Trigger{Kind: TriggerWebhook}}) {
		t.Error("no trigger equals a webhook trigger")
	}
}

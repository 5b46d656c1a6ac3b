package workflow

import (
	"context"
	"testing"

	"github.com/trawlhq/trawl/internal/action"
)

// TestExamplesAreValid: every example parses, validates (the topic
// placeholder and the secret it names standing for the user's), and
// together they cover every trigger kind.
func TestExamplesAreValid(t *testing.T) {
	examples, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	v := &Validator{Catalogue: action.NewCatalogue()}
	kinds := map[string]bool{}
	for _, ex := range examples {
		if ex.Name == "" || ex.Description == "" || ex.Category == "" {
			t.Errorf("example %q lacks a name, description or category", ex.Name)
		}
		kinds[ex.Workflow.TriggerKind()] = true
		ps, err := v.Validate(context.Background(), ex.Workflow, "/workflow",
			fakeLookup{topics: []string{TopicPlaceholder}, secrets: []string{"SALES_SLACK"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) > 0 {
			t.Errorf("example %q is invalid: %+v", ex.Name, ps)
		}
	}
	for _, k := range TriggerKinds() {
		if !kinds[k] {
			t.Errorf("no example of trigger %s", k)
		}
	}
}

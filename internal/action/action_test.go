package action

import (
	"testing"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/integration"
)

// TestCatalogueCharges checks what each entry says it charges for: an
// item-charged action counts an array its output declares, and a step is
// paid either as it starts or with its output, never both.
func TestCatalogueCharges(t *testing.T) {
	c := NewCatalogue()
	for _, s := range c.List("") {
		switch s.CreditPer {
		case PerItem:
			props, _ := s.Outputs["properties"].(map[string]any)
			items, _ := props[s.CreditItems].(map[string]any)
			if items["type"] != "array" {
				t.Errorf("%s is charged per item of %q, which its output does not declare as an array", s.Kind, s.CreditItems)
			}
		case PerExecution, PerResult:
			if s.CreditItems != "" {
				t.Errorf("%s names creditItems but is charged per %s", s.Kind, s.CreditPer)
			}
		default:
			t.Errorf("%s has creditPer %q", s.Kind, s.CreditPer)
		}
		for _, in := range s.Inputs {
			if in.Secret != (in.Permission == auth.PermSecretsRead) {
				t.Errorf("%s input %s: secret %v, permission %q", s.Kind, in.Name, in.Secret, in.Permission)
			}
		}
	}
	comments, _ := c.Lookup(KindPronetPostComments)
	out := map[string]any{"comments": []any{map[string]any{}, map[string]any{}, map[string]any{}}, "count": 3.0}
	if up, got := comments.UpfrontCost(), comments.ResultCost(out); up != 0 || got != 3 {
		t.Errorf("three comments cost %d upfront and %d with the output, want 0 and 3", up, got)
	}
	if got := comments.ResultCost(map[string]any{"comments": []any{}}); got != 0 {
		t.Errorf("no comments cost %d", got)
	}
	enrich, _ := c.Lookup(KindPersonEnrichment)
	if up, got := enrich.UpfrontCost(), enrich.ResultCost(map[string]any{}); up != 0 || got != 1 {
		t.Errorf("an enrichment costs %d upfront and %d with the output, want 0 and 1", up, got)
	}
	agent, _ := c.Lookup(KindGenericAgent)
	if up, got := agent.UpfrontCost(), agent.ResultCost(map[string]any{}); up != 1 || got != 0 {
		t.Errorf("an agent step costs %d upfront and %d with the output, want 1 and 0", up, got)
	}
}

// Every action that acts through a connection names its type, which is a
// registered one, and has its executor beside its entry.
func TestIntegrationActionsNameTheirConnection(t *testing.T) {
	for _, s := range integrationSpecs() {
		if _, ok := integration.Lookup(s.Connection); !ok {
			t.Errorf("%s names connection %q, which is not a registered type", s.Kind, s.Connection)
		}
		if s.Run == nil {
			t.Errorf("%s has no executor", s.Kind)
		}
	}
}

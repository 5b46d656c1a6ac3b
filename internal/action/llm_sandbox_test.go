package action_test

import (
	"context"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/netguard"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// TestGenericAgentAgainstSandbox runs the client against the sandbox's
// chat-completions server, as a deployment without TRAWL_LLM_API_URL does:
// the answer matches output_schema and repeats for the same input.
func TestGenericAgentAgainstSandbox(t *testing.T) {
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1, Now: func() time.Time { return now }}).Handler())
	defer srv.Close()
	guard := netguard.Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	run := action.GenericAgent(&action.LLM{BaseURL: srv.URL + "/llm/v1", APIKey: "sandbox", Model: sandbox.LLMModel, HTTP: netguard.NewClient(guard),
		Sleep: func(context.Context, time.Duration) error { return nil }})
	schema := map[string]any{"type": "object", "required": []any{"tier", "score"}, "properties": map[string]any{
		"tier":  map[string]any{"type": "string", "enum": []any{"hot", "warm", "cold"}},
		"score": map[string]any{"type": "integer", "minimum": float64(1), "maximum": float64(5)},
	}}
	in := map[string]any{"prompt": "Rate Jane Doe, VP Sales at Acme", "output_schema": schema}
	first, err := run(context.Background(), action.Call{Inputs: in})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := first["json"].(map[string]any)
	if tier := got["tier"]; tier != "hot" && tier != "warm" && tier != "cold" {
		t.Fatalf("json %v", first["json"])
	}
	if s, _ := got["score"].(float64); s < 1 || s > 5 || s != float64(int(s)) || first["model"] != sandbox.LLMModel {
		t.Fatalf("output %v", first)
	}
	second, err := run(context.Background(), action.Call{Inputs: in})
	if err != nil || !reflect.DeepEqual(first, second) {
		t.Fatalf("same input, different output:\n%v\n%v (%v)", first, second, err)
	}
	in["model"] = "ratelimited-model"
	if _, err := run(context.Background(), action.Call{Inputs: in}); err == nil {
		t.Fatal("a rate-limited model answered")
	}
}

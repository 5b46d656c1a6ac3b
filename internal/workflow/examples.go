package workflow

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed examples.json
var examplesJSON []byte

// Example is a ready workflow a user starts from (GET
// /v1/workflows/examples). The README's worked examples are these
// definitions (TestReadmeWorkflowExamples checks that they match).
type Example struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Category    string     `json:"category"`
	Workflow    Definition `json:"workflow"`
}

// TopicPlaceholder stands in an example for the topic the user picks.
const TopicPlaceholder = "TOPIC_ID"

// Examples lists the ready workflows, at least one per trigger kind.
func Examples() ([]Example, error) {
	var out []Example
	if err := json.Unmarshal(examplesJSON, &out); err != nil {
		return nil, fmt.Errorf("workflow: examples: %w", err)
	}
	return out, nil
}

package action

// KindLoop runs the steps behind its `loop` edge once per item, then
// follows its `completed` edge.
const KindLoop = "builtin:loop"

// MaxLoopItems bounds the items one loop step runs its body for.
const MaxLoopItems = 1000

func loopSpec() Spec {
	return Spec{
		Kind: KindLoop, Name: "Loop", Category: CategoryControlFlow,
		Description: "Runs the steps behind the edge marked loop once per item (the item is loop.item, its position loop.index), then follows the edge marked completed.",
		Inputs: []Input{{Name: "items", Title: "Items", Required: true, Type: TypeAny,
			Description: "An array (at most 1,000 items), usually a template such as {{ steps.comments.output.comments }}."}},
		Check: func(in map[string]any) []Problem {
			v, ok := in["items"]
			if _, dynamic := v.(Dynamic); !ok || dynamic {
				return nil
			}
			a, ok := v.([]any)
			if !ok {
				return []Problem{problemf("items", "must be an array or a template that yields one")}
			}
			if len(a) > MaxLoopItems {
				return []Problem{problemf("items", "holds %d items; at most %d are allowed", len(a), MaxLoopItems)}
			}
			return nil
		},
		Outputs: object(map[string]any{
			"results": map[string]any{"type": "array", "description": "The output of the last step of the body for each item, in order."},
			"count":   typed("integer", "How many items were run."),
		}, "results", "count"),
	}
}

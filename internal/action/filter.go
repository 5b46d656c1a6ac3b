package action

// KindFilter ends its branch when the condition does not hold.
const KindFilter = "builtin:filter"

func filterSpec() Spec {
	return Spec{
		Kind: KindFilter, Name: "Filter", Category: CategoryControlFlow,
		Description: "Continues the branch only when the condition holds; otherwise the steps after it are skipped.",
		Inputs: []Input{{Name: "condition", Title: "Condition", Required: true, Type: TypeBoolean,
			Description: "Usually a template such as {{ trigger.text contains \"pricing\" }}."}},
		Outputs: object(map[string]any{"passed": typed("boolean", "Whether the branch continued.")}, "passed"),
	}
}

package action

// KindExit ends the execution as completed.
const KindExit = "builtin:exit"

func exitSpec() Spec {
	return Spec{
		Kind: KindExit, Name: "Exit", Category: CategoryControlFlow,
		Description: "Ends the execution as completed; steps not yet run are skipped.",
		Inputs:      []Input{{Name: "reason", Title: "Reason", Type: TypeString, Description: "Shown in the step's output."}},
		Outputs:     object(map[string]any{"reason": typed("string", "")}),
	}
}

package action

// KindIf branches: the `if` edge when the condition holds, `else` otherwise.
const KindIf = "builtin:if"

func ifSpec() Spec {
	return Spec{
		Kind: KindIf, Name: "If", Category: CategoryControlFlow,
		Description: "Takes the edge marked if when the condition holds and the edge marked else when it does not.",
		Inputs: []Input{{Name: "condition", Title: "Condition", Required: true, Type: TypeBoolean,
			Description: "Usually a template such as {{ trigger.likes > 10 }}."}},
		Outputs: object(map[string]any{"result": typed("boolean", "The condition's value.")}, "result"),
	}
}

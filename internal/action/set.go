package action

// KindSet outputs the values it is given, templates resolved.
const KindSet = "builtin:set"

func setSpec() Spec {
	return Spec{
		Kind: KindSet, Name: "Set values", Category: CategoryUtility,
		Description: "Outputs the object it is given, with its templates resolved, for later steps to use.",
		Inputs:      []Input{{Name: "values", Title: "Values", Required: true, Type: TypeObject}},
		Outputs:     map[string]any{"type": "object", "description": "The values, resolved."},
	}
}

package action

// KindGenericAgent asks a language model.
const KindGenericAgent = "generic_agent"

func genericAgentSpec() Spec {
	return Spec{
		Kind: KindGenericAgent, Name: "AI agent", Category: CategoryAI, CreditCost: 1,
		Description: "Sends a prompt to the configured language model and outputs its answer: text, or JSON matching output_schema when one is given.",
		Inputs: []Input{
			{Name: "prompt", Title: "Prompt", Required: true, Type: TypeString},
			{Name: "system", Title: "System prompt", Type: TypeString},
			{Name: "model", Title: "Model", Type: TypeString, Description: "Default: the deployment's model."},
			{Name: "output_schema", Title: "Output schema", Type: TypeObject, Description: "A JSON Schema the answer must match; the output's json member then holds it."},
		},
		Check: func(in map[string]any) []Problem {
			if s, ok := in["output_schema"].(map[string]any); ok {
				if _, ok := s["type"]; !ok {
					return []Problem{problemf("output_schema", "must be a JSON Schema with a type")}
				}
			}
			return nil
		},
		Outputs: object(map[string]any{
			"text":  typed("string", "The model's answer."),
			"json":  map[string]any{"description": "The answer parsed, when output_schema is given."},
			"model": typed("string", "The model that answered."),
		}, "text", "model"),
	}
}

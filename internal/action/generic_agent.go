package action

import "strings"

// KindGenericAgent asks a language model.
const KindGenericAgent = "generic_agent"

func genericAgentSpec() Spec {
	return Spec{
		Kind: KindGenericAgent, Name: "AI agent", Category: CategoryAI, CreditCost: 1,
		Description: "Sends a prompt to the configured language model (an OpenAI-compatible chat-completions API, or the built-in sandbox model) and outputs its answer: text, or JSON matching output_schema when one is given. An answer that does not match the schema fails the step with OUTPUT_MISMATCH (retryable).",
		Inputs: []Input{
			{Name: "prompt", Title: "Prompt", Required: true, Type: TypeString},
			{Name: "system", Title: "System prompt", Type: TypeString},
			{Name: "model", Title: "Model", Type: TypeString, Description: "Default: the deployment's model (TRAWL_LLM_MODEL)."},
			{Name: "output_schema", Title: "Output schema", Type: TypeObject, Description: "A JSON Schema the answer must match; the output's json member then holds it. Supported keywords: type, properties, required, additionalProperties, items, enum, minimum, maximum, minLength, maxLength, minItems, maxItems, format (plus title, description and other annotations)."},
		},
		Check: func(in map[string]any) []Problem {
			s, ok := in["output_schema"].(map[string]any)
			if !ok {
				return nil
			}
			_, problems := ParseSchema(s)
			out := make([]Problem, 0, len(problems))
			for _, msg := range problems {
				out = append(out, problemf("output_schema", "%s", strings.TrimPrefix(msg, ": ")))
			}
			return out
		},
		Outputs: object(map[string]any{
			"text":          typed("string", "The model's answer."),
			"json":          map[string]any{"description": "The answer parsed, when output_schema is given."},
			"model":         typed("string", "The model that answered."),
			"finish_reason": typed("string", "Why the model stopped (stop, length, …)."),
			"usage": object(map[string]any{
				"prompt_tokens":     typed("integer", ""),
				"completion_tokens": typed("integer", ""),
			}),
		}, "text", "model"),
	}
}

package action

import (
	"context"
	"strings"
)

// GenericAgent asks the language model of c. Its output is the answer's
// text and model, with json (the answer parsed and checked against
// output_schema) when the step gives a schema.
func GenericAgent(c *LLM) Executor {
	return func(ctx context.Context, call Call) (map[string]any, error) {
		in := call.Inputs
		prompt := inputString(in, "prompt")
		if strings.TrimSpace(prompt) == "" {
			return nil, failf(CodeInvalidInput, false, "prompt must not be empty")
		}
		req := ChatRequest{Model: inputString(in, "model"), System: inputString(in, "system"), Prompt: prompt}
		if raw, ok := in["output_schema"]; ok && raw != nil {
			m, ok := raw.(map[string]any)
			if !ok {
				return nil, failf(CodeInvalidInput, false, "output_schema must be a JSON Schema object")
			}
			s, problems := ParseSchema(m)
			if len(problems) > 0 {
				return nil, failf(CodeInvalidInput, false, "output_schema: %s", strings.Join(problems, "; "))
			}
			req.Schema, req.SchemaJSON = s, m
		}
		ans, err := c.Complete(ctx, req)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"text": ans.Text, "model": ans.Model,
			"usage": map[string]any{"prompt_tokens": float64(ans.PromptTokens), "completion_tokens": float64(ans.OutputTokens)}}
		if ans.FinishReason != "" {
			out["finish_reason"] = ans.FinishReason
		}
		if req.Schema != nil {
			out["json"] = ans.JSON
		}
		return out, nil
	}
}

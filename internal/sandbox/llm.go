package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/trawlhq/trawl/internal/action"
)

// The sandbox's language model speaks OpenAI's chat-completions protocol
// (the subset generic_agent uses) under /llm/v1. It answers
// deterministically: the same model, messages and response format give
// the same answer. With response_format json_schema the answer is JSON
// generated from the schema (types, enums, required members, bounds),
// seeded by a hash of the request; with json_object it is {"answer": …};
// otherwise a short text about the prompt. A model named missing-…,
// error-… or ratelimited-… answers 404, 500 or 429 (Retry-After: 1), as
// the sandbox's other upstreams do.

// LLMModel is the model the sandbox names when asked which it serves.
const LLMModel = "trawl-sandbox"

// maxLLMRequest bounds a request body.
const maxLLMRequest = 1 << 20

type llmRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string         `json:"name"`
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (s *Sandbox) llmHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.llmChat)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": LLMModel, "object": "model", "created": 0, "owned_by": "trawl"}}})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		llmError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Unknown request URL: "+r.Method+" "+r.URL.Path)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || strings.TrimSpace(tok) == "" {
			llmError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "You didn't provide an API key (Authorization: Bearer …).")
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// llmError writes OpenAI's error shape.
func llmError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code, "param": nil}})
}

func (s *Sandbox) llmChat(w http.ResponseWriter, r *http.Request) {
	var req llmRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxLLMRequest))
	if err := dec.Decode(&req); err != nil {
		llmError(w, http.StatusBadRequest, "invalid_request_error", "invalid_json", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if req.Model == "" {
		llmError(w, http.StatusBadRequest, "invalid_request_error", "missing_model", "you must provide a model parameter")
		return
	}
	switch err := checkIdent(req.Model); {
	case errors.Is(err, ErrNotFound):
		llmError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	case errors.Is(err, ErrUpstream):
		llmError(w, http.StatusInternalServerError, "server_error", "internal_error", "The server had an error while processing your request.")
		return
	case errors.Is(err, ErrRateLimited):
		w.Header().Set("Retry-After", "1")
		llmError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached for requests.")
		return
	}
	if len(req.Messages) == 0 {
		llmError(w, http.StatusBadRequest, "invalid_request_error", "missing_messages", "messages must hold at least one message")
		return
	}
	h := hashString(0x6c6c6d, req.Model)
	prompt := ""
	for i, m := range req.Messages {
		text, ok := messageText(m.Content)
		if !ok {
			llmError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", fmt.Sprintf("messages[%d].content must be a string or an array of text parts", i))
			return
		}
		h = hashString(hashString(h, m.Role), text)
		if m.Role == "user" {
			prompt = text
		}
	}
	content := ""
	switch rf := req.ResponseFormat; {
	case rf == nil || rf.Type == "" || rf.Type == "text":
		content = llmText(newRNG(h), req.Model, prompt)
	case rf.Type == "json_object":
		b, _ := json.Marshal(map[string]any{"answer": llmText(newRNG(h), req.Model, prompt)})
		content = string(b)
	case rf.Type == "json_schema" && rf.JSONSchema != nil && rf.JSONSchema.Schema != nil:
		schema, problems := action.ParseSchema(rf.JSONSchema.Schema)
		if len(problems) > 0 {
			llmError(w, http.StatusBadRequest, "invalid_request_error", "invalid_schema",
				fmt.Sprintf("Invalid schema for response_format '%s': %s", rf.JSONSchema.Name, strings.Join(problems, "; ")))
			return
		}
		canon, _ := json.Marshal(rf.JSONSchema.Schema) // map keys sorted: canonical
		b, err := json.Marshal(GenerateAnswer(schema, hashString(h, string(canon))))
		if err != nil {
			llmError(w, http.StatusInternalServerError, "server_error", "internal_error", "the answer does not encode")
			return
		}
		content = string(b)
	default:
		llmError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", "response_format.type must be text, json_object or json_schema (with json_schema.schema)")
		return
	}
	promptTokens, outTokens := 0, len(strings.Fields(content))
	for _, m := range req.Messages {
		text, _ := messageText(m.Content)
		promptTokens += len(strings.Fields(text)) + 3
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": fmt.Sprintf("chatcmpl-%016x", h), "object": "chat.completion", "created": s.now().Unix(), "model": req.Model,
		"system_fingerprint": "trawl-sandbox",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": content, "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": promptTokens, "completion_tokens": outTokens, "total_tokens": promptTokens + outTokens},
	})
}

// messageText reads a message's content: a string, or text parts.
func messageText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), true
}

var llmOpeners = []string{
	"Here is a short answer.", "In brief:", "Summary:", "The sandbox model's take:", "Answer:",
}

var llmClosers = []string{
	"This looks like a good fit for outreach.", "Worth a follow-up this week.", "Low priority for now.",
	"The signal is strong and recent.", "More context would sharpen this answer.",
}

// llmText is the sandbox's plain answer: deterministic, and about the
// prompt (its longest words), so that templates using it read sensibly.
func llmText(r *rng, model, prompt string) string {
	seen := map[string]bool{}
	var words []string
	for _, f := range strings.FieldsFunc(prompt, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c > 127)
	}) {
		l := strings.ToLower(f)
		if len(l) >= 4 && !seen[l] {
			seen[l] = true
			words = append(words, l)
		}
	}
	// The longest few, in the order the prompt has them.
	keep := map[string]bool{}
	sorted := slices.Clone(words)
	slices.SortStableFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	for _, w := range sorted[:min(3, len(sorted))] {
		keep[w] = true
	}
	var topic []string
	for _, w := range words {
		if keep[w] {
			topic = append(topic, w)
		}
	}
	about := "your prompt"
	if len(topic) > 0 {
		about = strings.Join(topic, ", ")
	}
	return fmt.Sprintf("%s %s answers about %s. %s", pick(r, llmOpeners), model, about, pick(r, llmClosers))
}

// LLMURL is the chat-completions base URL (…/chat/completions under it).
func (s *Server) LLMURL() string { return s.base + "/llm/v1" }

package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// LLM is a client of an OpenAI-compatible chat-completions API
// (POST {BaseURL}/chat/completions). The built-in sandbox speaks the same
// protocol, so this code runs with and without a real provider.
type LLM struct {
	// BaseURL ends before /chat/completions (https://api.openai.com/v1).
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none (local servers).
	APIKey string
	// Model answers steps that do not name one.
	Model string
	// HTTP must be netguard's client; redirects are not followed.
	HTTP *http.Client
	// Sleep waits before a rate-limited request is sent again; nil waits
	// on a timer (tests inject).
	Sleep func(ctx context.Context, d time.Duration) error
}

// LLM request limits.
const (
	// llmTries is how often one attempt sends a request that is answered
	// 429; the step's retry policy decides beyond that.
	llmTries = 3
	// llmMaxWait bounds one wait for Retry-After.
	llmMaxWait = 20 * time.Second
	// maxLLMResponse caps what is read of an answer.
	maxLLMResponse = 5 << 20
	// CodeOutputMismatch is the failure of an answer that does not match
	// the step's output_schema (or is not JSON when one is given).
	CodeOutputMismatch = "OUTPUT_MISMATCH"
)

// ChatRequest is one question to the model.
type ChatRequest struct {
	Model  string
	System string
	Prompt string
	// Schema, when given, asks for JSON matching it (SchemaJSON is the
	// schema as the user wrote it, sent to the provider).
	Schema     *Schema
	SchemaJSON map[string]any
}

// ChatAnswer is the model's answer.
type ChatAnswer struct {
	Text string
	// JSON is the answer parsed, when the request had a schema.
	JSON         any
	Model        string
	FinishReason string
	PromptTokens int
	OutputTokens int
}

// The wire format of chat completions (the members used).
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatResponseFormat struct {
	Type       string          `json:"type"`
	JSONSchema *chatJSONSchema `json:"json_schema,omitempty"`
}

type chatJSONSchema struct {
	Name   string         `json:"name"`
	Schema map[string]any `json:"schema"`
}

type chatBody struct {
	Model          string              `json:"model"`
	Messages       []chatMessage       `json:"messages"`
	ResponseFormat *chatResponseFormat `json:"response_format,omitempty"`
}

type chatReply struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal string  `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

type chatError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	} `json:"error"`
}

// Complete asks the model. Failures are *Error: a refused address or
// credentials, a bad request and a refusal are final; rate limits (after
// llmTries), 5xx, transport failures and an answer that misses the
// schema may be retried by the step.
func (c *LLM) Complete(ctx context.Context, req ChatRequest) (ChatAnswer, error) {
	model := cmpOr(req.Model, c.Model)
	if model == "" {
		return ChatAnswer{}, failf(CodeInvalidInput, false, "no model: give the step a model or set TRAWL_LLM_MODEL")
	}
	body := chatBody{Model: model}
	if req.System != "" {
		body.Messages = append(body.Messages, chatMessage{Role: "system", Content: req.System})
	}
	body.Messages = append(body.Messages, chatMessage{Role: "user", Content: req.Prompt})
	if req.Schema != nil {
		body.ResponseFormat = &chatResponseFormat{Type: "json_schema", JSONSchema: &chatJSONSchema{Name: "output", Schema: req.SchemaJSON}}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return ChatAnswer{}, failf(CodeInvalidInput, false, "the request does not encode: %v", err)
	}

	var reply chatReply
	for try := 1; ; try++ {
		status, header, data, err := c.post(ctx, raw)
		if err != nil {
			return ChatAnswer{}, err
		}
		if status == http.StatusTooManyRequests && try < llmTries {
			wait := retryAfter(header.Get("Retry-After"), try)
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
				return ChatAnswer{}, failf(CodeUpstream, true, "the language model API is rate limited (HTTP 429) for longer than the step may wait")
			}
			if err := c.sleep(ctx, wait); err != nil {
				return ChatAnswer{}, err
			}
			continue
		}
		if status/100 != 2 {
			return ChatAnswer{}, c.statusError(status, data)
		}
		if err := json.Unmarshal(data, &reply); err != nil {
			return ChatAnswer{}, failf(CodeUpstream, true, "the language model API answered HTTP %d with a body that is not a chat completion: %v", status, err)
		}
		break
	}
	if len(reply.Choices) == 0 {
		return ChatAnswer{}, failf(CodeUpstream, true, "the language model API answered without choices")
	}
	choice := reply.Choices[0]
	if r := choice.Message.Refusal; r != "" {
		return ChatAnswer{}, failf(CodeUpstream, false, "the model refused: %s", c.hide(clip(r, 300)))
	}
	if choice.Message.Content == nil {
		return ChatAnswer{}, failf(CodeUpstream, true, "the language model API answered without message content")
	}
	ans := ChatAnswer{Text: *choice.Message.Content, Model: cmpOr(reply.Model, model), FinishReason: choice.FinishReason,
		PromptTokens: reply.Usage.PromptTokens, OutputTokens: reply.Usage.CompletionTokens}
	if req.Schema == nil {
		return ans, nil
	}
	v, err := ParseAnswer(ans.Text)
	if err != nil {
		msg := "the model's answer is not JSON: " + err.Error()
		if ans.FinishReason == "length" {
			msg += " (the answer was cut off at the model's length limit)"
		}
		return ChatAnswer{}, failf(CodeOutputMismatch, true, "%s", msg)
	}
	if problems := req.Schema.Validate(v); len(problems) > 0 {
		return ChatAnswer{}, failf(CodeOutputMismatch, true, "the model's answer does not match output_schema: %s", strings.Join(problems, "; "))
	}
	ans.JSON = v
	return ans, nil
}

// ParseAnswer reads a model's JSON answer. Models asked for JSON
// sometimes wrap it in a Markdown code fence; that is taken off.
func ParseAnswer(text string) (any, error) {
	s := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[\"") {
			rest = rest[nl+1:]
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text follows the JSON value")
	}
	return v, nil
}

func (c *LLM) post(ctx context.Context, body []byte) (int, http.Header, []byte, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.BaseURL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, failf(CodeInvalidInput, false, "the language model API URL is not usable: %v", err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		r.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	resp, err := c.HTTP.Do(r)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil, failf(CodeTimeout, true, "the language model did not answer in time")
		}
		return 0, nil, nil, dialError(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxLLMResponse+1))
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil, failf(CodeTimeout, true, "the language model did not answer in time")
		}
		return 0, nil, nil, dialError(err)
	}
	if len(data) > maxLLMResponse {
		return 0, nil, nil, failf(CodeUpstream, false, "the language model's answer is larger than %d bytes", maxLLMResponse)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// statusError describes a failed answer with the provider's own message,
// never the key.
func (c *LLM) statusError(status int, data []byte) *Error {
	var e chatError
	detail := ""
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		detail = ": " + c.hide(clip(e.Error.Message, 300))
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return failf(CodeUpstream, false, "the language model API refused the credentials (HTTP %d; check TRAWL_LLM_API_KEY)%s", status, detail)
	case status == http.StatusTooManyRequests:
		return failf(CodeUpstream, true, "the language model API is rate limited (HTTP 429 after %d tries)%s", llmTries, detail)
	case status >= 500:
		return failf(CodeUpstream, true, "the language model API failed (HTTP %d)%s", status, detail)
	case status >= 300 && status < 400:
		return failf(CodeUpstream, false, "the language model API redirected (HTTP %d); set TRAWL_LLM_API_URL to the final address", status)
	}
	return failf(CodeUpstream, false, "the language model API refused the request (HTTP %d)%s", status, detail)
}

// hide keeps the API key out of messages (some providers quote it).
func (c *LLM) hide(s string) string {
	if c.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.APIKey, "[secret]")
}

func (c *LLM) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return failf(CodeTimeout, true, "the step ran out of time waiting out a rate limit")
	case <-t.C:
		return nil
	}
}

// retryAfter reads Retry-After (seconds or an HTTP date); without one the
// wait doubles from one second.
func retryAfter(h string, try int) time.Duration {
	d := time.Duration(1<<(try-1)) * time.Second
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		d = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = time.Until(t)
	}
	return max(0, min(d, llmMaxWait))
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

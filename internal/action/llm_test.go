package action

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/netguard"
)

const llmKey = "sk-test-key-never-shown"

// provider is a local chat-completions server: answer decides each reply,
// requests records what it was sent.
type provider struct {
	*httptest.Server
	mu       sync.Mutex
	requests []providerRequest
}

type providerRequest struct {
	Auth string
	Path string
	Body map[string]any
}

func newProvider(t *testing.T, answer func(n int, w http.ResponseWriter, body map[string]any)) *provider {
	p := &provider{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		p.mu.Lock()
		p.requests = append(p.requests, providerRequest{Auth: r.Header.Get("Authorization"), Path: r.URL.Path, Body: body})
		n := len(p.requests)
		p.mu.Unlock()
		answer(n, w, body)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *provider) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.requests)
}

// completion writes a chat completion whose message content is content.
func completion(w http.ResponseWriter, content string, finish string) {
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-test-2026",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   map[string]any{"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
	})
	_, _ = w.Write(b)
}

func providerError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	_, _ = w.Write(b)
}

// sleeps records the waits a client asked for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func llmFor(p *provider, s *sleeps) *LLM {
	return &LLM{BaseURL: p.URL + "/v1", APIKey: llmKey, Model: "gpt-test", HTTP: loopbackDeps().HTTP, Sleep: s.sleep}
}

var leadSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"score": map[string]any{"type": "integer", "minimum": float64(0), "maximum": float64(100)},
		"tier":  map[string]any{"type": "string", "enum": []any{"hot", "warm", "cold"}},
		"why":   map[string]any{"type": "string"},
	},
	"required":             []any{"score", "tier"},
	"additionalProperties": false,
}

func runAgent(t *testing.T, c *LLM, in map[string]any) (map[string]any, error) {
	t.Helper()
	return GenericAgent(c)(context.Background(), Call{Inputs: in, IdempotencyKey: "x:agent"})
}

func TestGenericAgentAsksForJSON(t *testing.T) {
	p := newProvider(t, func(_ int, w http.ResponseWriter, _ map[string]any) {
		completion(w, "```json\n{\"score\": 87, \"tier\": \"hot\", \"why\": \"VP Sales, hiring\"}\n```", "stop")
	})
	out, err := runAgent(t, llmFor(p, &sleeps{}), map[string]any{"prompt": "Score this lead", "system": "You score leads.", "output_schema": leadSchema})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"score": float64(87), "tier": "hot", "why": "VP Sales, hiring"}
	if !reflect.DeepEqual(out["json"], want) || out["model"] != "gpt-test-2026" || out["finish_reason"] != "stop" ||
		!strings.Contains(out["text"].(string), `"tier": "hot"`) {
		t.Fatalf("output %v", out)
	}
	if u := out["usage"].(map[string]any); u["prompt_tokens"] != float64(12) || u["completion_tokens"] != float64(5) {
		t.Fatalf("usage %v", u)
	}
	r := p.requests[0]
	if r.Path != "/v1/chat/completions" || r.Auth != "Bearer "+llmKey || r.Body["model"] != "gpt-test" {
		t.Fatalf("request %+v", r)
	}
	msgs, _ := r.Body["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "system" || msgs[0].(map[string]any)["content"] != "You score leads." ||
		msgs[1].(map[string]any)["role"] != "user" || msgs[1].(map[string]any)["content"] != "Score this lead" {
		t.Fatalf("messages %v", msgs)
	}
	rf, _ := r.Body["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] == "" || !reflect.DeepEqual(js["schema"], leadSchema) {
		t.Fatalf("response_format %v", rf)
	}
}

func TestGenericAgentText(t *testing.T) {
	p := newProvider(t, func(_ int, w http.ResponseWriter, _ map[string]any) { completion(w, "Looks like a buyer.", "stop") })
	out, err := runAgent(t, llmFor(p, &sleeps{}), map[string]any{"prompt": "Is she a buyer?", "model": "gpt-other"})
	if err != nil {
		t.Fatal(err)
	}
	if out["text"] != "Looks like a buyer." || out["json"] != nil {
		t.Fatalf("output %v", out)
	}
	if _, ok := out["json"]; ok {
		t.Fatal("json member without a schema")
	}
	r := p.requests[0]
	if r.Body["model"] != "gpt-other" || r.Body["response_format"] != nil || len(r.Body["messages"].([]any)) != 1 {
		t.Fatalf("request %v", r.Body)
	}
}

func TestGenericAgentRateLimitRetried(t *testing.T) {
	p := newProvider(t, func(n int, w http.ResponseWriter, _ map[string]any) {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "2")
			providerError(w, http.StatusTooManyRequests, "Rate limit reached")
		case 2:
			providerError(w, http.StatusTooManyRequests, "Rate limit reached")
		default:
			completion(w, "ok", "stop")
		}
	})
	s := &sleeps{}
	out, err := runAgent(t, llmFor(p, s), map[string]any{"prompt": "hi"})
	if err != nil || out["text"] != "ok" {
		t.Fatalf("%v %v", out, err)
	}
	if want := []time.Duration{2 * time.Second, 2 * time.Second}; !reflect.DeepEqual(s.d, want) || p.count() != 3 {
		t.Fatalf("waits %v (want %v), requests %d", s.d, want, p.count())
	}
}

func TestGenericAgentFailures(t *testing.T) {
	type answer func(n int, w http.ResponseWriter, body map[string]any)
	for _, tc := range []struct {
		name      string
		answer    answer
		in        map[string]any
		code      string
		retryable bool
		msg       string
		requests  int
	}{
		{"bad key", func(_ int, w http.ResponseWriter, _ map[string]any) {
			providerError(w, http.StatusUnauthorized, "Incorrect API key provided: "+llmKey)
		}, nil, CodeUpstream, false, "refused the credentials (HTTP 401", 1},
		{"rate limited throughout", func(_ int, w http.ResponseWriter, _ map[string]any) {
			w.Header().Set("Retry-After", "1")
			providerError(w, http.StatusTooManyRequests, "slow down")
		}, nil, CodeUpstream, true, "rate limited (HTTP 429 after 3 tries): slow down", 3},
		{"server error", func(_ int, w http.ResponseWriter, _ map[string]any) {
			providerError(w, http.StatusBadGateway, "upstream overloaded")
		}, nil, CodeUpstream, true, "HTTP 502", 1},
		{"bad request", func(_ int, w http.ResponseWriter, _ map[string]any) {
			providerError(w, http.StatusBadRequest, "The model `gpt-9` does not exist")
		}, nil, CodeUpstream, false, "does not exist", 1},
		{"malformed envelope", func(_ int, w http.ResponseWriter, _ map[string]any) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"choices": [`))
		}, nil, CodeUpstream, true, "not a chat completion", 1},
		{"no choices", func(_ int, w http.ResponseWriter, _ map[string]any) {
			_, _ = w.Write([]byte(`{"choices": []}`))
		}, nil, CodeUpstream, true, "without choices", 1},
		{"answer not JSON", func(_ int, w http.ResponseWriter, _ map[string]any) {
			completion(w, "Sure! The score is 87.", "stop")
		}, map[string]any{"output_schema": leadSchema}, CodeOutputMismatch, true, "not JSON", 1},
		{"answer cut off", func(_ int, w http.ResponseWriter, _ map[string]any) {
			completion(w, `{"score": 87, "tier": "ho`, "length")
		}, map[string]any{"output_schema": leadSchema}, CodeOutputMismatch, true, "cut off", 1},
		{"answer off schema", func(_ int, w http.ResponseWriter, _ map[string]any) {
			completion(w, `{"score": 101.5, "tier": "lukewarm", "extra": 1}`, "stop")
		}, map[string]any{"output_schema": leadSchema}, CodeOutputMismatch, true,
			`$ has member "extra" that the schema does not allow; $.score must be integer, got number; $.tier must be one of "hot", "warm", "cold"`, 1},
		{"answer lacks a member", func(_ int, w http.ResponseWriter, _ map[string]any) {
			completion(w, `{"score": 3}`, "stop")
		}, map[string]any{"output_schema": leadSchema}, CodeOutputMismatch, true, `$ lacks required member "tier"`, 1},
		{"refusal", func(_ int, w http.ResponseWriter, _ map[string]any) {
			_, _ = w.Write([]byte(`{"choices": [{"message": {"content": null, "refusal": "I can't help with that."}}]}`))
		}, nil, CodeUpstream, false, "refused: I can't help", 1},
		{"schema the step cannot use", func(_ int, w http.ResponseWriter, _ map[string]any) {
			completion(w, "{}", "stop")
		}, map[string]any{"output_schema": map[string]any{"type": "object", "anyOf": []any{}}}, CodeInvalidInput, false, "anyOf: is not supported", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, tc.answer)
			in := map[string]any{"prompt": "Score this lead"}
			for k, v := range tc.in {
				in[k] = v
			}
			_, err := runAgent(t, llmFor(p, &sleeps{}), in)
			e := wantError(t, err, tc.code, tc.retryable)
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q lacks %q", e.Message, tc.msg)
			}
			if strings.Contains(e.Message, llmKey) {
				t.Errorf("message %q shows the key", e.Message)
			}
			if p.count() != tc.requests {
				t.Errorf("%d requests, want %d", p.count(), tc.requests)
			}
		})
	}
}

func TestGenericAgentRateLimitLongerThanTheStep(t *testing.T) {
	p := newProvider(t, func(_ int, w http.ResponseWriter, _ map[string]any) {
		w.Header().Set("Retry-After", "10")
		providerError(w, http.StatusTooManyRequests, "slow down")
	})
	s := &sleeps{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := GenericAgent(llmFor(p, s))(ctx, Call{Inputs: map[string]any{"prompt": "hi"}})
	wantError(t, err, CodeUpstream, true)
	if len(s.d) != 0 || p.count() != 1 {
		t.Fatalf("waited %v over %d requests; a wait past the deadline should end the attempt", s.d, p.count())
	}
}

func TestGenericAgentTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	p := newProvider(t, func(_ int, w http.ResponseWriter, _ map[string]any) { <-release })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := GenericAgent(llmFor(p, &sleeps{}))(ctx, Call{Inputs: map[string]any{"prompt": "hi"}})
	wantError(t, err, CodeTimeout, true)
}

func TestGenericAgentGuarded(t *testing.T) {
	p := newProvider(t, func(_ int, w http.ResponseWriter, _ map[string]any) { completion(w, "ok", "stop") })
	c := llmFor(p, &sleeps{})
	c.HTTP = netguard.NewClient(netguard.Options{})
	_, err := runAgent(t, c, map[string]any{"prompt": "hi"})
	wantError(t, err, CodeBlocked, false)
	if p.count() != 0 {
		t.Fatal("a loopback provider was reached without an exception")
	}
}

func TestGenericAgentNoModel(t *testing.T) {
	p := newProvider(t, func(_ int, w http.ResponseWriter, _ map[string]any) { completion(w, "ok", "stop") })
	c := llmFor(p, &sleeps{})
	c.Model = ""
	_, err := runAgent(t, c, map[string]any{"prompt": "hi"})
	wantError(t, err, CodeInvalidInput, false)
	if _, err := runAgent(t, c, map[string]any{"prompt": "  "}); err == nil {
		t.Fatal("an empty prompt was sent")
	}
}

func TestRetryAfter(t *testing.T) {
	for h, want := range map[string]time.Duration{"": time.Second, "3": 3 * time.Second, "600": llmMaxWait, "x": time.Second, "-1": time.Second} {
		if got := retryAfter(h, 1); got != want {
			t.Errorf("Retry-After %q: %s, want %s", h, got, want)
		}
	}
	if got := retryAfter("", 2); got != 2*time.Second {
		t.Errorf("second try waits %s", got)
	}
}

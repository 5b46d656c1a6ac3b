package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/action"
)

// chat posts a chat-completions request to the sandbox.
func chat(t testing.TB, h http.Handler, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/llm/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sandbox")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var v map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%s: not JSON: %s", body, rec.Body)
	}
	return rec.Code, rec.Header(), v
}

// content is the answer's message content.
func content(t testing.TB, v map[string]any) string {
	t.Helper()
	choices := list(v["choices"])
	if len(choices) != 1 {
		t.Fatalf("choices %v", v)
	}
	s, ok := obj(obj(choices[0])["message"])["content"].(string)
	if !ok {
		t.Fatalf("no content in %v", v)
	}
	return s
}

func chatBody(model, prompt string, schema string) string {
	b := `{"model": "` + model + `", "messages": [{"role": "system", "content": "You qualify leads."}, {"role": "user", "content": ` + mustQuote(prompt) + `}]`
	if schema != "" {
		b += `, "response_format": {"type": "json_schema", "json_schema": {"name": "lead", "schema": ` + schema + `}}`
	}
	return b + "}"
}

func mustQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const leadSchema = `{"type": "object", "additionalProperties": false, "required": ["score", "tier", "contacts"],
  "properties": {
    "score": {"type": "integer", "minimum": 0, "maximum": 100},
    "tier": {"type": "string", "enum": ["hot", "warm", "cold"]},
    "summary": {"type": "string", "maxLength": 40},
    "contacts": {"type": "array", "minItems": 2, "maxItems": 4, "items": {"type": "object", "required": ["email"],
      "properties": {"email": {"type": "string", "format": "email"}, "since": {"type": "string", "format": "date-time"}}}},
    "ratio": {"type": "number", "minimum": 0.25, "maximum": 0.5},
    "flag": {"type": ["boolean", "null"]}
  }}`

func TestLLMDeterministicText(t *testing.T) {
	h := newTest(t, 1, testNow).Handler()
	body := chatBody("trawl-sandbox", "Is Jane Doe, VP Sales at Acme, a good prospect for our CRM?", "")
	code, _, a := chat(t, h, body)
	_, _, b := chat(t, newTest(t, 9, testNow.Add(48*3600e9)).Handler(), body)
	if code != 200 || content(t, a) != content(t, b) || a["id"] != b["id"] || a["model"] != "trawl-sandbox" {
		t.Fatalf("same request, different answers:\n%v\n%v", a, b)
	}
	text := content(t, a)
	if !strings.Contains(text, "prospect") || !strings.Contains(text, "trawl-sandbox") {
		t.Fatalf("text %q is not about the prompt", text)
	}
	_, _, other := chat(t, h, chatBody("trawl-sandbox", "Write a subject line for a follow-up email", ""))
	if content(t, other) == text {
		t.Fatal("different prompts, same answer")
	}
	if u := obj(a["usage"]); u["prompt_tokens"].(float64) < 10 || u["completion_tokens"].(float64) < 3 {
		t.Fatalf("usage %v", u)
	}
}

func TestLLMSchemaAnswers(t *testing.T) {
	h := newTest(t, 1, testNow).Handler()
	schema, problems := action.ParseSchema(mustDecode(t, leadSchema))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	answers := map[string]bool{}
	for _, prompt := range []string{"Jane Doe, VP Sales", "John Roe, intern", "Ann Lee, CFO", "Bo Chan, founder", "Sam Ortiz, SDR"} {
		code, _, v := chat(t, h, chatBody("trawl-sandbox", prompt, leadSchema))
		if code != 200 {
			t.Fatalf("%d %v", code, v)
		}
		text := content(t, v)
		answer := mustDecode(t, text)
		if msgs := schema.Validate(answer); len(msgs) > 0 {
			t.Fatalf("%s does not match its schema: %v", text, msgs)
		}
		_, _, again := chat(t, h, chatBody("trawl-sandbox", prompt, leadSchema))
		if content(t, again) != text {
			t.Fatalf("not deterministic:\n%s\n%s", text, content(t, again))
		}
		for _, c := range list(obj(answer)["contacts"]) {
			if e := obj(c)["email"].(string); !strings.HasSuffix(e, "@example.com") {
				t.Fatalf("email %q", e)
			}
		}
		answers[text] = true
	}
	if len(answers) < 4 {
		t.Fatalf("five prompts gave %d distinct answers", len(answers))
	}
	_, _, v := chat(t, h, `{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "response_format": {"type": "json_object"}}`)
	if a := obj(mustDecode(t, content(t, v))); a["answer"] == "" {
		t.Fatalf("json_object answer %v", a)
	}
}

func mustDecode(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestLLMErrors(t *testing.T) {
	h := newTest(t, 1, testNow).Handler()
	req := httptest.NewRequest(http.MethodPost, "/llm/v1/chat/completions", strings.NewReader(chatBody("m", "hi", "")))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 401 || !strings.Contains(rec.Body.String(), "invalid_api_key") {
		t.Fatalf("no key: %d %s", rec.Code, rec.Body)
	}
	for _, tc := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"model": "m", "messages": [`, 400, "invalid_json"},
		{`{"messages": [{"role": "user", "content": "hi"}]}`, 400, "missing_model"},
		{`{"model": "m", "messages": []}`, 400, "missing_messages"},
		{`{"model": "m", "messages": [{"role": "user", "content": 3}]}`, 400, "invalid_value"},
		{chatBody("m", "hi", `{"type": "object", "anyOf": []}`), 400, "invalid_schema"},
		{`{"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "xml"}}`, 400, "invalid_value"},
		{chatBody("missing-model", "hi", ""), 404, "model_not_found"},
		{chatBody("error-model", "hi", ""), 500, "internal_error"},
		{chatBody("ratelimited-model", "hi", ""), 429, "rate_limit_exceeded"},
	} {
		code, hdr, v := chat(t, h, tc.body)
		if code != tc.status || obj(v["error"])["code"] != tc.code || obj(v["error"])["message"] == "" {
			t.Errorf("%s: %d %v, want %d %s", tc.body, code, v, tc.status, tc.code)
		}
		if code == 429 && hdr.Get("Retry-After") != "1" {
			t.Errorf("429 without Retry-After")
		}
	}
}

// FuzzGenerateAnswer: for any schema the subset accepts, the sandbox's
// answer matches it, survives JSON, and is the same for the same seed.
func FuzzGenerateAnswer(f *testing.F) {
	for _, s := range []string{leadSchema, `{"type": "string", "minLength": 3, "maxLength": 3}`,
		`{"type": ["integer", "null"], "minimum": -5, "maximum": -5}`, `{"type": "number", "minimum": -1e308, "maximum": 1e308}`,
		`{"type": "array", "maxItems": 0}`, `{"type": "object", "required": ["x"], "additionalProperties": {"type": "boolean"}}`,
		`{"type": ["array", "object"], "minItems": 3, "items": {"enum": [1, "a", null]}}`,
		`{"type": "string", "format": "uuid", "maxLength": 8}`, `{"type": "integer", "minimum": 9007199254740993}`} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		s, problems := action.ParseSchema(v)
		if len(problems) > 0 {
			return
		}
		a, err := json.Marshal(GenerateAnswer(s, seed))
		if err != nil {
			t.Fatalf("answer does not encode: %v", err)
		}
		b, _ := json.Marshal(GenerateAnswer(s, seed))
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d: %s then %s", seed, a, b)
		}
		var back any
		if err := json.Unmarshal(a, &back); err != nil {
			t.Fatal(err)
		}
		if msgs := s.Validate(back); len(msgs) > 0 {
			t.Fatalf("schema %s, answer %s: %v", raw, a, msgs)
		}
		if len(a) > 1<<20 {
			t.Fatalf("answer of %d bytes", len(a))
		}
	})
}

func TestGenerateAnswerSeeds(t *testing.T) {
	s, _ := action.ParseSchema(mustDecode(t, leadSchema))
	if reflect.DeepEqual(GenerateAnswer(s, 1), GenerateAnswer(s, 2)) {
		t.Fatal("two seeds, one answer")
	}
}

// FuzzLLMChat throws arbitrary bodies at the chat endpoint: no panic, an
// OpenAI-shaped answer, and no 5xx unless an error- model asked for one.
func FuzzLLMChat(f *testing.F) {
	for _, s := range []string{chatBody("m", "hi", ""), chatBody("m", "hi", leadSchema), `{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}], "response_format": {"type": "json_object"}}`,
		`{`, `[]`, `{"model": "error-x", "messages": [{"role": "user", "content": "x"}]}`, `{"model": "m", "messages": [{"content": null}], "response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "array", "minItems": 3}}}}`} {
		f.Add(s)
	}
	h := newTest(f, 1, testNow).Handler()
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/llm/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer sandbox")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var v map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("%q: answer %d is not JSON: %s", body, rec.Code, rec.Body)
		}
		switch {
		case rec.Code == 200:
			content(t, v)
		case rec.Code >= 500 && !strings.Contains(body, "error"):
			t.Fatalf("%q: %d %s", body, rec.Code, rec.Body)
		case obj(v["error"])["message"] == nil && rec.Code != 200:
			t.Fatalf("%q: %d without an error message: %s", body, rec.Code, rec.Body)
		}
	})
}

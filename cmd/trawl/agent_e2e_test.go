package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/store"
)

// agentFlow scores the trigger's post with generic_agent, asking for JSON
// of leadSchemaJSON, and copies the tier into a set step.
const agentFlow = `{"actions":[
 {"id":"score","kind":"generic_agent","retry":{"max_attempts":2},"inputs":{
   "prompt":"Qualify {{ trigger.author_url }} who wrote: {{ trigger.text }}",
   "system":"You qualify B2B leads.",
   "output_schema":` + leadSchemaJSON + `}},
 {"id":"route","kind":"builtin:set","inputs":{"values":{"tier":"{{ steps.score.output.json.tier }}","score":"{{ steps.score.output.json.score }}"}}}],
 "edges":[{"from":"$source","to":"score"},{"from":"score","to":"route"}]}`

const leadSchemaJSON = `{"type":"object","additionalProperties":false,"required":["tier","score"],
 "properties":{"tier":{"type":"string","enum":["hot","warm","cold"]},"score":{"type":"integer","minimum":0,"maximum":100},
 "reason":{"type":"string","maxLength":80}}}`

// agentOutput is the generic_agent step of an execution.
func agentOutput(t *testing.T, x executionView) map[string]any {
	t.Helper()
	if len(x.Steps) == 0 || x.Steps[0].StepID != "score" {
		t.Fatalf("steps %s", x.keys())
	}
	out, _ := x.Steps[0].Output.(map[string]any)
	return out
}

// TestGenericAgentAgainstTheSandbox: without TRAWL_LLM_API_URL the
// sandbox model answers, with JSON matching output_schema, the same for
// the same input; each real run costs the action's credit.
func TestGenericAgentAgainstTheSandbox(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		w := createWorkflow(t, c, map[string]any{"name": "qualify", "workflow": json.RawMessage(agentFlow)})
		day := time.Now()
		overrides := map[string]any{"overrides": map[string]any{"author_url": "https://x.com/jane", "text": "We are hiring SDRs and evaluating CRMs"}}
		first := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, overrides), ended)
		if first.Status != "completed" || first.keys() != "score:completed route:completed" {
			t.Fatalf("run %s: %s %+v", first.Status, first.keys(), first.Steps)
		}
		out := agentOutput(t, first)
		answer, _ := out["json"].(map[string]any)
		tier, _ := answer["tier"].(string)
		score, _ := answer["score"].(float64)
		if (tier != "hot" && tier != "warm" && tier != "cold") || score < 0 || score > 100 || score != float64(int(score)) || out["model"] != "trawl-sandbox" {
			t.Fatalf("agent output %v", out)
		}
		for k := range answer {
			if k != "tier" && k != "score" && k != "reason" {
				t.Fatalf("member %q outside the schema: %v", k, answer)
			}
		}
		if route := first.Steps[1].Output.(map[string]any); route["tier"] != tier || route["score"] != score {
			t.Fatalf("the next step read %v, the agent answered %v", route, answer)
		}
		if prompt := first.Steps[0].Input["prompt"]; prompt != "Qualify https://x.com/jane who wrote: We are hiring SDRs and evaluating CRMs" {
			t.Fatalf("resolved prompt %q", prompt)
		}

		again := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, overrides), ended)
		if !reflect.DeepEqual(agentOutput(t, again), out) {
			t.Fatalf("same input, different answers:\n%v\n%v", out, agentOutput(t, again))
		}
		if spent := ledgerOf(t, c, day); spent != 2 {
			t.Fatalf("two agent runs cost %d credits, want 2", spent)
		}

		// A schema outside the supported subset is refused when written.
		bad := strings.Replace(agentFlow, `"additionalProperties":false,`, `"additionalProperties":false,"oneOf":[],`, 1)
		wantError(t, do(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "bad", "workflow": json.RawMessage(bad)}),
			400, "VALIDATION_ERROR", "body.workflow.actions[0].inputs.output_schema")
	})
}

// fakeLLM is a local OpenAI-compatible provider: prompts that contain
// "off-schema" get an answer outside the schema.
type fakeLLM struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
}

func newFakeLLM(t *testing.T) *fakeLLM {
	f := &fakeLLM{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.requests, f.auth = append(f.requests, body), append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		content := `{"tier": "hot", "score": 91, "reason": "hiring SDRs"}`
		if strings.Contains(string(raw), "off-schema") {
			content = `{"tier": "scorching", "score": "high"}`
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-x", "object": "chat.completion", "model": body["model"],
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
			"usage":   map[string]any{"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}})
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeLLM) calls() ([]map[string]any, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.requests...), append([]string(nil), f.auth...)
}

// TestGenericAgentAgainstAProvider: with TRAWL_LLM_API_URL set, the step
// calls that provider with the configured key and model through the
// guarded dialer; an answer off the schema fails the step with the
// mismatches listed, after its attempts; without an exception for the
// provider's address the call is refused.
func TestGenericAgentAgainstAProvider(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		llm := newFakeLLM(t)
		settings := map[string]string{"TRAWL_LLM_API_URL": llm.URL + "/v1", "TRAWL_LLM_API_KEY": "sk-fake-provider-key",
			"TRAWL_LLM_MODEL": "gpt-fake-mini", "TRAWL_ALLOW_PRIVATE_NETWORKS": "127.0.0.1/32"}
		ts := startServer(t, serverEnv(t, engine, settings))
		c := ts.Client
		w := createWorkflow(t, c, map[string]any{"name": "qualify", "workflow": json.RawMessage(agentFlow)})

		x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"text": "We are hiring"}}), ended)
		out := agentOutput(t, x)
		if x.Status != "completed" || !reflect.DeepEqual(out["json"], map[string]any{"tier": "hot", "score": float64(91), "reason": "hiring SDRs"}) ||
			out["model"] != "gpt-fake-mini" || x.Steps[1].Output.(map[string]any)["tier"] != "hot" {
			t.Fatalf("run %s %s: %v", x.Status, x.keys(), out)
		}
		reqs, auth := llm.calls()
		if len(reqs) != 1 || auth[0] != "Bearer sk-fake-provider-key" || reqs[0]["model"] != "gpt-fake-mini" {
			t.Fatalf("provider saw %v with %q", reqs, auth)
		}
		rf, _ := reqs[0]["response_format"].(map[string]any)
		js, _ := rf["json_schema"].(map[string]any)
		if schema, _ := js["schema"].(map[string]any); rf["type"] != "json_schema" || schema["required"] == nil {
			t.Fatalf("response_format %v", rf)
		}

		bad := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"text": "off-schema please"}}), ended)
		step := bad.Steps[0]
		if bad.Status != "failed" || step.Status != "failed" || step.Error == nil || step.Error.Code != "OUTPUT_MISMATCH" ||
			!strings.Contains(step.Error.Message, `$.score must be integer, got string`) || !strings.Contains(step.Error.Message, `$.tier must be one of "hot", "warm", "cold"`) {
			t.Fatalf("off-schema run %s: %+v", bad.Status, step)
		}
		if reqs, _ = llm.calls(); len(reqs) != 3 {
			t.Fatalf("the provider was asked %d times, want 1 + 2 attempts", len(reqs))
		}
		raw := string(mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions/"+bad.ID, nil, 200).Body)
		if n := strings.Count(raw, `"OUTPUT_MISMATCH"`); n < 3 { // two attempts and the step
			t.Fatalf("attempts not logged (%d mentions): %s", n, raw)
		}
		for _, text := range []string{raw, ts.Stderr.String()} {
			if strings.Contains(text, "sk-fake-provider-key") {
				t.Fatal("the provider key appeared in an answer or a log line")
			}
		}

		// The same provider without an exception for its address.
		delete(settings, "TRAWL_ALLOW_PRIVATE_NETWORKS")
		guarded := startServer(t, serverEnv(t, engine, settings))
		gw := createWorkflow(t, guarded.Client, map[string]any{"name": "qualify", "workflow": json.RawMessage(agentFlow)})
		refused := waitExecution(t, guarded, guarded.Client, gw.ID, startTest(t, guarded.Client, gw.ID, map[string]any{}), ended)
		if e := refused.Steps[0].Error; refused.Status != "failed" || e == nil || e.Code != "ADDRESS_BLOCKED" || !strings.Contains(e.Message, "127.0.0.1") {
			t.Fatalf("a loopback provider was not refused: %s %+v", refused.Status, refused.Steps[0])
		}
		if reqs, _ = llm.calls(); len(reqs) != 3 {
			t.Fatalf("the refused call reached the provider (%d requests)", len(reqs))
		}
	})
}

package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/store"
)

// stepAttempts reads the attempts the execution log lists for each step.
func stepAttempts(t *testing.T, ts *testServer, workflowID, runID string) map[string][]attemptView {
	t.Helper()
	var x struct {
		Data struct {
			Steps []struct {
				Key      string        `json:"key"`
				Attempts []attemptView `json:"attempts"`
			} `json:"steps"`
		} `json:"data"`
	}
	raw := mustDo(t, ts.Client, http.MethodGet, "/v1/workflows/"+workflowID+"/executions/"+runID, nil, 200).Body
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	out := map[string][]attemptView{}
	for _, s := range x.Data.Steps {
		out[s.Key] = s.Attempts
	}
	return out
}

type attemptView struct {
	Attempt   int    `json:"attempt"`
	StartedAt string `json:"started_at"`
	EndedAt   string `json:"ended_at"`
	Error     *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// keyLog records the Idempotency-Key of each request a local server gets.
type keyLog struct {
	mu   sync.Mutex
	keys []string
}

func (k *keyLog) add(r *http.Request) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys = append(k.keys, r.Header.Get("Idempotency-Key"))
}

func (k *keyLog) get() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.keys...)
}

func oneKey(keys []string, n int) bool {
	if len(keys) != n || keys[0] == "" {
		return false
	}
	for _, k := range keys {
		if k != keys[0] {
			return false
		}
	}
	return true
}

// TestStepTimeoutsRetriesAndStrictValidation: timeout_ms ends a slow
// attempt with TIMEOUT; retry.max_attempts tries again with the same
// idempotency key and logs every attempt; strict data validation fails a
// step whose resolved inputs or (mocked) output mismatch the catalogue,
// every mismatch listed.
func TestStepTimeoutsRetriesAndStrictValidation(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		var slowKeys, busyKeys, strictKeys keyLog
		local, _ := listenCounting(t, "127.0.0.2:0", func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/slow":
				slowKeys.add(r)
				select { // answers only after the step has given up
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			case "/busy":
				busyKeys.add(r)
				http.Error(w, "busy", http.StatusServiceUnavailable)
			default:
				strictKeys.add(r)
			}
		})
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_ALLOW_PRIVATE_NETWORKS": "127.0.0.2/32"}))
		c := ts.Client
		flow := func(action map[string]any) map[string]any {
			action["id"], action["kind"] = "call", "http_request"
			return map[string]any{"actions": []any{action, map[string]any{"id": "after", "kind": "builtin:set", "inputs": map[string]any{"values": map[string]any{"ok": true}}}},
				"edges": []any{map[string]any{"from": "$source", "to": "call"}, map[string]any{"from": "call", "to": "after"}}}
		}

		t.Run("timeout_ms", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "slow", "workflow": flow(map[string]any{
				"timeout_ms": 200, "retry": map[string]any{"max_attempts": 2}, "inputs": map[string]any{"url": local.URL + "/slow"}})})
			x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{}), ended)
			step := x.Steps[0]
			if x.Status != "failed" || x.keys() != "call:failed after:skipped" || step.Error == nil || step.Error.Code != "TIMEOUT" {
				t.Fatalf("%s %s %+v", x.Status, x.keys(), step)
			}
			attempts := stepAttempts(t, ts, w.ID, x.ID)["call"]
			if len(attempts) != 2 || attempts[0].Attempt != 1 || attempts[1].Attempt != 2 {
				t.Fatalf("attempts %+v", attempts)
			}
			for _, a := range attempts {
				if a.Error == nil || a.Error.Code != "TIMEOUT" || a.StartedAt == "" || a.EndedAt == "" {
					t.Fatalf("attempt %+v", a)
				}
			}
			if keys := slowKeys.get(); !oneKey(keys, 2) {
				t.Fatalf("the slow server saw keys %q", keys)
			}
		})

		t.Run("retries", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "busy", "workflow": flow(map[string]any{
				"retry": map[string]any{"max_attempts": 3, "backoff_ms": 10}, "inputs": map[string]any{"url": local.URL + "/busy"}})})
			x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{}), ended)
			if step := x.Steps[0]; x.Status != "failed" || step.Error == nil || step.Error.Code != "UPSTREAM_ERROR" || !strings.Contains(step.Error.Message, "HTTP 503") {
				t.Fatalf("%s %+v", x.Status, step)
			}
			attempts := stepAttempts(t, ts, w.ID, x.ID)["call"]
			if len(attempts) != 3 {
				t.Fatalf("attempts %+v", attempts)
			}
			for i, a := range attempts {
				if a.Attempt != i+1 || a.Error == nil || a.Error.Code != "UPSTREAM_ERROR" {
					t.Fatalf("attempt %d: %+v", i+1, a)
				}
			}
			if keys := busyKeys.get(); !oneKey(keys, 3) {
				t.Fatalf("the busy server saw keys %q", keys)
			}
		})

		t.Run("strict data validation", func(t *testing.T) {
			w := createWorkflow(t, c, map[string]any{"name": "typed", "workflow": flow(map[string]any{"inputs": map[string]any{
				"method": "{{ 'FETCH' }}", "url": "{{ trigger.likes }}", "headers": "{{ trigger.text }}"}})})
			x := waitExecution(t, ts, c, w.ID, startTest(t, c, w.ID, map[string]any{"overrides": map[string]any{"likes": 7, "text": "hi"}}), ended)
			step := x.Steps[0]
			want := "method must be one of GET, POST, PUT, PATCH, DELETE, HEAD; url must be a string; headers must be an object"
			if x.Status != "failed" || step.Error == nil || step.Error.Code != "INVALID_INPUT" || step.Error.Message != want {
				t.Fatalf("%s %+v, want INVALID_INPUT %q", x.Status, step, want)
			}
			if step.Input["url"] != float64(7) || step.Input["method"] != "FETCH" {
				t.Fatalf("the log does not show the resolved input: %v", step.Input)
			}

			good := createWorkflow(t, c, map[string]any{"name": "mocked", "workflow": flow(map[string]any{"inputs": map[string]any{"url": local.URL + "/strict"}})})
			mock := func(output map[string]any, strict bool) executionView {
				return waitExecution(t, ts, c, good.ID, startTest(t, c, good.ID, map[string]any{"test_config": map[string]any{
					"strict_data_validation": strict, "action_mocks": map[string]any{"call": map[string]any{"enabled": true, "output": output}}}}), ended)
			}
			off := map[string]any{"status": "200", "headers": []any{"x"}}
			bad := mock(off, true)
			step = bad.Steps[0]
			want = `the mock's output does not match the catalogue: $ lacks required member "body"; $.headers must be object, got array; $.status must be integer, got string`
			if bad.Status != "failed" || bad.keys() != "call:failed after:skipped" || step.Error == nil || step.Error.Code != "OUTPUT_MISMATCH" || step.Error.Message != want {
				t.Fatalf("%s %s %+v, want OUTPUT_MISMATCH %q", bad.Status, bad.keys(), step, want)
			}
			if lax := mock(off, false); lax.Status != "completed" || lax.keys() != "call:completed after:completed" {
				t.Fatalf("without strict validation: %s %s", lax.Status, lax.keys())
			}
			fits := mock(map[string]any{"status": 201, "headers": map[string]any{}, "body": map[string]any{"id": "x"}}, true)
			if fits.Status != "completed" || fits.Steps[0].Output.(map[string]any)["status"] != float64(201) {
				t.Fatalf("a mock that fits: %s %+v", fits.Status, fits.Steps)
			}
			if keys := strictKeys.get(); len(keys) != 0 {
				t.Fatalf("the server was called %d times; every step was refused or mocked", len(keys))
			}
		})
	})
}

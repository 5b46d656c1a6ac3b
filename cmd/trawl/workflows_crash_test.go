package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/store"
)

// crashCalls records what a workflow's http_request steps send: per
// (execution, step), each Idempotency-Key and how often it came.
type crashCalls struct {
	mu    sync.Mutex
	calls map[[2]string]map[string]int
	total int
}

func newCrashRecorder(t *testing.T) (*httptest.Server, *crashCalls) {
	rec := &crashCalls{calls: map[[2]string]map[string]int{}}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Execution, Step string }
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil || body.Execution == "" {
			http.Error(w, "want {execution, step}", http.StatusBadRequest)
			return
		}
		rec.mu.Lock()
		k := [2]string{body.Execution, body.Step}
		if rec.calls[k] == nil {
			rec.calls[k] = map[string]int{}
		}
		rec.calls[k][r.Header.Get("Idempotency-Key")]++
		rec.total++
		rec.mu.Unlock()
		if body.Step == "first" {
			// A slow upstream: a kill often lands while a call is out.
			time.Sleep(20 * time.Millisecond)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	t.Cleanup(s.Close)
	return s, rec
}

// crashWebhookFlow calls the recorder twice around a branch, so an
// execution has effects before and after steps without any.
func crashWebhookFlow(recorder string) string {
	call := func(id string) string {
		return `{"id":"` + id + `","kind":"http_request","retry":{"max_attempts":3,"backoff_ms":50},"inputs":{"method":"POST","url":"` + recorder + `/` + id + `",
			"body":{"execution":"{{ execution.id }}","step":"` + id + `","n":"{{ trigger.n }}"}}}`
	}
	return `{"trigger":{"kind":"workflows/webhook"},"actions":[` + call("first") + `,
		{"id":"check","kind":"builtin:if","inputs":{"condition":"{{ steps.first.output.status == 200 }}"}},` + call("second") + `,
		{"id":"done","kind":"builtin:set","inputs":{"values":{"n":"{{ trigger.n }}"}}},
		{"id":"odd","kind":"builtin:exit","inputs":{"reason":"the recorder did not answer 200"}}],
		"edges":[{"from":"$source","to":"first"},{"from":"first","to":"check"},{"from":"check","to":"second","conditional":{"type":"if"}},{"from":"check","to":"odd","conditional":{"type":"else"}},{"from":"second","to":"done"}]}`
}

// TestKill9DuringWebhookExecutions is issue 12's crash test: 1,000
// webhook POSTs (two rounds of 500) fire a workflow whose http_request
// steps reach a local recorder; the process is killed with SIGKILL during
// each round and restarted on the same database (on PostgreSQL a second
// process runs all along, crashCluster). Every execution answered 202
// ends, within 15 s of the last restart on SQLite and 45 s of the last
// kill on PostgreSQL (issue 33), and no step's action was called with two
// different idempotency keys (the same key twice is at-least-once
// delivery, which the key lets the receiver recognise).
func TestKill9DuringWebhookExecutions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it; skipped with -short")
	}
	bin := crashBuildTrawl(t)
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		start := time.Now()
		recorder, rec := newCrashRecorder(t)
		cl := newCrashCluster(t, bin, engine, map[string]string{"TRAWL_ALLOW_PRIVATE_NETWORKS": "127.0.0.1/32"})
		db := crashOpenDB(t, cl.env["TRAWL_DATABASE_URL"])
		p := cl.victim()
		r, err := p.Client.Do(context.Background(), http.MethodPost, "/v1/workflows", map[string]any{
			"name": "crash hook", "workflow": json.RawMessage(crashWebhookFlow(recorder.URL)), "status": "PUBLISHED", "enabled": true})
		if err != nil || r.Status != http.StatusCreated {
			t.Fatalf("create workflow: %v %s", err, r.Body)
		}
		var w workflowView
		if err := r.Data(&w); err != nil || w.WebhookURL == nil {
			t.Fatalf("workflow %s: %v", r.Body, err)
		}

		running := func() int {
			var n int
			_ = db.QueryRow(`SELECT COUNT(*) FROM workflow_executions WHERE status = 'running'`).Scan(&n)
			return n
		}
		// Round 1: killed in the middle of the POSTs, while the first
		// executions run. Round 2, right after the restart (recovered
		// executions still running): killed once a few hundred more
		// steps have called out, whether or not the POSTs are done.
		const workers = 32
		accepted, unanswered := crashFireHooks(t, *w.WebhookURL, 0, 500, workers, rec,
			func(accepted, _ int) bool { return accepted >= 250 }, p.kill)
		t.Logf("%s: round 1 killed with %d of 500 POSTs accepted (%d unanswered), %d executions running, %d recorder calls",
			engine, len(accepted), unanswered, running(), rec.count())

		p = cl.victim()
		before := rec.count()
		hook := p.URL + (*w.WebhookURL)[strings.Index(*w.WebhookURL, "/v1/hooks/"):] // the restart listens on another port
		more, unanswered := crashFireHooks(t, hook, 500, 1000, workers, rec,
			func(_, calls int) bool { return calls >= before+400 }, p.kill)
		accepted = append(accepted, more...)
		sort.Strings(accepted)
		t.Logf("%s: round 2 killed with %d of 500 POSTs accepted (%d unanswered), %d executions running, %d recorder calls",
			engine, len(more), unanswered, running(), rec.count())
		p, deadline := cl.recover()
		crashWaitNoneRunning(t, p, db, deadline)
		cl.logRecovered("no execution was running")

		// Every accepted execution ended; steps ran to the end.
		rows, err := db.Query(`SELECT id, status, COALESCE(error, '') FROM workflow_executions WHERE workflow_id = $1`, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		status, errs := map[string]string{}, map[string]string{}
		for rows.Next() {
			var id, st, msg string
			if err := rows.Scan(&id, &st, &msg); err != nil {
				t.Fatal(err)
			}
			status[id], errs[id] = st, msg
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		var lost, stuck, failed []string
		for _, id := range accepted {
			switch status[id] {
			case "":
				lost = append(lost, id)
			case "running":
				stuck = append(stuck, id)
			case "failed":
				failed = append(failed, id+": "+errs[id])
			}
		}
		if len(lost) > 0 || len(stuck) > 0 {
			t.Errorf("of %d accepted executions, %d are missing (%v) and %d still running (%v)", len(accepted), len(lost), first(lost, 5), len(stuck), first(stuck, 5))
		}
		// The recorder always answers 200: an execution that failed
		// failed because of the crash, which must not happen.
		if len(failed) > 0 {
			t.Errorf("%d accepted executions failed: %v", len(failed), first(failed, 5))
		}

		// At least once per step, never with two keys.
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var twoKeys, missing []string
		repeated := 0
		for _, id := range accepted {
			for _, step := range []string{"first", "second"} {
				keys := rec.calls[[2]string{id, step}]
				if status[id] == "completed" && len(keys) == 0 {
					missing = append(missing, id+"/"+step)
				}
				if len(keys) > 1 {
					twoKeys = append(twoKeys, fmt.Sprintf("%s/%s: %v", id, step, keys))
				}
				for k, n := range keys {
					if want := id + ":" + step; k != want {
						t.Errorf("%s/%s sent key %q, want %q", id, step, k, want)
					}
					if n > 1 {
						repeated++
					}
				}
			}
		}
		if len(twoKeys) > 0 {
			t.Errorf("%d steps were called with different idempotency keys: %v", len(twoKeys), first(twoKeys, 5))
		}
		if len(missing) > 0 {
			t.Errorf("%d steps of completed executions never reached the recorder: %v", len(missing), first(missing, 5))
		}
		t.Logf("%s: %d executions in the database, %d accepted; %d steps called again with their key after the kill; %d recorder calls; %s in all",
			engine, len(status), len(accepted), repeated, rec.total, time.Since(start).Round(100*time.Millisecond))
	})
}

func (c *crashCalls) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

func first(xs []string, n int) []string { return xs[:min(n, len(xs))] }

// crashFireHooks sends the webhook POSTs numbered from..to-1 from workers
// goroutines and kills the process as soon as killWhen (given how many
// POSTs were accepted and how many calls the recorder has seen) holds,
// whether or not every POST was answered by then. It returns the
// accepted execution ids and how many POSTs got no answer.
func crashFireHooks(t *testing.T, hook string, from, to, workers int, rec *crashCalls, killWhen func(accepted, calls int) bool, kill func()) ([]string, int) {
	t.Helper()
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	var (
		mu         sync.Mutex
		accepted   []string
		unanswered int
		wg         sync.WaitGroup
	)
	acceptedCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(accepted)
	}
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		deadline := time.Now().Add(60 * time.Second)
		for !killWhen(acceptedCount(), rec.count()) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond) // watching another process's progress
		}
		kill()
	}()
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range next {
				resp, err := hc.Post(hook, "application/json", bytes.NewReader([]byte(fmt.Sprintf(`{"n": %d}`, n))))
				if err != nil {
					mu.Lock()
					unanswered++
					mu.Unlock()
					continue
				}
				var out struct {
					Data struct {
						ExecutionID string `json:"execution_id"`
					} `json:"data"`
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				_ = json.Unmarshal(raw, &out)
				mu.Lock()
				if resp.StatusCode == http.StatusAccepted && out.Data.ExecutionID != "" {
					accepted = append(accepted, out.Data.ExecutionID)
				} else {
					t.Errorf("POST %d: %d %s", n, resp.StatusCode, raw)
				}
				mu.Unlock()
			}
		}()
	}
	for n := from; n < to; n++ {
		next <- n
	}
	close(next)
	wg.Wait()
	<-killed
	return accepted, unanswered
}

// crashWaitNoneRunning polls until no execution is running, and fails at
// deadline: those the killed process held are taken over at once.
func crashWaitNoneRunning(t *testing.T, p *crashProcess, db *sql.DB, deadline time.Time) {
	t.Helper()
	for {
		var running int
		if err := db.QueryRow(`SELECT COUNT(*) FROM workflow_executions WHERE status = 'running'`).Scan(&running); err != nil {
			t.Fatalf("count running executions: %v", err)
		}
		if running == 0 {
			return
		}
		if time.Now().After(deadline) {
			logs := p.stderr.String()
			t.Fatalf("by the recovery deadline %d executions are still running; server log tail:\n%s", running, logs[max(0, len(logs)-4000):])
		}
		time.Sleep(200 * time.Millisecond) // polling another process's progress
	}
}

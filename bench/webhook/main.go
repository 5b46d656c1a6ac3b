// Command webhook measures webhook-triggered executions end to end: a
// workflow webhook → builtin:if → builtin:set (the n8n peer's flow; with
// -flow hubspot, builtin:if → hubspot_upsert_contact against the built-in
// sandbox's HubSpot, one new contact per call), called with ?wait=true so
// that each answer comes after the execution and its steps are stored. It
// starts `trawl serve` in-process on a fresh SQLite database (or
// -database-url), drives it from -c concurrent clients for -d, and prints
// executions per second and latency percentiles. With -serve it only sets
// up the workflow, prints its hook URL and serves until interrupted, so
// that a load generator in another process can drive it:
//
//	go run ./bench/webhook -c 16 -d 20s
//	go run ./bench/webhook -c 16 -d 20s -flow hubspot
//	go run ./bench/webhook -serve   # then: hey -z 20s -c 16 -m POST -D body.json "<url>"
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/trawlhq/trawl/internal/app"
	"github.com/trawlhq/trawl/internal/config"
)

func main() {
	var (
		conc     = flag.Int("c", 16, "concurrent clients")
		dur      = flag.Duration("d", 20*time.Second, "how long to send requests")
		database = flag.String("database-url", "", "database (default: SQLite in a temporary folder)")
		cpuprof  = flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
		serve    = flag.Bool("serve", false, "print the hook URL and serve until interrupted; send no load")
		flow     = flag.String("flow", "n8n", "the workflow: n8n (if → set, the peer's) or hubspot (if → HubSpot contact upsert)")
	)
	flag.Parse()
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "webhook:", err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "webhook:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *flow != "n8n" && *flow != "hubspot" {
		fmt.Fprintln(os.Stderr, "webhook: -flow is n8n or hubspot")
		os.Exit(2)
	}
	if err := run(*conc, *dur, *database, *serve, *flow); err != nil {
		fmt.Fprintln(os.Stderr, "webhook:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(conc int, dur time.Duration, database string, serveOnly bool, flow string) error {
	dir, err := os.MkdirTemp("", "trawl-bench-webhook")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg, err := config.Default()
	if err != nil {
		return err
	}
	cfg.Addr, cfg.DataDir, cfg.LogFormat, cfg.LogLevel = addr, dir, "json", "error"
	cfg.DatabaseURL = cmp.Or(database, "sqlite://"+filepath.Join(dir, "trawl.db"))
	cfg.MicroblogHosts = []string{"x.com"}
	cfg.RateLimitStarter, cfg.RateLimitEnterprise, cfg.RateLimitCustom = 1<<30, 1<<30, 1<<30
	cfg.ShutdownTimeout = 10 * time.Second
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- app.Serve(ctx, cfg, app.Options{Now: time.Now, Log: slog.New(slog.NewJSONHandler(io.Discard, nil)), Stdout: io.Discard})
	}()
	base := "http://" + addr
	var key []byte
	for i := 0; ; i++ {
		if key, err = os.ReadFile(filepath.Join(dir, "bootstrap-key")); err == nil {
			if _, err = http.Get(base + "/healthz"); err == nil {
				break
			}
		}
		if i > 300 {
			return fmt.Errorf("server did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	hook, err := createWorkflow(base, strings.TrimSpace(string(key)), flow)
	if err != nil {
		return err
	}
	if serveOnly {
		fmt.Println(hook + "?wait=true")
		<-ctx.Done()
		return ignoreCanceled(<-served)
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  int
		wg        sync.WaitGroup
	)
	deadline := time.Now().Add(dur)
	var sent atomic.Int64
	for range conc {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				body := fmt.Appendf(nil, `{"likes": 42, "text": "hello", "author": "jane", "email": "lead-%d@example.com"}`, sent.Add(1))
				start := time.Now()
				resp, err := client.Post(hook+"?wait=true", "application/json", bytes.NewReader(body))
				ok := err == nil && resp.StatusCode == http.StatusOK
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				mu.Lock()
				if ok {
					latencies = append(latencies, time.Since(start))
				} else {
					failures++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	cancel()
	if err := ignoreCanceled(<-served); err != nil {
		return err
	}
	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(float64(len(latencies))*p))]
	}
	engine := "sqlite"
	if strings.HasPrefix(cfg.DatabaseURL, "postgres") {
		engine = "postgres"
	}
	fmt.Printf("flow %s, engine %s, %d clients, %s: %d executions (%d failed), %.0f executions/s, p50 %.1f ms, p99 %.1f ms\n",
		flow, engine, conc, dur, len(latencies), failures, float64(len(latencies))/dur.Seconds(),
		float64(pct(0.50).Microseconds())/1000, float64(pct(0.99).Microseconds())/1000)
	return nil
}

func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func createWorkflow(base, key, flow string) (string, error) {
	// The flow of the n8n peer (../shared/peers/n8n/wf.json): if likes > 10,
	// set a summary (else end, as n8n's empty false branch does); answered
	// when the last step ends.
	def := n8nFlow
	if flow == "hubspot" {
		if _, err := call(base, key, "/v1/integrations/hubspot", `{"credentials": {"access_token": "pat-na1-bench"}}`); err != nil {
			return "", err
		}
		def = hubSpotFlow
	}
	raw, err := call(base, key, "/v1/workflows", def)
	if err != nil {
		return "", err
	}
	var out struct {
		Data struct {
			WebhookURL string `json:"webhook_url"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Data.WebhookURL == "" {
		return "", fmt.Errorf("create workflow: %s", raw)
	}
	return out.Data.WebhookURL, nil
}

const (
	n8nFlow = `{"name": "bench", "status": "PUBLISHED", "enabled": true, "workflow": {
		"trigger": {"kind": "workflows/webhook"},
		"actions": [{"id": "popular", "kind": "builtin:if", "inputs": {"condition": "{{ trigger.likes > 10 }}"}},
		            {"id": "summary", "kind": "builtin:set", "inputs": {"values": {"summary": "{{ trigger.text }} by {{ trigger.author }}"}}},
		            {"id": "quiet", "kind": "builtin:exit", "inputs": {"reason": "not popular"}}],
		"edges": [{"from": "$source", "to": "popular"}, {"from": "popular", "to": "summary", "conditional": {"type": "if"}},
		          {"from": "popular", "to": "quiet", "conditional": {"type": "else"}}]}}`
	// Webhook → if → HubSpot: a lead worth it becomes a contact.
	hubSpotFlow = `{"name": "bench-hubspot", "status": "PUBLISHED", "enabled": true, "workflow": {
		"trigger": {"kind": "workflows/webhook"},
		"actions": [{"id": "popular", "kind": "builtin:if", "inputs": {"condition": "{{ trigger.likes > 10 }}"}},
		            {"id": "crm", "kind": "hubspot_upsert_contact", "inputs": {"email": "{{ trigger.email }}", "firstname": "{{ trigger.author }}"}},
		            {"id": "quiet", "kind": "builtin:exit", "inputs": {"reason": "not popular"}}],
		"edges": [{"from": "$source", "to": "popular"}, {"from": "popular", "to": "crm", "conditional": {"type": "if"}},
		          {"from": "popular", "to": "quiet", "conditional": {"type": "else"}}]}}`
)

// call POSTs body to path with the key and returns a 2xx answer's body.
func call(base, key, path, body string) ([]byte, error) {
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	req.Header.Set("x-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("POST %s: %d %s", path, resp.StatusCode, raw)
	}
	return raw, nil
}

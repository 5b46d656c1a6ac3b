package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// output is a writer the test can wait on.
type output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newOutput() *output { return &output{changed: make(chan struct{}, 1)} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.buf.Write(p)
	select {
	case o.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor returns the first match of re in the output, waiting for it to be
// written; done reports an early end of the process.
func (o *output) waitFor(t *testing.T, re *regexp.Regexp, done <-chan error) []string {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		if m := re.FindStringSubmatch(o.String()); m != nil {
			return m
		}
		select {
		case <-o.changed:
		case err := <-done:
			t.Fatalf("server exited before %q appeared: %v\noutput:\n%s", re, err, o.String())
		case <-deadline:
			t.Fatalf("timed out waiting for %q; output:\n%s", re, o.String())
		}
	}
}

// testServer is a real trawl process-in-a-goroutine, started through run.
type testServer struct {
	URL     string
	Key     string
	DataDir string
	Stdout  *output
	Stderr  *output
	Client  *client.Client
	// HTTP is the client ts.Client uses: every answer it reads from the
	// server is checked against the server's OpenAPI document.
	HTTP *http.Client
	env  map[string]string
	stop func()
}

var listeningRE = regexp.MustCompile(`listening on (http://\S+)`)

// serverEnv returns settings for a fresh server on engine, with overrides.
func serverEnv(t *testing.T, engine store.Dialect, overrides map[string]string) map[string]string {
	dir := t.TempDir()
	env := map[string]string{
		"TRAWL_ADDR":          "127.0.0.1:0",
		"TRAWL_DATA_DIR":      dir,
		"TRAWL_DATABASE_URL":  storetest.DatabaseURL(t, engine),
		"TRAWL_LOG_FORMAT":    "json",
		"TRAWL_TICK_INTERVAL": "1h",
	}
	if engine == store.SQLite {
		env["TRAWL_DATABASE_URL"] = "sqlite://" + filepath.Join(dir, "trawl.db")
	}
	for k, v := range overrides {
		env[k] = v
	}
	return env
}

// startServer runs `trawl serve` with env and waits until it listens.
func startServer(t *testing.T, env map[string]string) *testServer {
	t.Helper()
	return startServerAt(t, env, time.Now)
}

// startServerAt is startServer with the server's clock (and its sandbox's)
// given by now.
func startServerAt(t *testing.T, env map[string]string, now func() time.Time) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{DataDir: env["TRAWL_DATA_DIR"], Stdout: newOutput(), Stderr: newOutput(), env: env}
	done := make(chan error, 1)
	go func() { done <- execute(ctx, []string{"serve"}, ts.getenv, ts.Stdout, ts.Stderr, now) }()
	var once sync.Once
	ts.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve returned %v", err)
				}
			case <-time.After(60 * time.Second):
				t.Errorf("serve did not stop")
			}
		})
	}
	t.Cleanup(ts.stop)
	ts.URL = ts.Stdout.waitFor(t, listeningRE, done)[1]
	key, err := os.ReadFile(filepath.Join(ts.DataDir, "bootstrap-key"))
	if err != nil {
		t.Fatalf("read bootstrap key: %v", err)
	}
	ts.Key = strings.TrimSpace(string(key))
	ts.Client = client.New(ts.URL, ts.Key)
	ts.HTTP = contractClient(t, ts.URL)
	ts.Client.HTTP = ts.HTTP
	return ts
}

func (ts *testServer) getenv(k string) string { return ts.env[k] }

// cli runs a trawl command with the server's settings and returns its stdout.
func (ts *testServer) cli(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCLI(t, ts.getenv, args...)
}

func runCLI(t *testing.T, getenv func(string) string, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, getenv, &stdout, &stderr)
	return stdout.String() + stderr.String(), err
}

// forEachEngine runs body once per engine under test.
func forEachEngine(t *testing.T, body func(t *testing.T, engine store.Dialect)) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) { body(t, engine) })
	}
}

// The pronet providers the end-to-end tests run on: the contract and each
// vendor adapter, every one against the built-in sandbox of its protocol.
const (
	providerContract   = "sandbox"
	providerHarvestAPI = "harvestapi"
	providerApify      = "apify"
)

// forEachEngineAndProvider runs body on the contract provider on every engine
// (as forEachEngine), then on each vendor provider on SQLite only: which
// provider reads pronet data is independent of the database it is stored in,
// so one engine covers the adapters and keeps the run's time bounded.
func forEachEngineAndProvider(t *testing.T, body func(t *testing.T, engine store.Dialect, provider string)) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		t.Run(providerContract, func(t *testing.T) { body(t, engine, providerContract) })
		if engine != store.SQLite {
			return
		}
		for _, provider := range []string{providerHarvestAPI, providerApify} {
			t.Run(provider, func(t *testing.T) { body(t, engine, provider) })
		}
	})
}

// forEachProvider runs body once per pronet provider, for tests that run on
// SQLite only.
func forEachProvider(t *testing.T, body func(t *testing.T, provider string)) {
	for _, provider := range []string{providerContract, providerHarvestAPI, providerApify} {
		t.Run(provider, func(t *testing.T) { body(t, provider) })
	}
}

// providerEnv is serverEnv with TRAWL_PRONET_PROVIDER set to provider.
func providerEnv(t *testing.T, engine store.Dialect, provider string, overrides map[string]string) map[string]string {
	env := serverEnv(t, engine, overrides)
	env["TRAWL_PRONET_PROVIDER"] = provider
	// The sandbox is on loopback: the vendors' published rates (HarvestAPI's 5 requests a
	// second) would only slow the tests; the limiter has its own (internal/source/pronet).
	if _, set := overrides["TRAWL_PRONET_RATE_LIMIT"]; !set && provider != "sandbox" {
		env["TRAWL_PRONET_RATE_LIMIT"] = "100000"
		env["TRAWL_PRONET_CONCURRENCY"] = "64"
	}
	return env
}

package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/store"
)

// readmeBlockRE is a shell block the README marks as one the tests run.
var readmeBlockRE = regexp.MustCompile("(?s)<!-- readme-test -->\n```sh\n(.*?)\n```")

// TestReadmeWorkflowExamples runs the README's marked examples (a worked
// workflow per trigger), as written, in one bash session against a fresh
// server: a request that fails fails the test, so the README cannot drift
// from the API. It needs bash, curl and jq, as the README says.
func TestReadmeWorkflowExamples(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README's examples need %s, which is not installed", tool)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range readmeBlockRE.FindAllStringSubmatch(string(readme), -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) != 4 {
		t.Fatalf("found %d marked examples in the README, want 4 (one per trigger)", len(blocks))
	}
	ts := startServer(t, serverEnv(t, store.SQLite, map[string]string{"TRAWL_RATE_LIMIT_CUSTOM": "100000"}))
	// curl fails on an error answer, and so does the script.
	script := "set -euo pipefail\ncurl() { command curl --fail-with-body \"$@\"; }\n" +
		strings.ReplaceAll(strings.Join(blocks, "\n"), "localhost:8080", strings.TrimPrefix(ts.URL, "http://"))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Env = append(os.Environ(), "KEY="+ts.Key)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's examples failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		`"webhook_secret": "whsec_`,          // webhook: the secret in the creation's answer
		`"tier":"hot"`,                       // webhook: ?wait=true answers with the if branch's output
		`"execution_id"`,                     // webhook: without wait, 202 with the execution
		`"step_id": "tell"`,                  // new post: the if branch taken, the Slack step mocked
		`"ok": true`,                         //
		`"step_id": "note"`,                  // engagement: the filter passed
		`"for": "`,                           // scheduled: the occurrence in the payload
		`"pagination":{"page":1,"page_size"`, // executions?limit=5
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the README's examples printed no %s:\n%s", want, out)
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
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
	if len(blocks) != 5 {
		t.Fatalf("found %d marked examples in the README, want 5 (one per trigger, and a topic's leads reaching the CRM)", len(blocks))
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
		`"would_run":`,                       // CRM: the backfill's dry run
		`"created":true`,                     // CRM: a lead became a HubSpot contact
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the README's examples printed no %s:\n%s", want, out)
		}
	}
}

// readmeCreateRE is the body of a README example's POST /v1/workflows.
var readmeCreateRE = regexp.MustCompile(`(?s)/v1/workflows -d '(\{"name".*?"workflow".*?)'(?: \| jq|\))`)

// TestReadmeExamplesAreTheEndpoints: each workflow the README's worked
// examples create is, name and definition, an example of GET
// /v1/workflows/examples (internal/workflow/examples.json), so the two
// cannot drift apart; the README's shell variables stand where the
// examples have placeholders.
func TestReadmeExamplesAreTheEndpoints(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../internal/workflow/examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var examples []struct {
		Name     string `json:"name"`
		Workflow any    `json:"workflow"`
	}
	if err := json.Unmarshal(raw, &examples); err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer(`'"$TOPIC_ID"'`, "TOPIC_ID", `'"$SEARCH_ID"'`, "SEARCH_ID")
	found := 0
	for _, block := range readmeBlockRE.FindAllStringSubmatch(string(readme), -1) {
		for _, m := range readmeCreateRE.FindAllStringSubmatch(block[1], -1) {
			if !strings.Contains(m[1], `"workflow":`) {
				continue
			}
			var body struct {
				Name     string `json:"name"`
				Workflow any    `json:"workflow"`
			}
			if err := json.Unmarshal([]byte(vars.Replace(m[1])), &body); err != nil {
				t.Fatalf("a README workflow does not parse: %v\n%s", err, m[1])
			}
			found++
			i := slices.IndexFunc(examples, func(e struct {
				Name     string `json:"name"`
				Workflow any    `json:"workflow"`
			}) bool {
				return e.Name == body.Name
			})
			if i < 0 {
				t.Errorf("the README's workflow %q is not an example of GET /v1/workflows/examples", body.Name)
			} else if !reflect.DeepEqual(examples[i].Workflow, body.Workflow) {
				t.Errorf("the README's workflow %q differs from the example:\n%v\n%v", body.Name, body.Workflow, examples[i].Workflow)
			}
		}
	}
	if found != 5 {
		t.Fatalf("found %d workflows in the README's examples, want 5", found)
	}
}

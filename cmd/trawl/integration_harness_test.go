package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// sandboxCall is one request a service of the built-in sandbox answered,
// from its request log (the server must run with TRAWL_LOG_LEVEL=debug).
type sandboxCall struct {
	Service string `json:"service"`
	Method  string `json:"method"`
	Path    string `json:"path"`
	Query   string `json:"query"`
	Body    string `json:"body"`
}

// integrationCalls returns, in order, the requests the sandbox's service
// (a connection type: hubspot) answered so far.
func (ts *testServer) integrationCalls(service string) []sandboxCall {
	var out []sandboxCall
	for _, line := range strings.Split(ts.Stderr.String(), "\n") {
		var l struct {
			Msg string `json:"msg"`
			sandboxCall
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "sandbox integration request" && l.Service == service {
			out = append(out, l.sandboxCall)
		}
	}
	return out
}

var sandboxURLRE = regexp.MustCompile(`"msg":"sandbox listening"[^\n]*"url":"(http://[^"]+)"`)

// sandboxURL is the base URL of the server's built-in sandbox, where a test
// reads a service's state through the service's own API as a user would
// (<sandbox>/hubspot/crm/v3/…).
func (ts *testServer) sandboxURL(t *testing.T) string {
	t.Helper()
	m := sandboxURLRE.FindStringSubmatch(ts.Stderr.String() + ts.Stdout.String())
	if m == nil {
		t.Fatal("the server's log does not say where its sandbox listens")
	}
	return m[1]
}

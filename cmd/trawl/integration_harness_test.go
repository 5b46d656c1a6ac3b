package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
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

// sandboxDo calls a service of a sandbox as its user would, at url with
// the headers given, and decodes the JSON answer into out (when not nil);
// it returns the status.
func sandboxDo(t *testing.T, method, url string, header map[string]string, body, out any) int {
	t.Helper()
	var rd io.Reader = http.NoBody
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %d, %v", method, url, resp.StatusCode, err)
		}
	}
	return resp.StatusCode
}

// sandboxAPI is sandboxDo at path of the server's own sandbox.
func sandboxAPI(t *testing.T, ts *testServer, method, path string, header map[string]string, body, out any) int {
	t.Helper()
	return sandboxDo(t, method, ts.sandboxURL(t)+path, header, body, out)
}

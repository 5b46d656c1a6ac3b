package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi/datamodel"
)

// contractDocs holds one validator per OpenAPI document the suite's servers
// serve, keyed by the document's bytes with the server's own URL taken out:
// every server of a configuration then shares one parse, which keeps the
// suite fast (building a validator compiles every schema of the document).
var contractDocs = struct {
	mu   sync.Mutex
	byID map[[32]byte]*contractDoc
}{byID: map[[32]byte]*contractDoc{}}

type contractDoc struct {
	once sync.Once
	v    validator.Validator
	err  error
}

// contractValidator returns the validator of the document doc, served by the
// server at serverURL.
func contractValidator(doc []byte, serverURL string) (validator.Validator, error) {
	id := sha256.Sum256(bytes.ReplaceAll(doc, []byte(serverURL), nil))
	contractDocs.mu.Lock()
	d := contractDocs.byID[id]
	if d == nil {
		d = &contractDoc{}
		contractDocs.byID[id] = d
	}
	contractDocs.mu.Unlock()
	d.once.Do(func() {
		// Comment.replies is an array of Comment: a recursion that ends
		// (with an empty array), which libopenapi calls infinite unless
		// told to let recursions through arrays (or type lists such as
		// [array, null]) be.
		parsed, err := libopenapi.NewDocumentWithConfiguration(doc, &datamodel.DocumentConfiguration{
			IgnoreArrayCircularReferences: true, IgnorePolymorphicCircularReferences: true,
		})
		if err != nil {
			d.err = fmt.Errorf("parse the OpenAPI document: %w", err)
			return
		}
		v, errs := validator.NewValidator(parsed)
		if len(errs) > 0 {
			d.err = fmt.Errorf("build a validator of the OpenAPI document: %v", errs)
			return
		}
		d.v = v
	})
	return d.v, d.err
}

// contractTransport checks every answer of the server at serverURL against
// the OpenAPI document that server serves at /openapi.json: a status, a
// content type or a body the document does not describe fails the test.
// Requests are not validated: the suite sends bad ones on purpose.
type contractTransport struct {
	t         errorReporter
	base      http.RoundTripper
	serverURL string

	once       sync.Once
	reportOnce sync.Once
	mu         sync.Mutex
	seen       map[string]bool
	v          validator.Validator
	err        error
}

// errorReporter is the part of testing.TB the transport reports through.
type errorReporter interface {
	Errorf(format string, args ...any)
}

func newContractTransport(t errorReporter, serverURL string, base http.RoundTripper) *contractTransport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &contractTransport{t: t, base: base, serverURL: strings.TrimRight(serverURL, "/"), seen: map[string]bool{}}
}

// contractClient is an HTTP client whose answers from the server at
// serverURL are checked against its document.
func contractClient(t testing.TB, serverURL string) *http.Client {
	return &http.Client{Transport: newContractTransport(t, serverURL, nil)}
}

func (c *contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	// A HEAD answer has no body to check (the suite sends none).
	if err != nil || req.Method == http.MethodHead || !strings.HasPrefix(req.URL.String(), c.serverURL+"/") {
		return resp, err
	}
	body, readErr := io.ReadAll(resp.Body)
	resp.Body.Close()
	if readErr != nil {
		// A body cut short (a test that hangs up, a server that dies) is
		// the test's business: hand it on as it came.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{readErr}))
		return resp, nil
	}
	c.check(req, resp, body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// check reports what in resp the document does not describe.
func (c *contractTransport) check(req *http.Request, resp *http.Response, body []byte) {
	v := c.validator()
	if v == nil {
		return
	}
	fail := func(msg string) {
		c.t.Errorf("contract: %s %s answered %d (%s) outside the OpenAPI document: %s\nbody: %s",
			req.Method, req.URL.RequestURI(), resp.StatusCode, resp.Header.Get("Content-Type"), msg, clip(body))
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	ok, errs := v.ValidateHttpResponse(req, resp)
	if ok {
		return
	}
	if routeMissing(errs) {
		// No route: the catch-all answers the error model's 404.
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode != http.StatusNotFound || mt != "application/json" || !bytes.Contains(body, []byte(`"NOT_FOUND"`)) {
			fail("a path or method the document does not have must answer the JSON 404")
		}
		return
	}
	var msgs []string
	for _, e := range errs {
		msg := e.Message
		if e.Reason != "" {
			msg += ": " + e.Reason
		}
		for i, f := range e.SchemaValidationErrors {
			if i == maxFailuresShown {
				msg += fmt.Sprintf("\n    … and %d more", len(e.SchemaValidationErrors)-i)
				break
			}
			msg += "\n    " + f.Error()
		}
		msgs = append(msgs, msg)
	}
	msg := strings.Join(msgs, "\n  ")
	// One report per route, status and kind of violation: a test that
	// polls an execution would otherwise repeat it a hundred times.
	key := req.Method + " " + errs[0].SpecPath + " " + strconv.Itoa(resp.StatusCode) + " " + arrayIndex.ReplaceAllString(msg, "[]")
	c.mu.Lock()
	seen := c.seen[key]
	c.seen[key] = true
	c.mu.Unlock()
	if !seen {
		fail(msg)
	}
}

const maxFailuresShown = 8

var arrayIndex = regexp.MustCompile(`\[\d+\]`)

// validator fetches and parses the server's document once; it reports a
// document it cannot read, once, and returns nil.
func (c *contractTransport) validator() validator.Validator {
	c.once.Do(func() {
		req, err := http.NewRequest(http.MethodGet, c.serverURL+"/openapi.json", nil)
		if err != nil {
			c.err = err
			return
		}
		resp, err := c.base.RoundTrip(req)
		if err != nil {
			c.err = fmt.Errorf("fetch /openapi.json: %w", err)
			return
		}
		defer resp.Body.Close()
		doc, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			c.err = fmt.Errorf("fetch /openapi.json: %d %v", resp.StatusCode, err)
			return
		}
		c.v, c.err = contractValidator(doc, c.serverURL)
	})
	c.reportOnce.Do(func() {
		if c.err != nil {
			c.t.Errorf("contract: %v", c.err)
		}
	})
	return c.v
}

func routeMissing(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.ValidationSubType == helpers.ValidationMissing || e.ValidationSubType == helpers.ValidationMissingOperation {
			return true
		}
	}
	return false
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// violations records what a contractTransport reports.
type violations struct {
	mu   sync.Mutex
	msgs []string
}

func (v *violations) Errorf(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.msgs = append(v.msgs, fmt.Sprintf(format, args...))
}

// TestContractTransportCatchesViolations: the check the end-to-end suite
// relies on fails on what a generated client would trip over, and passes
// what the document allows.
func TestContractTransportCatchesViolations(t *testing.T) {
	const doc = `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
	  "paths": {"/thing": {"get": {"parameters": [{"name": "as", "in": "query", "schema": {"type": "string"}}],
	    "responses": {
	      "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "required": ["id", "note", "tags"],
	        "properties": {"id": {"type": "string"}, "note": {"type": ["string", "null"]}, "tags": {"type": "array", "items": {"type": "string"}}}}},
	        "text/csv": {"schema": {"type": "string"}}}},
	      "404": {"description": "none", "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}`
	answers := map[string]struct {
		status      int
		contentType string
		body        string
		violation   string // what the report must say; "" when none is due
	}{
		"valid":             {200, "application/json", `{"id": "a", "note": null, "tags": []}`, ""},
		"csv":               {200, "text/csv", "id\na\n", ""},
		"documented 404":    {404, "application/json", `{}`, ""},
		"undocumented 409":  {409, "application/json", `{}`, "409"},
		"missing field":     {200, "application/json", `{"id": "a", "note": null}`, "tags"},
		"wrong type":        {200, "application/json", `{"id": 7, "note": null, "tags": []}`, "id"},
		"null not nullable": {200, "application/json", `{"id": "a", "note": null, "tags": null}`, "tags"},
		"undocumented type": {200, "text/html", `<p>`, "text/html"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi.json" {
			w.Write([]byte(doc))
			return
		}
		if r.URL.Path != "/thing" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error": {"code": "NOT_FOUND"}}`))
			return
		}
		a := answers[r.URL.Query().Get("as")]
		w.Header().Set("Content-Type", a.contentType)
		w.WriteHeader(a.status)
		w.Write([]byte(a.body))
	}))
	defer srv.Close()

	for name, a := range answers {
		t.Run(name, func(t *testing.T) {
			var got violations
			hc := &http.Client{Transport: newContractTransport(&got, srv.URL, nil)}
			resp, err := hc.Get(srv.URL + "/thing?as=" + url.QueryEscape(name))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != a.body {
				t.Errorf("the transport changed the body: %q, want %q", body, a.body)
			}
			switch {
			case a.violation == "" && len(got.msgs) > 0:
				t.Errorf("reported an answer the document allows: %v", got.msgs)
			case a.violation != "" && (len(got.msgs) != 1 || !strings.Contains(got.msgs[0], a.violation)):
				t.Errorf("reports %q, want one naming %q", got.msgs, a.violation)
			}
		})
	}

	// A path the document lacks must be the JSON 404.
	var got violations
	hc := &http.Client{Transport: newContractTransport(&got, srv.URL, nil)}
	resp, err := hc.Get(srv.URL + "/nowhere")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(got.msgs) != 0 {
		t.Errorf("reported the catch-all 404: %v", got.msgs)
	}
}

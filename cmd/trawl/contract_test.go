package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"mime"
	"net/http"
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
		// Comment.replies is a nullable array of Comment (type [array,
		// null]): a recursion that ends, which libopenapi calls infinite
		// unless told to let array and type-list recursions be.
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
	t         testing.TB
	base      http.RoundTripper
	serverURL string

	once       sync.Once
	reportOnce sync.Once
	mu         sync.Mutex
	seen       map[string]bool
	v          validator.Validator
	err        error
}

func newContractTransport(t testing.TB, serverURL string, base http.RoundTripper) *contractTransport {
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
	if err != nil || !strings.HasPrefix(req.URL.String(), c.serverURL+"/") {
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
	vreq := req
	if req.Method == http.MethodHead {
		// The server answers HEAD for any GET route, with no body.
		vreq = req.Clone(req.Context())
		vreq.Method = http.MethodGet
	}
	check := resp
	if req.Method == http.MethodHead {
		cp := *resp
		cp.Body = http.NoBody
		check = &cp
	} else {
		cp := *resp
		cp.Body = io.NopCloser(bytes.NewReader(body))
		check = &cp
	}
	ok, errs := v.ValidateHttpResponse(vreq, check)
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
	if req.Method == http.MethodHead && onlyBodyErrors(errs) {
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

func onlyBodyErrors(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.ValidationSubType == helpers.ResponseBodyResponseCode {
			return false
		}
	}
	return true
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

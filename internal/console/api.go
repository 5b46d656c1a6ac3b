package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// The console's writes, and most of its reads, are the API's own routes
// asked in-process for the session's principal: the same validation,
// permissions, plan gates, credits and rate limit, the same messages. A page
// turns the API's error into messages at its form's fields (apiProblem.At).

// apiAnswer is one answer of the API.
type apiAnswer struct {
	Status int
	Header http.Header
	Body   []byte
}

// OK says the API answered 2xx.
func (a apiAnswer) OK() bool { return a.Status >= 200 && a.Status < 300 }

// Decode decodes the whole body (the envelope) into v.
func (a apiAnswer) Decode(v any) error {
	if err := json.Unmarshal(a.Body, v); err != nil {
		return fmt.Errorf("console: decode API answer (%d): %w", a.Status, err)
	}
	return nil
}

// Data decodes the envelope's data into v.
func (a apiAnswer) Data(v any) error {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := a.Decode(&env); err != nil {
		return err
	}
	if len(env.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(env.Data, v); err != nil {
		return fmt.Errorf("console: decode API data: %w", err)
	}
	return nil
}

// Problem is the API's error body; the zero apiProblem when it succeeded.
func (a apiAnswer) Problem() apiProblem {
	if a.OK() {
		return apiProblem{}
	}
	var body struct {
		Message string `json:"message"`
		Error   struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Details struct {
				Fields []fieldProblem `json:"fields"`
			} `json:"details"`
			Suggestion string `json:"suggestion"`
		} `json:"error"`
	}
	p := apiProblem{Status: a.Status}
	if err := json.Unmarshal(a.Body, &body); err != nil || body.Error.Code == "" {
		p.Code, p.Message = "INTERNAL_ERROR", "The server answered "+http.StatusText(a.Status)+"."
		return p
	}
	p.Code, p.Message, p.Suggestion, p.Fields = body.Error.Code, body.Error.Message, body.Error.Suggestion, body.Error.Details.Fields
	if p.Message == "" {
		p.Message = body.Message
	}
	return p
}

// apiProblem is the API's error: its code, sentence and field messages.
type apiProblem struct {
	Status     int
	Code       string
	Message    string
	Suggestion string
	Fields     []fieldProblem
	// Unplaced are the field messages no input of the form shows (Place).
	Unplaced []fieldProblem
}

// fieldProblem is one field's message, the API's details.fields[i]; ID is
// the form input it was placed at.
type fieldProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Pointer string `json:"pointer,omitempty"`
	ID      string `json:"-"`
}

// Has says the API refused.
func (p apiProblem) Has() bool { return p.Code != "" }

// indexes are a path's array indexes ("keywords[2]" → "keywords").
var indexes = regexp.MustCompile(`\[[0-9]+\]`)

// formName is an API field path as a form input's name: "body.filters.title"
// → "filters.title", "query.status" → "status", "body.keywords[0]" →
// "keywords".
func formName(field string) string {
	for _, in := range []string{"body.", "query.", "path."} {
		if rest, ok := strings.CutPrefix(field, in); ok {
			field = rest
			break
		}
	}
	return indexes.ReplaceAllString(field, "")
}

// At is the first message for the input named name: an API field that is
// name or lies under it ("filters" takes "body.filters.title"). The zero
// fieldProblem (no message) when the field is fine.
func (p apiProblem) At(name string) fieldProblem {
	for _, f := range p.Fields {
		n := formName(f.Field)
		if n == name || strings.HasPrefix(n, name+".") {
			f.ID = strings.ReplaceAll(name, ".", "-")
			return f
		}
	}
	return fieldProblem{ID: strings.ReplaceAll(name, ".", "-")}
}

// Place keeps in Unplaced the messages none of the form's inputs (names)
// shows, so the page lists them with the error's sentence.
func (p apiProblem) Place(names ...string) apiProblem {
	p.Unplaced = nil
	for _, f := range p.Fields {
		n, placed := formName(f.Field), false
		for _, name := range names {
			if n == name || strings.HasPrefix(n, name+".") {
				placed = true
				break
			}
		}
		if !placed {
			p.Unplaced = append(p.Unplaced, f)
		}
	}
	return p
}

// api asks the API's route method path (query may be nil; body, when not
// nil, is sent as JSON) as the session's principal.
func (c *Console) api(r *http.Request, s session, method, path string, query url.Values, body any) (apiAnswer, error) {
	if c.API == nil || c.AsPrincipal == nil {
		return apiAnswer{}, errors.New("console: no API to ask")
	}
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return apiAnswer{}, fmt.Errorf("console: encode %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	u := &url.URL{Path: path}
	if query != nil {
		u.RawQuery = query.Encode()
	}
	req, err := http.NewRequestWithContext(c.AsPrincipal(r.Context(), s.p), method, u.String(), rd)
	if err != nil {
		return apiAnswer{}, fmt.Errorf("console: request %s %s: %w", method, path, err)
	}
	req.RemoteAddr, req.Host = r.RemoteAddr, r.Host
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if id := r.Header.Get("X-Request-Id"); id != "" {
		req.Header.Set("X-Request-Id", id)
	}
	rec := &answerWriter{header: http.Header{}}
	c.API.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return apiAnswer{Status: rec.status, Header: rec.header, Body: rec.body.Bytes()}, nil
}

// answerWriter keeps an in-process answer.
type answerWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *answerWriter) Header() http.Header { return w.header }
func (w *answerWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}
func (w *answerWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}

// apiFailure renders the API's refusal of a page's read as the page: its
// status and its sentence (a 404 for another account's object, a 403
// naming the permission).
func (c *Console) apiFailure(w http.ResponseWriter, r *http.Request, a apiAnswer) {
	p := a.Problem()
	heading := http.StatusText(a.Status)
	switch a.Status {
	case http.StatusNotFound:
		heading = "Not found"
	case http.StatusForbidden:
		heading = "Not allowed"
	}
	msg := p.Message
	if p.Suggestion != "" {
		msg += " " + p.Suggestion
	}
	c.message(w, r, a.Status, heading, msg)
}

// stream serves the API's answer to GET path?query straight to the browser,
// as the session's principal: a CSV export, written as the API writes it
// (never held in memory), with the API's own headers and refusals.
func (c *Console) stream(w http.ResponseWriter, r *http.Request, s session, path string, query url.Values) {
	if c.API == nil || c.AsPrincipal == nil {
		c.serverError(w, r, errors.New("console: no API to export through"))
		return
	}
	api := r.Clone(c.AsPrincipal(r.Context(), s.p))
	api.Method = http.MethodGet
	api.URL = &url.URL{Path: path, RawQuery: query.Encode()}
	api.RequestURI = api.URL.RequestURI()
	api.Header.Del("x-api-key")
	api.Header.Del("Accept")
	c.API.ServeHTTP(w, api)
}

// read asks the API's GET path?query and decodes its whole answer (the
// envelope) into v. When it fails the page is already the API's refusal
// (or a 500), and read says false.
func (c *Console) read(w http.ResponseWriter, r *http.Request, s session, path string, query url.Values, v any) bool {
	a, err := c.api(r, s, http.MethodGet, path, query, nil)
	if err != nil {
		c.serverError(w, r, err)
		return false
	}
	if !a.OK() {
		c.apiFailure(w, r, a)
		return false
	}
	if err := a.Decode(v); err != nil {
		c.serverError(w, r, err)
		return false
	}
	return true
}

// envelope is the API's success body around data of type T.
type envelope[T any] struct {
	Data T `json:"data"`
}

// readOrRefusal asks the API's GET path and decodes its data into v. A
// refusal (a permission, a plan) is not an error: it comes back as the
// API's sentence, which the page shows in the place of what it could not read.
func (c *Console) readOrRefusal(r *http.Request, s session, path string, v any) (refusal string, err error) {
	a, err := c.api(r, s, http.MethodGet, path, nil, nil)
	if err != nil {
		return "", err
	}
	if !a.OK() {
		return a.Problem().Message, nil
	}
	return "", a.Data(v)
}

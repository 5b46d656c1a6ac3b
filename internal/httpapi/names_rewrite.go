package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// renamesBodies reports whether the bodies of path speak the table's names.
// Workflow definitions, their executions' data, webhook events, secrets and
// integrations' credentials are the user's own: a member named pronet_url
// there is left alone.
func renamesBodies(path string) bool {
	for _, own := range []string{"/v1/workflows", hooksPath, "/v1/secrets", "/v1/integrations"} {
		if strings.HasPrefix(path, own) {
			return false
		}
	}
	return strings.HasPrefix(path, "/v1/")
}

// acceptHostedNames renames the hosted API's names in a request body to the
// spec's before huma reads it, so every rule sees one name. A body giving
// both names of one member is refused, naming both; nothing is done.
func (s *Server) acceptHostedNames(ctx huma.Context, next func(huma.Context)) {
	op := ctx.Operation()
	if op.RequestBody == nil || op.SkipValidateBody || !renamesBodies(op.Path) {
		next(ctx)
		return
	}
	ctx, body := bufferBody(ctx, op.MaxBodyBytes)
	t := hostedNames()
	if body == nil || !t.mentionsHosted(body) {
		next(ctx)
		return
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		// huma reports the malformed body as it does any other.
		next(ctx)
		return
	}
	var p problems
	renamed := map[string]string{}
	v = t.toNeutral(v, "body", &p, renamed)
	if len(p) > 0 {
		s.writeHumaError(ctx, validationError(p...))
		return
	}
	out, err := marshalPlain(v)
	if err != nil {
		next(ctx)
		return
	}
	next(&sentNamesContext{humaContext: ctx, body: bytes.NewReader(out), renamed: renamed})
}

// sentNamesContext serves the renamed body, and names the fields of an
// error answer as the client sent them: a rule broken under
// twitter_language is reported at body.twitter_language.
type sentNamesContext struct {
	humaContext
	body    io.Reader
	renamed map[string]string // body.microblog_language → body.twitter_language
	status  int
}

func (c *sentNamesContext) BodyReader() io.Reader { return c.body }
func (c *sentNamesContext) Unwrap() huma.Context  { return c.humaContext }
func (c *sentNamesContext) SetStatus(code int) {
	c.status = code
	c.humaContext.SetStatus(code)
}

func (c *sentNamesContext) BodyWriter() io.Writer {
	w := c.humaContext.BodyWriter()
	if c.status < 400 || c.status >= 500 {
		return w
	}
	return sentNamesWriter{w: w, renamed: c.renamed}
}

// sentNamesWriter puts the sent names back into an error body's field
// paths and pointers. huma and writeHumaError write a body in one Write.
type sentNamesWriter struct {
	w       io.Writer
	renamed map[string]string
}

func (s sentNamesWriter) Write(b []byte) (int, error) {
	out := string(b)
	for neutral, hosted := range s.renamed {
		out = strings.ReplaceAll(out, `"`+bodyPointer(neutral)+`"`, `"`+bodyPointer(hosted)+`"`)
		out = strings.ReplaceAll(out, neutral, hosted)
	}
	if _, err := io.WriteString(s.w, out); err != nil {
		return 0, fmt.Errorf("httpapi: write an error body: %w", err)
	}
	return len(b), nil
}

// mentionsHosted reports whether body may hold a hosted name: most bodies
// do not and are handed on byte for byte.
func (t nameTable) mentionsHosted(body []byte) bool {
	lower := bytes.ToLower(body)
	for _, m := range t.numbered {
		if bytes.Contains(body, []byte(`"`+m+`"`)) {
			return true
		}
	}
	for _, p := range t.fields {
		if bytes.Contains(body, []byte(`"`+p.Hosted+`"`)) {
			return true
		}
	}
	for _, m := range t.valueMembers() {
		for _, p := range t.values[m] {
			// hourly is HOURLY in any case already.
			if !strings.EqualFold(p.Neutral, p.Hosted) && bytes.Contains(lower, []byte(`"`+strings.ToLower(p.Hosted)+`"`)) {
				return true
			}
		}
	}
	return false
}

// toNeutral renames the hosted names in v (a body decoded with UseNumber)
// at field to the spec's, adding a problem for each member given twice.
// Each renamed member's path is added to renamed (neutral → as sent).
func (t nameTable) toNeutral(v any, field string, p *problems, renamed map[string]string) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range v {
				if !yield(k) {
					return
				}
			}
		}) {
			name := k
			if pair, ok := t.field(k); ok && k == pair.Hosted {
				if _, both := v[pair.Neutral]; both {
					p.add(field+"."+k, "is the hosted API's name of %s, which the body also gives; send one of %s and %s", pair.Neutral, pair.Neutral, pair.Hosted)
					continue
				}
				name = pair.Neutral
				renamed[field+"."+name] = field + "." + k
			}
			val := t.renameValues(name, t.toNeutral(v[k], field+"."+k, p, renamed), false)
			if items, ok := val.([]any); ok && slices.Contains(t.numbered, name) {
				for i, item := range items {
					if n, ok := item.(json.Number); ok {
						items[i] = n.String()
					}
				}
			}
			out[name] = val
		}
		return out
	case []any:
		for i := range v {
			v[i] = t.toNeutral(v[i], fmt.Sprintf("%s[%d]", field, i), p, renamed)
		}
	}
	return v
}

// toHosted renames the spec's names in v (a response body) to the hosted API's.
func (t nameTable) toHosted(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			name := k
			if pair, ok := t.field(k); ok && k == pair.Neutral {
				name = pair.Hosted
			}
			out[name] = t.renameValues(k, t.toHosted(val), true)
		}
		if content, ok := out["content"].(map[string]any); ok {
			hostedMedia(content)
		}
		hostedInterval(out)
		return out
	case []any:
		for i := range v {
			v[i] = t.toHosted(v[i])
		}
	}
	return v
}

// renameValues renames v, the value of member (a string or a list of them).
func (t nameTable) renameValues(member string, v any, toHosted bool) any {
	if _, ok := t.values[member]; !ok {
		return v
	}
	switch x := v.(type) {
	case string:
		r, _ := t.value(member, x, toHosted)
		return r
	case []any:
		for i, item := range x {
			if s, ok := item.(string); ok {
				x[i], _ = t.value(member, s, toHosted)
			}
		}
	}
	return v
}

// docToHosted is the OpenAPI document (or one of its schemas) of a server
// with TRAWL_API_NAMES=hosted: each property the table names is renamed
// (and so is its entry in required), and each enum holding a value the
// table names also holds the hosted one, which requests accept too.
func (t nameTable) docToHosted(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["paths"]; ok {
			docHostedExecutionsPage(v)
		}
		for k, val := range v {
			v[k] = t.docToHosted(val)
		}
		if props, ok := v["properties"].(map[string]any); ok {
			docHostedMedia(v, props)
			docHostedInterval(props)
			for k, val := range props {
				if pair, ok := t.field(k); ok && k == pair.Neutral {
					delete(props, k)
					props[pair.Hosted] = val
				}
			}
		}
		if req, ok := v["required"].([]any); ok {
			for i, r := range req {
				if s, ok := r.(string); ok {
					if pair, ok := t.field(s); ok && s == pair.Neutral {
						req[i] = pair.Hosted
					}
				}
			}
		}
		if enum, ok := v["enum"].([]any); ok {
			for _, e := range slices.Clone(enum) {
				s, _ := e.(string)
				for _, m := range t.valueMembers() {
					if h, ok := t.value(m, s, true); ok && !slices.Contains(enum, any(h)) {
						enum = append(enum, h)
					}
				}
			}
			v["enum"] = enum
		}
		return v
	case []any:
		for i := range v {
			v[i] = t.docToHosted(v[i])
		}
	}
	return v
}

// marshalPlain encodes v as JSON without escaping <, > and &.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("httpapi: encode a renamed body: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// rewriteJSON decodes data, applies f and encodes the result; data that is
// not JSON comes back as it was.
func rewriteJSON(data []byte, f func(any) any) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return data
	}
	out, err := marshalPlain(f(v))
	if err != nil {
		return data
	}
	return out
}

// hostedResponses renames, with TRAWL_API_NAMES=hosted, the spec's names in
// JSON answers to the hosted API's, and serves the OpenAPI document that
// describes them. Other answers (CSV exports) stream through untouched.
func (s *Server) hostedResponses(next http.Handler) http.Handler {
	if s.cfg == nil || s.cfg.APINames != NamesHosted {
		return next
	}
	t := hostedNames()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var f func(any) any
		switch p := r.URL.Path; {
		case p == "/openapi.json" || p == "/openapi-3.0.json" || strings.HasPrefix(p, "/schemas/"):
			f = t.docToHosted
		case isExecutionsList(r.Method, p):
			f = hostedExecutionsPage
		case renamesBodies(p):
			f = t.toHosted
		default:
			next.ServeHTTP(w, r)
			return
		}
		bw := &jsonBuffer{ResponseWriter: w}
		next.ServeHTTP(bw, r)
		bw.finish(f)
	})
}

// jsonBuffer holds a JSON answer until it is complete; any other answer
// passes through as it is written.
type jsonBuffer struct {
	http.ResponseWriter
	status    int
	buffering bool
	body      bytes.Buffer
}

func (b *jsonBuffer) WriteHeader(code int) {
	if b.status != 0 {
		return
	}
	b.status = code
	mt, _, _ := mime.ParseMediaType(b.Header().Get("Content-Type"))
	b.buffering = mt == "application/json" || strings.HasSuffix(mt, "+json")
	if !b.buffering {
		b.ResponseWriter.WriteHeader(code)
	}
}

func (b *jsonBuffer) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.WriteHeader(http.StatusOK)
	}
	if b.buffering {
		return b.body.Write(p)
	}
	return b.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (CSV exports flush).
func (b *jsonBuffer) Unwrap() http.ResponseWriter { return b.ResponseWriter }

func (b *jsonBuffer) finish(f func(any) any) {
	if !b.buffering {
		return
	}
	out := rewriteJSON(b.body.Bytes(), f)
	b.Header().Del("Content-Length")
	b.ResponseWriter.WriteHeader(b.status)
	_, _ = b.ResponseWriter.Write(out)
}

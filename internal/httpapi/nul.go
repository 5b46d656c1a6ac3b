package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

const nulMessage = "must not contain the NUL character"

// refuseNUL answers 400 naming every path and query parameter and every
// string of a JSON body that holds the NUL character. PostgreSQL keeps
// no NUL in text and refuses \u0000 in jsonb, so such a value would be a
// 500 there and accepted on SQLite; no text field of this API has a use
// for it. Only declared parameters are looked at: refuseUnknownQuery
// refuses the others, or, on a public route, they are the sender's and
// go unread. Operations that take their body raw (a webhook's payload,
// the sender's data to pass on) are left to store what they receive.
func (s *Server) refuseNUL(ctx huma.Context, next func(huma.Context)) {
	var p problems
	op := ctx.Operation()
	u := ctx.URL()
	q := u.Query()
	hasNUL := func(v string) bool { return strings.ContainsRune(v, 0) }
	for _, param := range op.Parameters {
		switch {
		case param.In == "path" && hasNUL(ctx.Param(param.Name)):
			p.add("path."+param.Name, nulMessage)
		case param.In == "query" && slices.ContainsFunc(q[param.Name], hasNUL):
			p.add("query."+param.Name, nulMessage)
		}
	}
	if op.RequestBody != nil && !op.SkipValidateBody {
		var body []byte
		ctx, body = bufferBody(ctx, op.MaxBodyBytes)
		// JSON can carry NUL only escaped; a body without the escape
		// (nearly every body) is not decoded twice.
		if bytes.Contains(body, []byte(`\u0000`)) {
			var v any
			if json.Unmarshal(body, &v) == nil {
				nulStrings(v, "body", "", &p)
			}
		}
	}
	if len(p) > 0 {
		s.writeHumaError(ctx, validationError(p...))
		return
	}
	next(ctx)
}

// nulStrings adds a problem for each string in v (at field, JSON pointer
// ptr) that holds NUL; an object whose member name holds one is named
// itself. The pointer is built beside the field, since a member name may
// hold what a field path cannot say (a dot); the whole body's, "", is
// filled in by validationError.
func nulStrings(v any, field, ptr string, p *problems) {
	switch v := v.(type) {
	case string:
		if strings.ContainsRune(v, 0) {
			*p = append(*p, Detail{Field: field, Pointer: ptr, Message: nulMessage})
		}
	case []any:
		for i, e := range v {
			nulStrings(e, fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("%s/%d", ptr, i), p)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if strings.ContainsRune(k, 0) {
				*p = append(*p, Detail{Field: field, Pointer: ptr, Message: "must not have a member name that contains the NUL character"})
				continue
			}
			nulStrings(v[k], field+"."+k, ptr+"/"+pointerToken(k), p)
		}
	}
}

// humaContext lets bodyContext embed huma.Context, whose Context method
// an embedded field of that name would hide.
type humaContext = huma.Context

// bodyContext serves a body already read to the handlers after it.
type bodyContext struct {
	humaContext
	body io.Reader
}

func (c bodyContext) BodyReader() io.Reader { return c.body }
func (c bodyContext) Unwrap() huma.Context  { return c.humaContext }

// bufferBody reads the request body up to limit bytes and returns a
// context whose body reads the same bytes, then the rest: a body over
// the limit still reaches huma's size check whole. Past the limit, the
// bytes returned are not the whole body, and nil says so.
func bufferBody(ctx huma.Context, limit int64) (huma.Context, []byte) {
	r := ctx.BodyReader()
	if r == nil {
		return ctx, nil
	}
	if limit <= 0 {
		limit = 1 << 20
	}
	buf, err := io.ReadAll(io.LimitReader(r, limit))
	next := bodyContext{humaContext: ctx, body: io.MultiReader(bytes.NewReader(buf), r)}
	if err != nil {
		// huma reports the failure when it reads on.
		next.body = io.MultiReader(bytes.NewReader(buf), errReader{err})
		return next, nil
	}
	if int64(len(buf)) == limit {
		return next, nil
	}
	return next, buf
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

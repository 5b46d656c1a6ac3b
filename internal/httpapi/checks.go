package httpapi

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// problems collects every invalid field of a request.
type problems []Detail

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, Detail{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return validationError(p...)
}

// checker is an input with rules its schema cannot say (an empty keyword,
// a follower range, the steps of a workflow). check adds what breaks them
// to p and keeps what the handler needs on the input; its error is one the
// request cannot be checked for (a database failure).
//
// It runs as a huma resolver (checkInput), after the schema validation and
// whatever that found, so one answer lists every problem of the request
// (DESIGN.md, API conventions), and the handler runs only when both found
// none.
type checker interface {
	check(ctx huma.Context, s *Server, p *problems) error
}

type serverKey struct{}

// checkInput is the huma.Resolver of every checker input:
//
//	func (in *someInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }
//
// The server comes from the request's context (withServer): a resolver
// has nothing else to reach it by.
func checkInput(ctx huma.Context, in checker) []error {
	s, _ := ctx.Context().Value(serverKey{}).(*Server)
	if s == nil {
		return []error{internalError()}
	}
	var p problems
	if err := in.check(ctx, s, &p); err != nil {
		return []error{err}
	}
	errs := make([]error, len(p))
	for i, d := range p {
		errs[i] = detailError(d)
	}
	return errs
}

// previewing says whether the operation is a preview, which checks a
// search body as one that is not stored.
func previewing(ctx huma.Context) bool { return strings.HasSuffix(ctx.Operation().Path, "/preview") }

// withServer is the first middleware: it makes the server reachable by
// checkInput.
func (s *Server) withServer(ctx huma.Context, next func(huma.Context)) {
	next(huma.WithValue(ctx, serverKey{}, s))
}

// refuseUnknownQuery answers 400 naming each query parameter the
// operation does not declare, as an unknown body member is refused: a
// misspelt or borrowed parameter (page on a list paged by offset) would
// otherwise be ignored without a word. It runs before the checks, so such
// a request learns of its other problems once the parameter is gone.
// Public routes are left alone: a webhook's sender may add parameters of
// its own to the URL it was given.
func (s *Server) refuseUnknownQuery(ctx huma.Context, next func(huma.Context)) {
	u := ctx.URL()
	if authed, _ := ctx.Operation().Metadata[metaAuth].(bool); !authed || u.RawQuery == "" {
		next(ctx)
		return
	}
	var declared []string
	for _, param := range ctx.Operation().Parameters {
		if param.In == "query" {
			declared = append(declared, param.Name)
		}
	}
	var p problems
	for _, name := range slices.Sorted(maps.Keys(u.Query())) {
		if slices.Contains(declared, name) {
			continue
		}
		hint := pagingHint(ctx.Operation().OperationID, name)
		if len(declared) == 0 {
			p.add("query."+name, "is not a parameter of this endpoint, which takes none%s", hint)
		} else {
			p.add("query."+name, "is not a parameter of this endpoint, which takes %s%s", strings.Join(declared, ", "), hint)
		}
	}
	if len(p) > 0 {
		s.writeHumaError(ctx, validationError(p...))
		return
	}
	next(ctx)
}

// detailError carries a checker's problem through huma to fromHuma whole
// (with its JSON pointer).
type detailError Detail

func (d detailError) Error() string { return d.Field + " " + d.Message }

// mergeDetails keeps the first problem of each field: a field whose type
// is wrong is reported by the schema, and the checker that then sees its
// zero value has nothing to add.
func mergeDetails(errs []error) []Detail {
	var (
		out  []Detail
		seen = map[string]bool{}
	)
	add := func(d Detail) {
		if !seen[d.Field] {
			seen[d.Field] = true
			out = append(out, d)
		}
	}
	for _, err := range errs {
		var (
			own detailError
			hd  huma.ErrorDetailer
		)
		switch {
		case err == nil:
		case errors.As(err, &own):
			add(Detail(own))
		case errors.As(err, &hd):
			add(humaDetail(hd.ErrorDetail()))
		default:
			add(Detail{Field: "body", Message: err.Error()})
		}
	}
	return out
}

func cleanList(field string, in []string, p *problems) []string {
	out := make([]string, 0, len(in))
	for i, v := range in {
		v = strings.TrimSpace(v)
		if v == "" {
			p.add(fmt.Sprintf("%s[%d]", field, i), "must not be empty")
			continue
		}
		out = append(out, v)
	}
	return out
}

func checkName(name string, p *problems) {
	n := len([]rune(strings.TrimSpace(name)))
	if n < 1 || n > 255 {
		p.add("body.name", "is required and must be 1-255 characters")
	}
}

// period is the from and to of a query over [from, to], each of them
// defaulting to the time given.
func period(rawFrom, rawTo string, from, to time.Time, p *problems) (time.Time, time.Time) {
	bad := len(*p)
	for _, q := range []struct {
		field, raw string
		into       *time.Time
	}{{"query.from", rawFrom, &from}, {"query.to", rawTo, &to}} {
		if q.raw == "" {
			continue
		}
		t, err := parseTimestamp(q.raw)
		if err != nil {
			p.add(q.field, "%s", err.Error())
			continue
		}
		*q.into = t
	}
	if len(*p) == bad && to.Before(from) {
		p.add("query.to", "must not be before from")
	}
	return from, to
}

package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// maxBody is the largest request body of every route but the webhook's,
// which has TRAWL_WEBHOOK_MAX_BODY (DESIGN.md: 413 for bodies over 1 MiB).
const maxBody = 1 << 20

// metaMaxBody is the metadata key of a route's own body limit, in bytes.
const metaMaxBody = "maxBody"

// bodyLimit gives a route a body limit of its own.
func bodyLimit(n int64) func(*huma.Operation) {
	return func(op *huma.Operation) { op.Metadata[metaMaxBody] = n }
}

// boundBody gives every operation its body limit and read timeout as it is
// registered. huma applies defaults of its own only to inputs with a Body
// field, so a RawBody input (the webhook's) was read whole, for as long as
// the sender liked; here every route gets both, enforced by huma while it
// reads, before the handler (and its lookups) run.
func (s *Server) boundBody(_ *huma.OpenAPI, op *huma.Operation) {
	limit := int64(maxBody)
	if n, ok := op.Metadata[metaMaxBody].(int64); ok {
		limit = n
	}
	// huma refuses a body that reaches MaxBodyBytes: one byte more lets a
	// body of exactly the limit through.
	op.MaxBodyBytes = limit + 1
	op.BodyReadTimeout = s.cfg.ReadTimeout
	documentBodyErrors(op)
}

// documentBodyErrors declares the two answers every operation with a body
// may give before its handler runs, 413 and 408, in the error shape its
// other errors have, so that the document says what clients can meet.
func documentBodyErrors(op *huma.Operation) {
	bad, ok := op.Responses[strconv.Itoa(http.StatusBadRequest)]
	if op.RequestBody == nil || !ok {
		return
	}
	for _, status := range []int{http.StatusRequestEntityTooLarge, http.StatusRequestTimeout} {
		if _, declared := op.Responses[strconv.Itoa(status)]; !declared {
			op.Responses[strconv.Itoa(status)] = &huma.Response{Description: http.StatusText(status), Content: bad.Content}
		}
	}
}

// refuseLargeBody answers 413 at once to a body whose declared length is
// over the route's limit, without reading any of it.
func (s *Server) refuseLargeBody(ctx huma.Context, next func(huma.Context)) {
	limit := ctx.Operation().MaxBodyBytes - 1
	if n, err := strconv.ParseInt(ctx.Header("Content-Length"), 10, 64); err == nil && limit > 0 && n > limit {
		s.writeHumaError(ctx, payloadTooLarge(limit))
		return
	}
	next(ctx)
}

// bodyError is the answer to a body huma stopped reading: too large or too
// slow, named with the operation's own limit.
func bodyError(op *huma.Operation, status int) *Error {
	switch {
	case op == nil:
	case status == http.StatusRequestEntityTooLarge:
		return payloadTooLarge(op.MaxBodyBytes - 1)
	case status == http.StatusRequestTimeout:
		return NewAPIError(status, CodeRequestTimeout, fmt.Sprintf("The request body did not arrive within %s.", op.BodyReadTimeout)).
			WithSuggestion("Send the whole body at once, right after the headers.")
	}
	return nil
}

func payloadTooLarge(limit int64) *Error {
	return NewAPIError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "The request body is larger than "+byteSize(limit)+".").
		WithSuggestion("Send a smaller body.")
}

// byteSize writes n in the largest binary unit that divides it.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// armWrite gives the connection writeTimeout more to take what is written
// next. It runs when an answer starts and on every flush, so that a client
// that stops reading is let go, while the time a handler takes before it
// answers (?wait=true, a slow upstream) and a long export that keeps
// moving are not cut short. Deadlines are the network's real time, not
// the injected clock.
func (r *statusRecorder) armWrite() {
	if r.writeTimeout > 0 {
		_ = http.NewResponseController(r.ResponseWriter).SetWriteDeadline(time.Now().Add(r.writeTimeout))
	}
}

// FlushError gives what was written, and what follows up to the next
// flush, a new write timeout, and flushes (http.ResponseController calls it).
func (r *statusRecorder) FlushError() error {
	r.armWrite()
	return http.NewResponseController(r.ResponseWriter).Flush()
}

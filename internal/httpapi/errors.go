package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// Error codes of the error model (DESIGN.md, API conventions).
const (
	CodeValidation           = "VALIDATION_ERROR"
	CodeBadRequest           = "BAD_REQUEST"
	CodeAuthRequired         = "AUTH_REQUIRED"
	CodeInvalidAPIKey        = "INVALID_API_KEY"
	CodeForbidden            = "FORBIDDEN"
	CodePlanRequired         = "PLAN_REQUIRED"
	CodeInsufficientCredits  = "INSUFFICIENT_CREDITS"
	CodeElevatedAccess       = "ELEVATED_ACCESS_REQUIRED"
	CodeNotFound             = "NOT_FOUND"
	CodeMethodNotAllowed     = "METHOD_NOT_ALLOWED"
	CodeConflict             = "CONFLICT"
	CodePayloadTooLarge      = "PAYLOAD_TOO_LARGE"
	CodeRequestTimeout       = "REQUEST_TIMEOUT"
	CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
	CodeQueryTooBroad        = "QUERY_TOO_BROAD"
	CodeProviderUnsupported  = "PROVIDER_UNSUPPORTED"
	CodeRateLimited          = "RATE_LIMITED"
	CodeUpstream             = "UPSTREAM_ERROR"
	CodeInternal             = "INTERNAL_ERROR"
	CodeUnavailable          = "UNAVAILABLE"
)

// Detail names one problem of a request: the field's path (body.keywords,
// query.limit, header.x-api-key) and what is wrong with it.
type Detail struct {
	Field   string `json:"field" doc:"Path of the offending field, e.g. body.keywords or query.limit."`
	Message string `json:"message" doc:"What is wrong with it."`
	// Pointer locates a body field for programs (and workflow editors).
	Pointer string `json:"pointer,omitempty" doc:"JSON pointer (RFC 6901) into the request body, for body fields: /workflow/actions/2/inputs/url."`
}

// ErrorDetails is what an error can say beyond its message: the fields at
// fault, the permission, plans or credits it is about. Each member is
// present only when it has something to say, and details itself is absent
// when none has.
type ErrorDetails struct {
	Fields      []Detail `json:"fields,omitempty" doc:"Every problem found in the request, one per field (VALIDATION_ERROR, and the fields a refusal is about)."`
	Permission  string   `json:"permission,omitempty" doc:"FORBIDDEN: the permission the API key lacks (the first, when it lacks several)." example:"searches:write"`
	Permissions []string `json:"permissions,omitempty" doc:"FORBIDDEN: every permission the API key lacks."`
	Plan        string   `json:"plan,omitempty" doc:"PLAN_REQUIRED, and a quota's CONFLICT: the account's plan." example:"STARTER"`
	Feature     string   `json:"feature,omitempty" doc:"PLAN_REQUIRED: the feature the plan lacks." example:"topics"`
	Plans       []string `json:"plans,omitempty" doc:"PLAN_REQUIRED: the plans that include the feature."`
	Needed      *int64   `json:"needed,omitempty" doc:"INSUFFICIENT_CREDITS: the credits the request needed, when known."`
	Available   *int64   `json:"available,omitempty" doc:"INSUFFICIENT_CREDITS: the credits left this period, when known."`
	Limit       *int64   `json:"limit,omitempty" doc:"A quota's CONFLICT: how many the plan allows."`
	Used        *int64   `json:"used,omitempty" doc:"A quota's CONFLICT: how many the account has."`
}

// ErrorInfo is the machine-readable part of an error body.
type ErrorInfo struct {
	Code              string        `json:"code" doc:"Stable error code." example:"VALIDATION_ERROR"`
	Message           string        `json:"message" doc:"One sentence a person can act on."`
	Details           *ErrorDetails `json:"details,omitempty" doc:"What the error is about; absent when there is nothing to add to the message."`
	Suggestion        string        `json:"suggestion,omitempty" doc:"What to do about it."`
	RetryAfterSeconds *int64        `json:"retryAfterSeconds,omitempty" doc:"On every 429: seconds to wait before trying again (as the Retry-After header)."`
}

// Error is every error the API answers with. It is the one error type of
// the HTTP layer; statuses and codes are decided where it is made.
type Error struct {
	status  int
	Success bool      `json:"success" doc:"Always false."`
	Message string    `json:"message" doc:"One sentence describing the error."`
	Info    ErrorInfo `json:"error"`
	headers http.Header
}

// NewAPIError makes an error answer; details are the fields at fault.
func NewAPIError(status int, code, message string, details ...Detail) *Error {
	e := &Error{status: status, Message: message, Info: ErrorInfo{Code: code, Message: message}}
	if len(details) > 0 {
		e.More().Fields = details
	}
	return e
}

// More returns the error's details, made when it had none, for the maker
// of the error to fill in.
func (e *Error) More() *ErrorDetails {
	if e.Info.Details == nil {
		e.Info.Details = &ErrorDetails{}
	}
	return e.Info.Details
}

// Fields are the field problems of the error's details.
func (e *Error) Fields() []Detail {
	if e.Info.Details == nil {
		return nil
	}
	return e.Info.Details.Fields
}

// RetryAfter sets the seconds to wait, in the Retry-After header and in
// the body's retryAfterSeconds alike, and returns the error.
func (e *Error) RetryAfter(seconds int64) *Error {
	seconds = max(seconds, 1)
	e.Info.RetryAfterSeconds = &seconds
	return e.WithHeader("Retry-After", strconv.FormatInt(seconds, 10))
}

// WithSuggestion adds advice to the error and returns it.
func (e *Error) WithSuggestion(s string) *Error { e.Info.Suggestion = s; return e }

// WithHeader adds a response header (Retry-After, say) and returns the error.
func (e *Error) WithHeader(k, v string) *Error {
	if e.headers == nil {
		e.headers = http.Header{}
	}
	e.headers.Set(k, v)
	return e
}

func (e *Error) Error() string           { return e.Info.Code + ": " + e.Message }
func (e *Error) GetStatus() int          { return e.status }
func (e *Error) GetHeaders() http.Header { return e.headers }

// ContentType makes errors application/problem-free plain JSON like every other body.
func (e *Error) ContentType(string) string { return "application/json" }

func validationError(details ...Detail) *Error {
	for i := range details {
		if details[i].Pointer == "" {
			details[i].Pointer = bodyPointer(details[i].Field)
		}
	}
	msg := "The request is invalid."
	if len(details) == 1 {
		msg = fmt.Sprintf("The request is invalid: %s %s.", details[0].Field, strings.TrimSuffix(details[0].Message, "."))
	} else if len(details) > 1 {
		msg = fmt.Sprintf("The request has %d invalid fields.", len(details))
	}
	return NewAPIError(http.StatusBadRequest, CodeValidation, msg, details...).
		WithSuggestion("Correct the fields listed in details and send the request again.")
}

var fieldTokenRE = regexp.MustCompile(`\.([^.\[]+)|\[(\d+)\]`)

// bodyPointer turns a body field path (body.workflow.actions[2].id) into a
// JSON pointer (/workflow/actions/2/id); "" for fields outside the body.
func bodyPointer(field string) string {
	rest, ok := strings.CutPrefix(field, "body")
	if !ok || (rest != "" && rest[0] != '.' && rest[0] != '[') {
		return ""
	}
	if rest == "" {
		return "/"
	}
	var b strings.Builder
	for _, m := range fieldTokenRE.FindAllStringSubmatch(rest, -1) {
		b.WriteString("/" + pointerToken(m[1]+m[2]))
	}
	return b.String()
}

// pointerToken escapes a member name for a JSON pointer (RFC 6901).
func pointerToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// pointerField turns a JSON pointer into the body field path of details.
func pointerField(ptr string) string {
	var b strings.Builder
	b.WriteString("body")
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
		} else {
			b.WriteString("." + tok)
		}
	}
	return b.String()
}

func notFound(what string) *Error {
	return NewAPIError(http.StatusNotFound, CodeNotFound, what+" was not found.")
}

func internalError() *Error {
	return NewAPIError(http.StatusInternalServerError, CodeInternal, "The service failed to handle the request.").
		WithSuggestion("Try again; if it keeps failing, report the x-request-id header to the operator.")
}

// fromHuma converts the errors huma produces itself (body parsing, schema
// validation, size limits) into the error model.
func fromHuma(status int, msg string, errs ...error) huma.StatusError {
	for _, err := range errs {
		var own *Error
		if errors.As(err, &own) {
			return own
		}
	}
	details := mergeDetails(errs)
	switch status {
	case http.StatusUnprocessableEntity:
		return validationError(details...)
	case http.StatusBadRequest:
		// The body did not parse: what the checkers found in its zero
		// value says nothing. A number too large to read is a field's
		// problem, not the JSON's.
		if typed := typeDetails(errs); len(typed) > 0 {
			return validationError(typed...)
		}
		details = slices.DeleteFunc(details, func(d Detail) bool { return d.Field != "body" })
		return NewAPIError(http.StatusBadRequest, CodeBadRequest, "The request body is not valid JSON.", details...).
			WithSuggestion("Send a JSON object with Content-Type: application/json.")
	case http.StatusRequestEntityTooLarge:
		return payloadTooLarge(maxBody)
	case http.StatusUnsupportedMediaType:
		return NewAPIError(status, CodeUnsupportedMediaType, "The request body must be JSON.")
	case http.StatusNotFound:
		return NewAPIError(status, CodeNotFound, "The resource was not found.")
	}
	if status >= 500 || status == 0 {
		return internalError()
	}
	return NewAPIError(status, CodeBadRequest, msg, details...)
}

var missingPropertyRE = regexp.MustCompile(`^expected required property (\S+) to be present$`)

// typeRules are huma's words for a value of the wrong type (from its
// schema validation, and from parsing a parameter), in the API's.
var typeRules = map[string]string{
	"expected boolean": "must be a boolean", "invalid boolean": "must be a boolean",
	"expected integer": "must be an integer", "invalid integer": "must be an integer",
	"expected number": "must be a number", "invalid float": "must be a number", "invalid floating value": "must be a number",
	"expected string": "must be a string",
	"expected array":  "must be an array",
	"expected object": "must be an object",
}

// humaDetail names the field of a huma validation error; a missing property
// is reported at the property, not at the object that lacks it, and a
// value of the wrong type found by decoding at its own pointer.
func humaDetail(d *huma.ErrorDetail) Detail {
	field := d.Location
	if field == "" {
		field = "body"
	}
	msg := d.Message
	if field == "body" {
		if td, ok := parseBodyTypeError(msg); ok {
			return td
		}
	}
	if m := missingPropertyRE.FindStringSubmatch(msg); m != nil {
		field, msg = field+"."+m[1], "is required"
	}
	if rule, ok := typeRules[msg]; ok {
		msg = rule
	}
	return Detail{Field: field, Message: msg}
}

// typeDetails are the details of the decoding type errors among errs.
func typeDetails(errs []error) []Detail {
	var out []Detail
	for _, err := range errs {
		var hd huma.ErrorDetailer
		if errors.As(err, &hd) && hd.ErrorDetail().Location == "body" {
			if d, ok := parseBodyTypeError(hd.ErrorDetail().Message); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

func init() {
	// huma builds its own errors through this process-wide hook (its design,
	// not ours); pointing it at the error model once is the documented way
	// to give validation failures our shape and statuses.
	huma.NewError = fromHuma
	// Arrays are arrays: the spec gives no list field as nullable, every
	// answer writes [] for an empty one, and a generated client should not
	// have to check for null. huma documents arrays as nullable unless this
	// process-wide default says otherwise; a list that may be null says so
	// with its own nullable tag.
	huma.DefaultArrayNullable = false
	huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		if ctx != nil {
			if err := bodyError(ctx.Operation(), status); err != nil {
				return err
			}
		}
		return fromHuma(status, msg, errs...)
	}
}

// writeError answers with err from outside huma's handlers (middleware and
// the mux's fallback).
func writeError(w http.ResponseWriter, err *Error) {
	for k, v := range err.headers {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(err.status)
	_ = json.NewEncoder(w).Encode(err)
}

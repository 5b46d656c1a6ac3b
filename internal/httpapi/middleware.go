package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/store"
)

// requestInfo is filled in as a request passes the layers and read by the
// access log when it is done.
type requestInfo struct {
	id        string
	keyPrefix string
	accountID string
}

type requestInfoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// statusRecorder remembers what was written for the access log and metrics.
// It also keeps the write timeout (armWrite).
type statusRecorder struct {
	http.ResponseWriter
	status       int
	bytes        int
	writeTimeout time.Duration
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
		r.armWrite()
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
		r.armWrite()
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// observe gives every request an id (echoing a well-formed x-request-id),
// recovers panics as 500s, writes one access-log line and records metrics.
func observe(log *slog.Logger, m *metrics, now func() time.Time, writeTimeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := now()
		ri := &requestInfo{id: r.Header.Get("x-request-id")}
		if !requestIDPattern.MatchString(ri.id) {
			ri.id = ident.New()
		}
		w.Header().Set("x-request-id", ri.id)
		rec := &statusRecorder{ResponseWriter: w, writeTimeout: writeTimeout}
		r = r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, ri))
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.Error("panic", "request_id", ri.id, "panic", p, "stack", string(debug.Stack()))
				if rec.status == 0 {
					writeError(rec, internalError())
				}
			}
			elapsed := now().Sub(start)
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			m.observe(r.Method, route, rec.status, elapsed)
			path, tokenHash := redactHookToken(r.URL.Path)
			attrs := []any{"request_id", ri.id, "method", r.Method, "path", path, "route", route,
				"status", rec.status, "bytes", rec.bytes, "duration_ms", float64(elapsed.Microseconds()) / 1000,
				"key", ri.keyPrefix, "account_id", ri.accountID, "remote", r.RemoteAddr}
			if tokenHash != "" {
				attrs = append(attrs, "token_sha256", tokenHash)
			}
			log.Info("request", attrs...)
		}()
		next.ServeHTTP(rec, r)
	})
}

// Metadata keys by which routes declare what they need.
const (
	metaAuth       = "auth"       // bool: a valid key is required
	metaPermission = "permission" // auth.Permission the key must carry
	metaFeature    = "feature"    // auth.Feature the account's plan must include
)

type principalKey struct{}

// principalFrom returns the caller authenticated by the auth middleware.
func principalFrom(ctx context.Context) auth.Principal {
	p, _ := ctx.Value(principalKey{}).(auth.Principal)
	return p
}

// authenticate enforces each route's declared key, permission and plan, then
// counts the request against the key's rate limit.
func (s *Server) authenticate(ctx huma.Context, next func(huma.Context)) {
	meta := ctx.Operation().Metadata
	if required, _ := meta[metaAuth].(bool); !required {
		next(ctx)
		return
	}
	// A request the web console makes on behalf of its session carries the
	// principal the console authenticated (WithPrincipal): it is checked
	// below like any other, from the permission on.
	p, signedIn := ctx.Context().Value(principalKey{}).(auth.Principal)
	if signedIn {
		ri := infoFrom(ctx.Context())
		ri.keyPrefix, ri.accountID = p.Key.Prefix, p.Account.ID
		s.authorize(ctx, p, next)
		return
	}
	secret := ctx.Header("x-api-key")
	if secret == "" {
		s.writeHumaError(ctx, NewAPIError(http.StatusUnauthorized, CodeAuthRequired, auth.MessageKeyRequired,
			Detail{Field: "header.x-api-key", Message: "is required"}).
			WithSuggestion("Send your API key in the x-api-key header."))
		return
	}
	p, err := s.store.Authenticate(ctx.Context(), auth.HashSecret(secret))
	if errors.Is(err, store.ErrNotFound) {
		s.writeHumaError(ctx, NewAPIError(http.StatusUnauthorized, CodeInvalidAPIKey, auth.MessageKeyUnknown,
			Detail{Field: "header.x-api-key", Message: "is unknown or revoked"}).
			WithSuggestion("Create a new key with `trawl keys create`."))
		return
	}
	if err != nil {
		s.log.Error("authenticate", "error", err)
		s.writeHumaError(ctx, internalError())
		return
	}
	if p.Key.Expired(s.now()) {
		s.writeHumaError(ctx, NewAPIError(http.StatusUnauthorized, CodeInvalidAPIKey, auth.MessageKeyExpired(*p.Key.ExpiresAt),
			Detail{Field: "header.x-api-key", Message: "expired at " + formatTime(*p.Key.ExpiresAt)}).
			WithSuggestion("Create a new key with `trawl keys create`."))
		return
	}
	ri := infoFrom(ctx.Context())
	ri.keyPrefix, ri.accountID = p.Key.Prefix, p.Account.ID
	s.authorize(ctx, p, next)
}

// WithPrincipal is ctx carrying a principal authenticated outside the API
// (the web console's session): a request with it skips the x-api-key
// lookup and meets the route's permission, plan and rate limit as the key.
func WithPrincipal(ctx context.Context, p auth.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// authorize is authenticate after the key is known: the rate limit, the
// route's permission and plan, then the route.
func (s *Server) authorize(ctx huma.Context, p auth.Principal, next func(huma.Context)) {
	meta := ctx.Operation().Metadata
	if !s.allowRequest(ctx, p) {
		return
	}
	if perm, ok := meta[metaPermission].(auth.Permission); ok && !p.Key.Has(perm) {
		s.writeHumaError(ctx, forbidden(auth.MessageLacks(perm), []auth.Permission{perm},
			Detail{Field: "header.x-api-key", Message: "lacks permission " + string(perm)}).
			WithSuggestion("Use a key created with this permission, or with '*'."))
		return
	}
	if feature, ok := meta[metaFeature].(auth.Feature); ok && !p.Account.Plan.Allows(feature) {
		s.writeHumaError(ctx, planRequired(p.Account.Plan, feature))
		return
	}
	if err := s.store.TouchKey(ctx.Context(), p.Key.ID); err != nil {
		s.log.Warn("record key use", "error", err, "key", p.Key.Prefix)
	}
	next(huma.WithValue(ctx, principalKey{}, p))
}

// forbidden is a 403 FORBIDDEN whose details name the permissions the key
// lacks, and the fields (or steps) that need them.
func forbidden(msg string, missing []auth.Permission, fields ...Detail) *Error {
	e := NewAPIError(http.StatusForbidden, CodeForbidden, msg, fields...)
	d := e.More()
	for _, p := range missing {
		if !slices.Contains(d.Permissions, string(p)) {
			d.Permissions = append(d.Permissions, string(p))
		}
	}
	if len(d.Permissions) > 0 {
		d.Permission = d.Permissions[0]
	}
	return e
}

// planRequired is a 403 PLAN_REQUIRED whose details name the account's
// plan, the feature and the plans that include it.
func planRequired(plan auth.Plan, f auth.Feature) *Error {
	var with []string
	for _, p := range auth.Plans() {
		if p.Allows(f) {
			with = append(with, string(p))
		}
	}
	e := NewAPIError(http.StatusForbidden, CodePlanRequired,
		"The "+string(plan)+" plan does not include "+string(f)+"; it needs "+strings.Join(with, " or ")+".").
		WithSuggestion("Upgrade the account to the " + strings.Join(with, " or ") + " plan.")
	d := e.More()
	d.Plan, d.Feature, d.Plans = string(plan), string(f), with
	return e
}

// allowRequest applies the fixed-window rate limit of the key's plan and sets
// the RateLimit-* headers. It answers 429 itself and returns false when the
// window is used up.
func (s *Server) allowRequest(ctx huma.Context, p auth.Principal) bool {
	now := s.now()
	window := now.Truncate(rateWindow)
	limit := int64(s.cfg.RateLimit(p.Account.Plan))
	hits, err := s.store.HitRateLimit(ctx.Context(), p.Key.ID, window)
	if err != nil {
		// A counter failure must not take the API down with it.
		s.log.Error("rate limit", "error", err)
		return true
	}
	reset := int64(window.Add(rateWindow).Sub(now).Seconds() + 0.999)
	ctx.SetHeader("RateLimit-Limit", strconv.FormatInt(limit, 10))
	ctx.SetHeader("RateLimit-Remaining", strconv.FormatInt(max(limit-hits, 0), 10))
	ctx.SetHeader("RateLimit-Reset", strconv.FormatInt(reset, 10))
	if hits <= limit {
		return true
	}
	s.writeHumaError(ctx, NewAPIError(http.StatusTooManyRequests, CodeRateLimited,
		"The API key made more than "+strconv.FormatInt(limit, 10)+" requests in a minute.").
		WithSuggestion("Wait for the number of seconds in Retry-After.").
		RetryAfter(reset))
	return false
}

const rateWindow = time.Minute

func (s *Server) writeHumaError(ctx huma.Context, err *Error) {
	for k, vs := range err.headers {
		for _, v := range vs {
			ctx.SetHeader(k, v)
		}
	}
	ctx.SetHeader("Content-Type", "application/json")
	ctx.SetStatus(err.status)
	if err := s.api.Marshal(ctx.BodyWriter(), "application/json", err); err != nil {
		s.log.Error("write error body", "error", err)
	}
}

// jsonBodies treats every request body as JSON, as the spec says all bodies
// are: a body sent without a content type, or with curl's default form
// type, is read as JSON instead of refused.
func jsonBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("Content-Type"); r.ContentLength != 0 && (ct == "" || strings.HasPrefix(ct, "application/x-www-form-urlencoded")) {
			r.Header.Set("Content-Type", "application/json")
		}
		next.ServeHTTP(w, r)
	})
}

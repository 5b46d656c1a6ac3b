package httpapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store"
)

var errBadTimestamp = errors.New("must be an ISO 8601 timestamp such as 2026-11-01T00:00:00Z")

// fail maps an error from below the HTTP layer to the error model. It is the
// one place where domain errors become statuses; anything unexpected is
// logged with the request id and answered as a bare 500.
func (s *Server) fail(ctx context.Context, err error) error {
	var (
		own         *Error
		quota       *store.LimitError
		rateLimited *source.RateLimitError
		upstream    *source.UpstreamError
		unsupported *pronet.UnsupportedError
	)
	switch {
	case errors.As(err, &own):
		return own
	case errors.Is(err, store.ErrNotFound):
		return notFound("The resource")
	case errors.Is(err, source.ErrNotFound):
		return NewAPIError(http.StatusNotFound, CodeNotFound, "The upstream platform has no such profile, company or post.")
	case errors.As(err, &quota):
		plan := principalFrom(ctx).Account.Plan
		e := NewAPIError(http.StatusConflict, CodeConflict,
			fmt.Sprintf("The account has %d saved searches, the most the %s plan allows (%d); nothing was created or charged.", quota.Used, plan, quota.Limit)).
			WithSuggestion("Delete a saved search you no longer need, or ask the operator to raise TRAWL_SEARCH_LIMIT_" + string(plan) + ".")
		d := e.More()
		d.Plan, d.Limit, d.Used = string(plan), &quota.Limit, &quota.Used
		return e
	case errors.Is(err, store.ErrConflict):
		return NewAPIError(http.StatusConflict, CodeConflict, "The request conflicts with the current state of the resource.")
	case errors.Is(err, credits.ErrInsufficient):
		e := NewAPIError(http.StatusForbidden, CodeInsufficientCredits, "The account does not have enough credits left this month.").
			WithSuggestion("Wait for the next billing month or raise the account's monthly credits.")
		var short *credits.ShortError
		if errors.As(err, &short) {
			e.More().Needed, e.More().Available = &short.Needed, &short.Available
			e.Message = fmt.Sprintf("The account does not have enough credits left this month: the request needs %d, %d are left.", short.Needed, short.Available)
			e.Info.Message = e.Message
		}
		return e
	case errors.As(err, &unsupported):
		return NewAPIError(http.StatusUnprocessableEntity, CodeProviderUnsupported,
			fmt.Sprintf("The pronet provider %s does not support %s; nothing was charged.", unsupported.Provider, unsupported.What)).
			WithSuggestion("Leave that filter out, or run Trawl with a pronet provider that supports it (TRAWL_PRONET_PROVIDER, docs/providers.md).")
	case errors.As(err, &rateLimited):
		wait := max(int64(math.Ceil(rateLimited.RetryAfter(s.now()).Seconds())), 1)
		s.log.Warn("upstream rate limited", "request_id", infoFrom(ctx).id, "error", err)
		return NewAPIError(http.StatusTooManyRequests, CodeRateLimited, "The "+rateLimited.Source+" upstream is rate limiting the service; nothing was charged.").
			WithSuggestion("Wait for the number of seconds in Retry-After and send the request again.").
			RetryAfter(wait)
	case errors.As(err, &upstream), errors.Is(err, context.DeadlineExceeded):
		src := "upstream"
		if upstream != nil {
			src = upstream.Source
		}
		s.log.Warn("upstream failed", "request_id", infoFrom(ctx).id, "error", err)
		return NewAPIError(http.StatusBadGateway, CodeUpstream, "The "+src+" upstream failed to answer; nothing was charged.").
			WithSuggestion("Try again later; if it keeps failing, report the x-request-id header to the operator.")
	case errors.Is(err, context.Canceled):
		return NewAPIError(499, CodeBadRequest, "The request was cancelled.")
	}
	s.log.Error("request failed", "request_id", infoFrom(ctx).id, "error", err)
	return internalError()
}

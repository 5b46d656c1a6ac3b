package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
)

var errBadTimestamp = errors.New("must be an ISO 8601 timestamp such as 2026-11-01T00:00:00Z")

// fail maps an error from below the HTTP layer to the error model. It is the
// one place where domain errors become statuses; anything unexpected is
// logged with the request id and answered as a bare 500.
func (s *Server) fail(ctx context.Context, err error) error {
	var own *Error
	switch {
	case errors.As(err, &own):
		return own
	case errors.Is(err, store.ErrNotFound):
		return notFound("The resource")
	case errors.Is(err, store.ErrConflict):
		return NewAPIError(http.StatusConflict, CodeConflict, "The request conflicts with the current state of the resource.")
	case errors.Is(err, credits.ErrInsufficient):
		return NewAPIError(http.StatusForbidden, CodeInsufficientCredits, "The account does not have enough credits left this month.").
			WithSuggestion("Wait for the next billing month or raise the account's monthly credits.")
	case errors.Is(err, context.Canceled):
		return NewAPIError(499, CodeBadRequest, "The request was cancelled.")
	}
	s.log.Error("request failed", "request_id", infoFrom(ctx).id, "error", err)
	return internalError()
}

package action

import (
	"context"
	"errors"

	"github.com/trawlhq/trawl/internal/integration"
)

// Failure codes of steps that act through a connection.
const (
	// CodeNotConnected: the account has no connection of the step's type.
	CodeNotConnected = "NOT_CONNECTED"
	// CodeRejected: the service refused the connection's credential.
	CodeRejected = "CONNECTION_REJECTED"
)

// connection opens the account's connection of type typ for a step.
func connection(ctx context.Context, call Call, typ string) (*integration.Conn, error) {
	if call.Connection == nil {
		return nil, failf(CodeNotConnected, false, "connections are not available here")
	}
	c, err := call.Connection(ctx, typ)
	if errors.Is(err, integration.ErrNotConnected) {
		t, _ := integration.Lookup(typ)
		name := typ
		if t != nil {
			name = t.DisplayName
		}
		return nil, failf(CodeNotConnected, false, "the account has not connected %s (POST /v1/integrations/%s)", name, typ)
	}
	if err != nil {
		return nil, failf(CodeUpstream, true, "opening the %s connection: %v", typ, err)
	}
	return c, nil
}

// serviceFailure gives a service's refusal the shape of the execution
// log: a rejected credential, a request the service finds invalid (4xx,
// never retried), or a retryable 429/5xx carrying the service's
// Retry-After.
func serviceFailure(err error) error {
	var e *integration.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e) && e.Status == 0:
		return dialError(errors.Unwrap(e))
	case errors.As(err, &e) && errors.Is(err, integration.ErrRejected):
		return &Error{Code: CodeRejected, Message: e.Error()}
	case errors.As(err, &e) && e.Status == 404:
		return &Error{Code: CodeNotFound, Message: e.Error()}
	case errors.As(err, &e):
		return &Error{Code: CodeUpstream, Message: e.Error(), Retryable: e.Retryable(), RetryAfter: e.RetryAfter}
	}
	return AsError(err)
}

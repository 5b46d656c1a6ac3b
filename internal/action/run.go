package action

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/netguard"
)

// Call is one attempt of one step, with its inputs resolved.
type Call struct {
	AccountID string
	// Inputs are the step's inputs with templates evaluated.
	Inputs map[string]any
	// IdempotencyKey is stable per (execution, step, loop item): a retried
	// or resumed step sends the same key.
	IdempotencyKey string
	// Secret opens an account secret by name.
	Secret func(ctx context.Context, name string) (string, error)
	// Connection opens the account's connection of a type (hubspot); an
	// error wrapping integration.ErrNotConnected when it has none.
	Connection func(ctx context.Context, typ string) (*integration.Conn, error)
}

// Executor runs one action kind. Its output is a JSON value (a map for
// every kind of this package).
type Executor func(ctx context.Context, call Call) (map[string]any, error)

// Error is an action failure with a stable code for the execution log.
type Error struct {
	Code    string
	Message string
	// Retryable failures are tried again under the step's retry policy.
	Retryable bool
	// RetryAfter is the least wait before the next attempt that the
	// service asked for (0: the policy's backoff).
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Failure codes of actions.
const (
	CodeInvalidInput = "INVALID_INPUT"
	CodeUpstream     = "UPSTREAM_ERROR"
	CodeTimeout      = "TIMEOUT"
	CodeBlocked      = "ADDRESS_BLOCKED"
	CodeSecret       = "SECRET_MISSING"
	CodeNotFound     = "NOT_FOUND"
)

func failf(code string, retryable bool, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: retryable}
}

// AsError gives any executor error the shape of the execution log:
// deadlines become TIMEOUT, anything unknown a retryable UPSTREAM_ERROR.
func AsError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.DeadlineExceeded):
		return failf(CodeTimeout, true, "the step ran out of time")
	}
	return failf(CodeUpstream, true, "%v", err)
}

// Deps are what executors use to reach the outside world.
type Deps struct {
	// HTTP sends requests whose address a user's definition controls; it
	// must refuse private networks (netguard).
	HTTP *http.Client
	// Dial opens the TCP connections of SMTP; like HTTP it must be
	// netguard's (Options.Dialer().DialContext).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// SlackAPIURL is the base of Slack's Web API; "" means
	// https://slack.com/api (tests point it at a local server).
	SlackAPIURL string
}

// withDefaults fills what the caller left out with the guard without
// exceptions, so a missing dependency can never mean an unguarded one.
func (d Deps) withDefaults() Deps {
	if d.HTTP == nil {
		d.HTTP = netguard.NewClient(netguard.Options{})
	}
	if d.Dial == nil {
		d.Dial = netguard.Options{}.Dialer().DialContext
	}
	if d.SlackAPIURL == "" {
		d.SlackAPIURL = "https://slack.com/api"
	}
	return d
}

// Executors returns the executor of every action kind that runs outside
// the engine (control-flow kinds are the engine's own).
func Executors(d Deps) map[string]Executor {
	d = d.withDefaults()
	out := map[string]Executor{
		KindHTTPRequest:  httpRequestRun(d),
		KindSlackMessage: slackRun(d),
		KindSendEmail:    sendEmailRun(d),
	}
	for _, s := range integrationSpecs() {
		out[s.Kind] = s.Run
	}
	return out
}

// inputString returns a string input ("" when absent).
func inputString(in map[string]any, name string) string {
	s, _ := in[name].(string)
	return s
}

// secretValue opens a secret; its failure names the secret, never a value.
func secretValue(ctx context.Context, call Call, name string) (string, error) {
	if call.Secret == nil {
		return "", failf(CodeSecret, false, "secret %q is not available", name)
	}
	v, err := call.Secret(ctx, name)
	if err != nil || v == "" {
		return "", failf(CodeSecret, false, "secret %q is missing", name)
	}
	return v, nil
}

// dialError classifies a failed connection or exchange. A *url.Error is
// unwrapped: its URL may be a secret (a Slack webhook).
func dialError(err error) *Error {
	var blocked *netguard.BlockedError
	var ue *url.Error
	switch {
	case errors.As(err, &blocked):
		return failf(CodeBlocked, false, "%v", blocked)
	case errors.Is(err, context.DeadlineExceeded):
		return failf(CodeTimeout, true, "the request ran out of time")
	case errors.Is(err, netguard.ErrTooManyRedirects):
		return failf(CodeUpstream, false, "more than %d redirects", netguard.MaxRedirects)
	case errors.As(err, &ue):
		err = ue.Err
	}
	return failf(CodeUpstream, true, "%v", err)
}

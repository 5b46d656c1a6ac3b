package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// Conn is one account's connection to a service, ready to call it: the
// credentials in clear, the service's base URL (the live service's, the
// sandbox's or the operator's) and the guarded HTTP client.
type Conn struct {
	Type    *Type
	Creds   Credentials
	BaseURL string
	HTTP    *http.Client
	Now     func() time.Time
	// Sleep waits before a retry (tests inject one that does not).
	Sleep func(ctx context.Context, d time.Duration) error
	// Save stores credentials the connection renewed (an OAuth access
	// token and its expiry); nil when nothing may be saved.
	Save func(ctx context.Context, creds Credentials) error
}

// Request is one call of a service's API.
type Request struct {
	Method string
	// Path is appended to the base URL ("/crm/v3/objects/contacts").
	Path  string
	Query url.Values
	// Body is sent as JSON when not nil.
	Body   any
	Header http.Header
}

// Error is a service's refusal, or no answer at all (Status 0).
type Error struct {
	Service string // HubSpot
	Status  int
	// Message is what the service said, from its error body.
	Message string
	// RetryAfter is the wait the service asked for (Retry-After), 0 when none.
	RetryAfter time.Duration
	err        error
}

func (e *Error) Error() string {
	switch {
	case e.Status == 0:
		return fmt.Sprintf("%s did not answer: %v", e.Service, e.err)
	case e.Status == http.StatusUnauthorized:
		return strings.TrimSuffix(fmt.Sprintf("%s: %v (401 %s", e.Service, ErrRejected, e.Message), " ") + ")"
	case e.Message == "":
		return fmt.Sprintf("%s answered %d", e.Service, e.Status)
	}
	return fmt.Sprintf("%s answered %d: %s", e.Service, e.Status, e.Message)
}

func (e *Error) Unwrap() error {
	if e.Status == http.StatusUnauthorized {
		return ErrRejected
	}
	return e.err
}

// Retryable says a later attempt may succeed: no answer, 429 or 5xx.
func (e *Error) Retryable() bool {
	return e.Status == 0 || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// Attempts bounds the tries of one call on 429 and 5xx answers; MaxRetryWait
// bounds one wait a service asks for (a longer one fails the call, and the
// step's own retry policy decides).
const (
	Attempts     = 3
	MaxRetryWait = 30 * time.Second
)

// maxAnswer bounds what is read of an answer.
const maxAnswer = 8 << 20

// Do calls the service with the type's authentication and decodes a 2xx
// JSON answer into out (when not nil). A 429 or 5xx answer, or none, is
// tried again up to Attempts times, after the service's Retry-After (or
// 0.5 s, 1 s) when it fits in MaxRetryWait and the context's deadline.
// Any other non-2xx answer is an *Error at once, except a 401 of a type
// that renews its credential (Type.Renew): renewed once, the attempt is
// made again (not counted against Attempts).
func (c *Conn) Do(ctx context.Context, r Request, out any) error {
	var raw []byte
	if r.Body != nil {
		var err error
		if raw, err = json.Marshal(r.Body); err != nil {
			return fmt.Errorf("%s: encode request: %w", c.Type.DisplayName, err)
		}
	}
	renewed := false
	for attempt := 1; ; attempt++ {
		body, err := c.once(ctx, r, raw)
		if err == nil {
			if out == nil || len(bytes.TrimSpace(body)) == 0 {
				return nil
			}
			if err := json.Unmarshal(body, out); err != nil {
				return &Error{Service: c.Type.DisplayName, Status: http.StatusBadGateway, Message: "answered something that is not its JSON: " + err.Error()}
			}
			return nil
		}
		var e *Error
		if errors.As(err, &e) && e.Status == http.StatusUnauthorized && c.Type.Renew != nil && !renewed {
			renewed = true
			ok, rerr := c.Type.Renew(ctx, c)
			if rerr != nil {
				return rerr
			}
			if ok {
				attempt--
				continue
			}
			return err
		}
		if !errors.As(err, &e) || !e.Retryable() || attempt >= Attempts || ctx.Err() != nil {
			return err
		}
		wait := e.RetryAfter
		if wait == 0 {
			wait = time.Duration(attempt) * 500 * time.Millisecond
		}
		if deadline, ok := ctx.Deadline(); wait > MaxRetryWait || ok && c.now().Add(wait).After(deadline) {
			return err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return err
		}
	}
}

// once sends one attempt and returns the answer's body when 2xx.
func (c *Conn) once(ctx context.Context, r Request, raw []byte) ([]byte, error) {
	u := strings.TrimSuffix(c.BaseURL, "/") + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	var body io.Reader
	if raw != nil {
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, cmpMethod(r.Method), u, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Type.DisplayName, err)
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "application/json")
	if raw != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Type.Authorize != nil {
		if err := c.Type.Authorize(ctx, c, req); err != nil {
			return nil, err
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its URL may carry a key in the query
			err = ue.Err
		}
		return nil, &Error{Service: c.Type.DisplayName, err: err}
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, &Error{Service: c.Type.DisplayName, err: fmt.Errorf("reading its answer: %w", err)}
	}
	if resp.StatusCode/100 == 2 {
		return answer, nil
	}
	e := &Error{Service: c.Type.DisplayName, Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header.Get("Retry-After"), c.now())}
	if e.RetryAfter == 0 && e.Status == http.StatusTooManyRequests {
		e.RetryAfter = c.Type.RateLimitWait
	}
	if c.Type.ErrorMessage != nil {
		e.Message = c.Type.ErrorMessage(answer)
	}
	return nil, e
}

func cmpMethod(m string) string {
	if m == "" {
		return http.MethodGet
	}
	return m
}

func (c *Conn) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

func (c *Conn) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	return source.SleepContext(ctx, d)
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 && s < 1e6 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// ErrNotConnected means the account has no connection of the type.
var ErrNotConnected = errors.New("not connected")

// Connector opens an account's connections. Load and Save reach the
// store (sealed credentials); URLs override the live services' base URLs
// by type (the sandbox's, or an operator's proxy).
type Connector struct {
	HTTP  *http.Client
	URLs  map[string]string
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Load returns the account's credentials of the type, or an error
	// wrapping ErrNotConnected.
	Load func(ctx context.Context, accountID, typ string) (Credentials, error)
	Save func(ctx context.Context, accountID, typ string, creds Credentials) error
}

// URL is where the type's service is reached with creds: the connector's
// URL for the type, else the one the credential names, else the live
// service's.
func (k *Connector) URL(t *Type, creds Credentials) string {
	if u := k.URLs[t.Name]; u != "" {
		return u
	}
	if t.CredentialURL != nil {
		if u := t.CredentialURL(creds); u != "" {
			return u
		}
	}
	return t.DefaultURL
}

// Open returns the account's connection of type typ.
func (k *Connector) Open(ctx context.Context, accountID, typ string) (*Conn, error) {
	t, ok := Lookup(typ)
	if !ok {
		return nil, fmt.Errorf("integration: no type %q", typ)
	}
	creds, err := k.Load(ctx, accountID, typ)
	if err != nil {
		return nil, err
	}
	return k.Conn(t, creds, accountID), nil
}

// Conn wraps creds of the account (which may have none yet, as when a
// credential is probed before it is stored) in a connection.
func (k *Connector) Conn(t *Type, creds Credentials, accountID string) *Conn {
	c := &Conn{Type: t, Creds: creds, BaseURL: k.URL(t, creds), HTTP: k.HTTP, Now: k.Now, Sleep: k.Sleep}
	if k.Save != nil && accountID != "" {
		c.Save = func(ctx context.Context, creds Credentials) error { return k.Save(ctx, accountID, t.Name, creds) }
	}
	return c
}

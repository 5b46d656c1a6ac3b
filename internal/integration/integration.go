// Package integration is the registry of the services an account connects
// to (CRMs, spreadsheets, outreach tools): each connection type declares its
// name, the credential fields it takes with their rules, and a probe that
// asks the live service whether a credential works. Types are added one
// file each (hubspot.go), registered in init.
package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/trawlhq/trawl/internal/secret"
)

// Sources say how a connection's credential was obtained.
const (
	// SourceAPIKey is a key or token pasted by the user (HubSpot's private-app token).
	SourceAPIKey = "api_key"
)

// Field is one credential a type takes.
type Field struct {
	// Name is the key in the request's credentials object (access_token).
	Name string
	// Doc says where the user finds it.
	Doc      string
	Required bool
	// MaxLen bounds the value, in bytes; 0 is 4096.
	MaxLen int
	// Multiline lets the value hold line breaks and tabs (a pasted JSON
	// key file); other control characters are still refused.
	Multiline bool
	// Check, when set, judges a present value's content and returns what
	// is wrong with it ("" when nothing); its message must not echo it.
	Check func(value string) string
}

// Credentials are a connection's fields by name, in clear: they exist only
// on the request that stores them and on the probe or action that uses
// them.
type Credentials map[string]string

// FieldError is one invalid credential field.
type FieldError struct {
	Field   string // the credential's name (access_token)
	Message string
}

// ProbeFunc asks the live service whether the connection's credentials
// work; nil when they do. A credential the service refuses is an error
// wrapping ErrRejected.
type ProbeFunc func(ctx context.Context, c *Conn) error

// ErrRejected means the service refused the credential (HTTP 401).
var ErrRejected = errors.New("token rejected")

// LookupFunc answers one lookup that builds workflows (a CRM's fields, a
// base's tables) from the live service; params are the request's query
// and path parameters. A bad parameter is a *ParamError.
type LookupFunc func(ctx context.Context, c *Conn, params url.Values) (any, error)

// ParamError is a lookup parameter the caller must fix.
type ParamError struct {
	Param   string // the query or path parameter's name
	Message string
}

func (e *ParamError) Error() string { return e.Param + " " + e.Message }

// Type is a kind of connection.
type Type struct {
	Name        string // hubspot
	DisplayName string // HubSpot
	// Source is how its credential is obtained (SourceAPIKey).
	Source string
	Fields []Field
	// DefaultURL is the live service's API base URL.
	DefaultURL string
	// CredentialURL, when set, is the base URL a credential names (a
	// Salesforce instance), used instead of DefaultURL unless the
	// connector overrides the type (the sandbox).
	CredentialURL func(creds Credentials) string
	Probe         ProbeFunc
	// Authorize adds the credential to a request (a bearer token, a key
	// header or query parameter), renewing it first when it expires.
	Authorize func(ctx context.Context, c *Conn, req *http.Request) error
	// Renew, when set, renews the credential after the service answered
	// 401 (an OAuth access token it expired early): Conn.Do calls it once
	// per call and repeats the attempt when it says it renewed (true). It
	// keeps the new credential in c.Creds and stores it with c.Save.
	Renew func(ctx context.Context, c *Conn) (bool, error)
	// ErrorMessage reads what the service said from an error answer's
	// body ("" when it said nothing readable).
	ErrorMessage func(body []byte) string
	// RateLimitWait is the wait the service documents after a 429 it
	// sends without Retry-After (Airtable: 30 s); 0 when it always says.
	RateLimitWait time.Duration
	// Lookups are the type's lookups by name (crm-fields, channels).
	Lookups map[string]LookupFunc
	// Check, when set, adds the type's own rules on well-formed fields (a
	// Slack bot token starts with xoxb-); Validate calls it only when the
	// generic rules found nothing, and its messages never echo a value.
	Check func(creds Credentials) []FieldError
}

// Validate lists every problem of creds: a required field missing or
// blank, a value too long or holding control characters, a field the type
// does not take. Messages never echo a value.
func (t *Type) Validate(creds Credentials) []FieldError {
	var out []FieldError
	for _, f := range t.Fields {
		v, ok := creds[f.Name]
		max := f.MaxLen
		if max == 0 {
			max = 4096
		}
		switch {
		case !ok || strings.TrimSpace(v) == "":
			if f.Required {
				out = append(out, FieldError{f.Name, "is required: " + f.Doc})
			}
		case len(v) > max:
			out = append(out, FieldError{f.Name, fmt.Sprintf("must be at most %d bytes", max)})
		case strings.ContainsFunc(v, func(r rune) bool {
			return (r < 0x20 || r == 0x7f) && !(f.Multiline && (r == '\n' || r == '\r' || r == '\t'))
		}):
			out = append(out, FieldError{f.Name, "must not contain control characters or line breaks"})
		case f.Check != nil:
			if msg := f.Check(v); msg != "" {
				out = append(out, FieldError{f.Name, msg})
			}
		}
	}
	extra := make([]string, 0)
	for k := range creds {
		if !slices.ContainsFunc(t.Fields, func(f Field) bool { return f.Name == k }) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		out = append(out, FieldError{k, fmt.Sprintf("is not a %s credential; it takes %s", t.DisplayName, strings.Join(t.FieldNames(), ", "))})
	}
	if len(out) == 0 && t.Check != nil {
		out = t.Check(creds)
	}
	return out
}

// FieldNames are the names of the type's credential fields.
func (t *Type) FieldNames() []string {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	return names
}

var (
	mu    sync.RWMutex
	types = map[string]*Type{}
)

// Register adds a type; it panics on a duplicate or incomplete one (a
// programming error, found at start).
func Register(t *Type) {
	if t.Name == "" || t.DisplayName == "" || t.Source == "" || len(t.Fields) == 0 || t.Probe == nil {
		panic("integration: incomplete type " + t.Name)
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := types[t.Name]; dup {
		panic("integration: type " + t.Name + " registered twice")
	}
	types[t.Name] = t
}

// Lookup returns the type of that name (lower case).
func Lookup(name string) (*Type, bool) {
	mu.RLock()
	defer mu.RUnlock()
	t, ok := types[name]
	return t, ok
}

// Types are every registered type, by name.
func Types() []*Type {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Type, 0, len(types))
	for _, t := range types {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Type) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names are the registered types' names, sorted.
func Names() []string {
	ts := Types()
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// Seal encrypts creds for the account's connection of type typ, bound to
// both (secret.IntegrationContext), as account secrets are sealed.
func Seal(box *secret.Box, creds Credentials, accountID, typ string) ([]byte, error) {
	plain, err := json.Marshal(creds)
	if err != nil {
		return nil, fmt.Errorf("integration: seal: %w", err)
	}
	return box.Seal(plain, secret.IntegrationContext(accountID, typ)), nil
}

// Open decrypts what Seal made for the same account and type.
func Open(box *secret.Box, sealed []byte, accountID, typ string) (Credentials, error) {
	plain, err := box.Open(sealed, secret.IntegrationContext(accountID, typ))
	if err != nil {
		return nil, err
	}
	var c Credentials
	if err := json.Unmarshal(plain, &c); err != nil {
		return nil, fmt.Errorf("integration: open: %w", err)
	}
	return c, nil
}

package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Campaign is one campaign (or, on HeyReach, one lead list) of an outreach
// tool, as the campaigns lookup answers it.
type Campaign struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
	// Kind is "campaign" or "list" (HeyReach only, where both take leads).
	Kind string `json:"kind,omitempty"`
}

// maxCampaignPages bounds the pages a campaigns lookup reads, so a service
// that never ends its paging cannot hold a request forever.
const maxCampaignPages = 20

// HeaderAuth sends the credential field in a header (HeyReach's X-API-KEY).
func HeaderAuth(header, field string) func(ctx context.Context, c *Conn, req *http.Request) error {
	return func(_ context.Context, c *Conn, req *http.Request) error {
		req.Header.Set(header, c.Creds[field])
		return nil
	}
}

// QueryAuth sends the credential field as a query parameter (Smartlead's
// api_key). Conn.Do strips the URL from transport errors; error messages
// built from answers never include the request's URL.
func QueryAuth(param, field string) func(ctx context.Context, c *Conn, req *http.Request) error {
	return func(_ context.Context, c *Conn, req *http.Request) error {
		q := req.URL.Query()
		q.Set(param, c.Creds[field])
		req.URL.RawQuery = q.Encode()
		return nil
	}
}

// BasicPasswordAuth sends the credential field as the password of HTTP
// Basic auth with an empty user (lemlist's API key).
func BasicPasswordAuth(field string) func(ctx context.Context, c *Conn, req *http.Request) error {
	return func(_ context.Context, c *Conn, req *http.Request) error {
		req.SetBasicAuth("", c.Creds[field])
		return nil
	}
}

// outreachErrorMessage reads an outreach tool's error answer: a JSON
// object with message, error, errorMessage or detail (whichever the
// service uses), or a short plain-text body (lemlist answers text). It is
// at most 300 bytes of valid UTF-8, never a credential: the services do
// not echo keys in their bodies, and nothing here adds the request's URL.
func outreachErrorMessage(body []byte) string {
	text := strings.TrimSpace(string(body))
	if text == "" {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(body, &m) == nil {
		for _, k := range []string{"message", "errorMessage", "error", "detail", "msg"} {
			if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
				return clip(strings.TrimSpace(s))
			}
		}
		return ""
	}
	if text[0] == '<' { // an HTML error page says nothing readable
		return ""
	}
	return clip(text)
}

// clip bounds s to 300 bytes without cutting a rune, on one line.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= 300 {
		return strings.ToValidUTF8(s, "")
	}
	s = s[:300]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

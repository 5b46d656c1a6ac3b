package console

import (
	"net/http"
	"strings"

	"github.com/trawlhq/trawl/internal/auth"
)

// keyPermissions lists the key's permissions, the wildcard as every one.
func keyPermissions(k auth.Key) []string {
	var out []string
	for _, p := range auth.Permissions() {
		if k.Has(p) {
			out = append(out, string(p))
		}
	}
	return out
}

// lacks is the message of a page or figure the key may not read: the
// API's words for the same refusal.
func lacks(p auth.Permission) string { return auth.MessageLacks(p) }

// need answers 403 with the permission's message when the key lacks it.
func (c *Console) need(w http.ResponseWriter, r *http.Request, s session, p auth.Permission) bool {
	if s.p.Key.Has(p) {
		return true
	}
	c.message(w, r, http.StatusForbidden, "Not allowed", lacks(p))
	return false
}

// splitList is a list input's items (topics, leads): split on commas and newlines, each
// trimmed; the empty pieces a trailing comma or blank line leaves go.
func splitList(values ...string) []string {
	var out []string
	for _, v := range values {
		for _, item := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

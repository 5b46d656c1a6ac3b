package enrich

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidWebsite is wrapped by ParseWebsite's errors.
var ErrInvalidWebsite = errors.New("not a website domain")

// ParseWebsite returns the domain of a company website given as a bare domain ("acme.io"),
// or as an http(s) URL ("https://www.acme.io/about"): lower case, without "www.", a port, a
// path, a query or a fragment. A domain has at least two labels of 1-63 letters, digits or
// inner hyphens, a top-level label of letters, and at most 253 characters.
func ParseWebsite(raw string) (string, error) {
	fail := func(why string) (string, error) {
		return "", fmt.Errorf("enrich: website %q: %s: %w", raw, why, ErrInvalidWebsite)
	}
	s := strings.TrimSpace(raw)
	if i := strings.Index(s, "://"); i >= 0 {
		scheme := strings.ToLower(s[:i])
		if scheme != "http" && scheme != "https" {
			return fail("scheme must be http or https")
		}
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if strings.ContainsAny(s, "@:") {
		return fail("credentials and ports are not part of a domain")
	}
	s = strings.TrimSuffix(strings.ToLower(s), ".")
	for strings.HasPrefix(s, "www.") {
		s = s[len("www."):]
	}
	if len(s) == 0 || len(s) > 253 {
		return fail("length")
	}
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return fail("a domain has a top-level label")
	}
	for _, l := range labels {
		if !domainLabel(l) {
			return fail("bad label")
		}
	}
	tld := labels[len(labels)-1]
	for i := 0; i < len(tld); i++ {
		if tld[i] < 'a' || tld[i] > 'z' {
			return fail("top-level label must be letters")
		}
	}
	if len(tld) < 2 {
		return fail("top-level label too short")
	}
	return s, nil
}

func domainLabel(l string) bool {
	if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

package microblog

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrInvalidProfileURL is wrapped by ParseProfileURL for anything that is not an account URL.
var ErrInvalidProfileURL = errors.New("not a microblog profile URL")

// DefaultHosts returns the platform's two host names, accepted when ParseProfileURL gets none;
// www. and mobile. variants of them are accepted too.
func DefaultHosts() []string { return []string{"x.com", "twitter.com"} }

// reserved reports whether a first path segment is a page of the site rather than an account.
func reserved(name string) bool {
	switch strings.ToLower(name) {
	case "i", "home", "search", "explore", "notifications", "messages", "settings", "hashtag", "intent",
		"share", "login", "logout", "signup", "tos", "privacy", "compose", "about", "account", "jobs",
		"lists", "topics", "communities", "premium_sign_up":
		return true
	}
	return false
}

// ParseProfileURL returns the username of an account URL such as https://x.com/jack,
// twitter.com/jack/ or https://mobile.twitter.com/jack?lang=en. hosts replaces the default
// host list (x.com, twitter.com); www. and mobile. prefixes of a listed host are accepted.
func ParseProfileURL(raw string, hosts []string) (string, error) {
	fail := func(why string) (string, error) {
		return "", fmt.Errorf("microblog: profile url %q: %s: %w", raw, why, ErrInvalidProfileURL)
	}
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return fail("does not parse")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fail("scheme must be http or https")
	}
	if u.User != nil || u.Port() != "" {
		return fail("unexpected user or port")
	}
	if len(hosts) == 0 {
		hosts = DefaultHosts()
	}
	if !hostAllowed(strings.ToLower(u.Hostname()), hosts) {
		return fail("host is not " + strings.Join(hosts, " or "))
	}
	// The escaped path: a username never needs escaping, so any % is not an account.
	name, ok := strings.CutPrefix(u.EscapedPath(), "/")
	if !ok {
		return fail("no username")
	}
	name = strings.TrimSuffix(name, "/")
	if strings.Contains(name, "/") {
		return fail("not a profile page")
	}
	if reserved(name) {
		return fail("a site page, not an account")
	}
	if !validUsername(name) {
		return fail("username must be 1-15 letters, digits or underscores")
	}
	return name, nil
}

func hostAllowed(host string, hosts []string) bool {
	for _, h := range hosts {
		h = strings.ToLower(h)
		if host == h || host == "www."+h || host == "mobile."+h {
			return true
		}
	}
	return false
}

// validUsername reports whether s is 1-15 of [A-Za-z0-9_].
func validUsername(s string) bool {
	if len(s) < 1 || len(s) > 15 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

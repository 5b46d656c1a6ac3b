package pronet

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Errors wrapped by the URL parsers.
var (
	ErrInvalidProfileURL = errors.New("not a pronet profile URL")
	ErrInvalidCompanyURL = errors.New("not a pronet company URL")
	ErrInvalidPostURN    = errors.New("not a pronet post URN, id or URL")
)

// DefaultHosts returns the platform's hosts. The www. form and two-letter country
// subdomains (de.linkedin.com) of a listed host without www. are accepted too.
func DefaultHosts() []string { return []string{"linkedin.com", "www.linkedin.com"} }

const maxSlugLen = 100

// ProfileURL is the canonical URL of a member profile.
func ProfileURL(username string) string {
	return "https://www.linkedin.com/in/" + url.PathEscape(username)
}

// CompanyURL is the canonical URL of a company page.
func CompanyURL(slug string) string {
	return "https://www.linkedin.com/company/" + url.PathEscape(slug)
}

// ParseProfileURL returns the public identifier of a profile URL
// (https://www.linkedin.com/in/<slug>[/], query and fragment ignored). hosts replaces DefaultHosts.
func ParseProfileURL(raw string, hosts []string) (string, error) {
	segs, err := pathOf(raw, hosts)
	if err != nil {
		return "", fmt.Errorf("pronet: profile url %q: %s: %w", raw, err, ErrInvalidProfileURL)
	}
	if len(segs) != 2 || segs[0] != "in" || !validSlug(segs[1]) {
		return "", fmt.Errorf("pronet: profile url %q: want /in/<name>: %w", raw, ErrInvalidProfileURL)
	}
	return segs[1], nil
}

// ParseCompanyURL returns the slug of a company page URL (/company/<slug>[/...]).
func ParseCompanyURL(raw string, hosts []string) (string, error) {
	segs, err := pathOf(raw, hosts)
	if err != nil {
		return "", fmt.Errorf("pronet: company url %q: %s: %w", raw, err, ErrInvalidCompanyURL)
	}
	if len(segs) < 2 || segs[0] != "company" || !validSlug(segs[1]) {
		return "", fmt.Errorf("pronet: company url %q: want /company/<name>: %w", raw, ErrInvalidCompanyURL)
	}
	return segs[1], nil
}

// ParsePostURN returns the numeric id of a post given as the bare id, as urn:li:activity:<id>
// or as a post URL (/posts/<slug>-activity-<id>-<suffix> or /feed/update/urn:li:activity:<id>).
func ParsePostURN(s string) (string, error) {
	fail := func(why string) (string, error) {
		return "", fmt.Errorf("pronet: post %q: %s: %w", s, why, ErrInvalidPostURN)
	}
	t := strings.TrimSpace(s)
	if isPostID(t) {
		return t, nil
	}
	if id, ok := strings.CutPrefix(t, "urn:li:activity:"); ok {
		if isPostID(id) {
			return id, nil
		}
		return fail("activity id must be digits")
	}
	segs, err := pathOf(t, DefaultHosts())
	if err != nil {
		return fail(err.Error())
	}
	switch {
	case len(segs) == 2 && segs[0] == "posts":
		// <slug>-activity-<id>-<suffix>; the slug itself may contain "-activity-".
		i := strings.LastIndex(segs[1], "-activity-")
		if i < 0 {
			return fail("post path has no activity id")
		}
		rest := segs[1][i+len("-activity-"):]
		id, _, _ := strings.Cut(rest, "-")
		if isPostID(id) {
			return id, nil
		}
		return fail("activity id must be digits")
	case len(segs) == 3 && segs[0] == "feed" && segs[1] == "update":
		if id, ok := strings.CutPrefix(segs[2], "urn:li:activity:"); ok && isPostID(id) {
			return id, nil
		}
		return fail("feed update is not an activity")
	}
	return fail("unknown form")
}

// pathOf checks scheme and host of raw and returns its decoded, non-empty path segments.
func pathOf(raw string, hosts []string) ([]string, error) {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, errors.New("does not parse")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, errors.New("scheme must be http or https")
	}
	if u.User != nil || u.Port() != "" {
		return nil, errors.New("unexpected user or port")
	}
	if len(hosts) == 0 {
		hosts = DefaultHosts()
	}
	if !hostAllowed(strings.ToLower(u.Hostname()), hosts) {
		return nil, errors.New("host is not " + strings.Join(hosts, " or "))
	}
	var segs []string
	for seg := range strings.SplitSeq(u.EscapedPath(), "/") {
		if seg == "" {
			continue
		}
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return nil, errors.New("bad escape in path")
		}
		segs = append(segs, dec)
	}
	return segs, nil
}

func hostAllowed(host string, hosts []string) bool {
	for _, h := range hosts {
		h = strings.ToLower(h)
		if host == h || host == "www."+h {
			return true
		}
		if strings.HasPrefix(h, "www.") {
			continue
		}
		if sub, ok := strings.CutSuffix(host, "."+h); ok && len(sub) == 2 && isLower(sub[0]) && isLower(sub[1]) {
			return true
		}
	}
	return false
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// validSlug accepts the platform's public identifiers: letters (any script), digits, - and _,
// 1-100 characters.
func validSlug(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > maxSlugLen || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// isPostID accepts 1-25 ASCII digits.
func isPostID(s string) bool {
	if s == "" || len(s) > 25 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Errors wrapped by the identifier parsers.
var (
	ErrInvalidMemberURN = errors.New("not a pronet member URN")
	ErrInvalidCompanyID = errors.New("not a pronet company id")
)

const memberURNPrefix = "urn:li:member:"

// profileURNPrefix is the vendors' person key (HarvestAPI, Apify): they give no numeric member
// ids, only LinkedIn's encoded profile ids (ACoAA…).
const profileURNPrefix = "urn:li:fsd_profile:"

// IsPersonURN reports whether urn names a person: a member URN (the contract's) or a profile URN
// (the vendors'). Company pages and empty URNs are not people.
func IsPersonURN(urn string) bool {
	for _, prefix := range []string{memberURNPrefix, profileURNPrefix} {
		if id, ok := strings.CutPrefix(urn, prefix); ok && id != "" {
			return true
		}
	}
	return false
}

// ParseMemberURN checks a member URN as POST /v1/profile/enrich returns it in pronet_urn
// (urn:li:member:<id>, the id 1-19 digits) and returns it canonical: the prefix in lower case,
// the id without leading zeros.
func ParseMemberURN(s string) (string, error) {
	t := strings.TrimSpace(s)
	if len(t) < len(memberURNPrefix) || !strings.EqualFold(t[:len(memberURNPrefix)], memberURNPrefix) {
		return "", fmt.Errorf("pronet: member %q: want urn:li:member:<id>: %w", s, ErrInvalidMemberURN)
	}
	id, ok := positiveID(t[len(memberURNPrefix):])
	if !ok {
		return "", fmt.Errorf("pronet: member %q: id must be 1-19 digits: %w", s, ErrInvalidMemberURN)
	}
	return memberURNPrefix + id, nil
}

// ParseCompanyID returns the numeric id of a company given bare (1-19 digits) or as
// urn:li:company:<id> or urn:li:organization:<id>, without leading zeros.
func ParseCompanyID(s string) (string, error) {
	t := strings.TrimSpace(s)
	for _, prefix := range []string{"urn:li:company:", "urn:li:organization:"} {
		if len(t) > len(prefix) && strings.EqualFold(t[:len(prefix)], prefix) {
			t = t[len(prefix):]
			break
		}
	}
	id, ok := positiveID(t)
	if !ok {
		return "", fmt.Errorf("pronet: company %q: want a numeric company id: %w", s, ErrInvalidCompanyID)
	}
	return id, nil
}

// positiveID accepts 1-19 ASCII digits that are not all zero and drops leading zeros.
func positiveID(s string) (string, bool) {
	if s == "" || len(s) > 19 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	s = strings.TrimLeft(s, "0")
	return s, s != ""
}

// ActivityTime is when a post whose activity id is urn was published: activity ids carry
// their creation time in milliseconds above their low 22 bits. ok is false for anything else.
func ActivityTime(urn string) (time.Time, bool) {
	id, ok := positiveID(strings.TrimPrefix(urn, "urn:li:activity:"))
	if !ok {
		return time.Time{}, false
	}
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n>>22 == 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(n >> 22)).UTC(), true
}

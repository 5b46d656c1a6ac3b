// Package netguard makes the outbound connections that a user's definition
// controls (HTTP, Slack, SMTP, LLM). Its dialer refuses loopback, private,
// link-local (cloud metadata included) and other non-public addresses. The
// check runs on the resolved address at dial time, so neither DNS rebinding
// nor a redirect can get around it.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// MaxRedirects is how many redirects a client follows.
const MaxRedirects = 5

// ErrTooManyRedirects is returned (wrapped) once a client has followed
// MaxRedirects redirects.
var ErrTooManyRedirects = errors.New("netguard: too many redirects")

// BlockedError is a refused connection.
type BlockedError struct {
	Addr netip.Addr
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("netguard: address %s is not a public address", e.Addr)
}

// Options configure the guard.
type Options struct {
	// Allow lists exceptions (TRAWL_ALLOW_PRIVATE_NETWORKS): addresses in
	// these prefixes may be reached even when the policy refuses them.
	Allow []netip.Prefix
}

// blockedPrefixes are the ranges that netip's predicates do not cover.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"; 0.x reaches the host on Linux
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast included
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64: would reach any IPv4, private ones too
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("::/96"),          // deprecated IPv4-compatible
}

// Blocked reports whether the policy, without exceptions, refuses addr.
// An address it refuses but a dial reached is therefore one the operator
// allowed explicitly.
func Blocked(addr netip.Addr) bool {
	// ::ffff:127.0.0.1 reaches 127.0.0.1: judge the IPv4 address. A zone
	// would make every prefix test fail, so drop it.
	addr = addr.Unmap().WithZone("")
	if !addr.IsValid() || addr.IsLoopback() || addr.IsPrivate() || addr.IsUnspecified() ||
		addr.IsLinkLocalUnicast() || addr.IsMulticast() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// Check returns a *BlockedError when addr may not be reached.
func (o Options) Check(addr netip.Addr) error {
	plain := addr.Unmap().WithZone("")
	if !Blocked(plain) {
		return nil
	}
	for _, p := range o.Allow {
		if p.Contains(plain) {
			return nil
		}
	}
	return &BlockedError{Addr: plain}
}

// Dialer returns a dialer that checks every address it connects to.
func (o Options) Dialer() *net.Dialer {
	return &net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
		// Control sees the address after DNS, just before connect.
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("netguard: unexpected address %q", address)
			}
			return o.Check(ap.Addr())
		},
	}
}

// NewClient returns an HTTP client whose every connection, redirects
// included, goes through the guarded dialer. It ignores proxy settings
// from the environment (a proxy would dial for us, unchecked).
func NewClient(o Options) *http.Client {
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           o.Dialer().DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: t,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return ErrTooManyRedirects
			}
			return nil
		},
	}
}

// ParsePrefixes reads a comma-separated list of CIDR prefixes (a bare
// address is its own /32 or /128). Blanks are skipped.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if !strings.Contains(f, "/") {
			var a netip.Addr
			a, err = netip.ParseAddr(f)
			if err == nil && a.Zone() != "" {
				err = errors.New("zone")
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if err != nil {
			return nil, fmt.Errorf("netguard: %q is not a CIDR prefix", f)
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			// Check judges mapped addresses as IPv4; so must the exception.
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

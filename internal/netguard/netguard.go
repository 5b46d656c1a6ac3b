// Package netguard makes the outbound connections that a user's definition
// controls (HTTP, Slack, SMTP, LLM). Its dialer refuses loopback, private,
// link-local (cloud metadata included) and other non-public addresses, and
// the host's own. The check runs on the resolved address at dial time, so
// neither DNS rebinding nor a redirect can get around it; its client keeps
// secret headers from the hosts a redirect leads to.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
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
	// Own are the host's own addresses, refused like loopback: a public
	// address of this host reaches the services that listen on all
	// interfaces (a probe reached ours on 192.0.2.9 and 203.0.113.5).
	// Nil means Dialer reads them from the interfaces when it is made.
	Own []netip.Addr
}

// blockedPrefixes are the ranges of IANA's special-purpose registries
// that are not globally reachable and that netip's predicates do not
// cover.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"; 0.x reaches the host on Linux
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.88.99.0/24"),  // deprecated 6to4 relay anycast
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast included
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments, Teredo included
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // deprecated 6to4: would reach any IPv4
	netip.MustParsePrefix("3fff::/20"),       // documentation
}

// globalUnicast is the only IPv6 space allocated for the internet; the
// rest is reserved or special: IPv4-compatible, local-use NAT64, discard,
// SRv6, unique local, site- and link-local, multicast.
var globalUnicast = netip.MustParsePrefix("2000::/3")

// nat64 is the well-known NAT64 prefix: 64:ff9b::a00:1 reaches 10.0.0.1.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// reached is the address a connection to addr reaches, as far as the
// policy can tell: the IPv4 address of a mapped or NAT64 address, without
// a zone (which would make every prefix test fail).
func reached(addr netip.Addr) netip.Addr {
	addr = addr.Unmap().WithZone("")
	if nat64.Contains(addr) {
		b := addr.As16()
		return netip.AddrFrom4([4]byte(b[12:]))
	}
	return addr
}

// Blocked reports whether the policy, without exceptions, refuses addr.
// An address it refuses but a dial reached is therefore one the operator
// allowed explicitly.
func Blocked(addr netip.Addr) bool {
	addr = reached(addr)
	if !addr.IsValid() || addr.IsLoopback() || addr.IsPrivate() || addr.IsUnspecified() ||
		addr.IsLinkLocalUnicast() || addr.IsMulticast() || addr.Is6() && !globalUnicast.Contains(addr) {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// Check returns a *BlockedError when addr may not be reached: the policy
// or o.Own refuses it and no exception allows it.
func (o Options) Check(addr netip.Addr) error {
	plain, target := addr.Unmap().WithZone(""), reached(addr)
	if !Blocked(plain) && !slices.ContainsFunc(o.Own, func(a netip.Addr) bool { return reached(a) == target }) {
		return nil
	}
	for _, p := range o.Allow {
		if p.Contains(plain) || p.Contains(target) {
			return nil
		}
	}
	return &BlockedError{Addr: plain}
}

// hostAddrs are the addresses of the host's interfaces.
func hostAddrs() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("netguard: read interface addresses: %w", err)
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr())
		}
	}
	return out, nil
}

// withHost fills o.Own, when nil, with the host's addresses.
func (o Options) withHost() (Options, error) {
	if o.Own != nil {
		return o, nil
	}
	own, err := hostAddrs()
	o.Own = own
	return o, err
}

// Dialer returns a dialer that checks every address it connects to. When
// o.Own is nil it reads the host's addresses now, once; a host whose
// interfaces cannot be read gets a dialer that refuses every dial rather
// than one that would let its own public address through.
func (o Options) Dialer() *net.Dialer {
	o, err := o.withHost()
	if err != nil {
		return &net.Dialer{Control: func(string, string, syscall.RawConn) error { return err }}
	}
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
			dropOriginBound(req, via)
			return nil
		},
	}
}

type originBoundKey struct{}

// WithOriginBoundHeaders returns a context under which a request of a
// client of NewClient sends the named headers (those that carry a
// secret) only to its own origin: a redirect to another scheme, host or
// port drops them, and so does every redirect after it, back home too.
// Go's client drops only Authorization and cookies, and keeps them for
// subdomains and other ports.
func WithOriginBoundHeaders(ctx context.Context, names ...string) context.Context {
	if len(names) == 0 {
		return ctx
	}
	return context.WithValue(ctx, originBoundKey{}, names)
}

// dropOriginBound removes the origin-bound headers from the next request
// of a redirect chain (req, whose headers the client has just copied
// from the first) once the chain has left the first request's origin.
func dropOriginBound(req *http.Request, via []*http.Request) {
	names, _ := req.Context().Value(originBoundKey{}).([]string)
	if len(names) == 0 {
		return
	}
	home := origin(via[0].URL)
	left := origin(req.URL) != home
	for _, r := range via[1:] {
		left = left || origin(r.URL) != home
	}
	if !left {
		return
	}
	for _, n := range names {
		req.Header.Del(n)
	}
}

// origin is a URL's scheme, host and port, the port filled in when
// implied.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
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

package netguard

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The ranges below are judged by the policy and refused by the dialer's
// control hook, which runs after the socket is made and before connect:
// no test here sends a packet to a private, link-local or metadata
// address.

// TestPolicyRanges checks every refused range at its edges, and the
// public addresses just outside them.
func TestPolicyRanges(t *testing.T) {
	blocked := []string{
		"10.0.0.0", "10.255.255.255", // 10/8
		"172.16.0.0", "172.31.255.255", // 172.16/12
		"192.168.0.0", "192.168.255.255", // 192.168/16
		"169.254.0.0", "169.254.255.255", "169.254.169.254", "169.254.170.2", // link-local: AWS, GCP, Azure metadata, ECS task metadata
		"100.64.0.0", "100.127.255.255", "100.100.100.200", // CGNAT, Alibaba Cloud metadata
		"192.0.0.0", "192.0.0.192", "192.0.0.255", // IETF protocol assignments (Oracle's 192.0.0.192)
		"198.18.0.0", "198.19.255.255", // benchmarking
		"240.0.0.0", "255.255.255.254", // reserved
		"0.0.0.0", "0.255.255.255", // this network
		"127.0.0.0", "127.255.255.255", // loopback, all of it
		"fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fd00:ec2::254", // unique local, AWS IPv6 metadata
		"fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", // link-local
		"fec0::1", "feff::1", // deprecated site-local
		"ff00::", "ff05::1:3", // multicast
		"::", "::1", "::a00:1", "::a9fe:a9fe", // unspecified, loopback, IPv4-compatible
		"64:ff9b::a9fe:a9fe", "64:ff9b:1::1", // NAT64 onto metadata, local-use NAT64
		"::ffff:172.16.0.1", "::ffff:192.168.0.1", "::ffff:198.18.0.1", "::ffff:0.0.0.0", // IPv4-mapped
		"192.0.2.0", "192.0.2.9", "192.0.2.255", // documentation, TEST-NET-1
		"198.51.100.0", "198.51.100.255", // TEST-NET-2
		"203.0.113.0", "203.0.113.5", "203.0.113.255", // TEST-NET-3
		"192.88.99.1",                                               // 6to4 relay anycast
		"::ffff:192.0.2.9", "64:ff9b::cb00:7105", "64:ff9b::7f00:1", // mapped and NAT64 onto TEST-NET-3 and loopback
		"2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "3fff::1", "3fff:fff::1", // IPv6 documentation
		"2001::1", "2001:1ff::1", "2002:7f00:1::1", "2002:a9fe:a9fe::1", // IETF assignments (Teredo), 6to4
		"100::1", "5f00::1", "fbff::1", "1fff:ffff::1", "4000::1", "::ffff:0:a00:1", // outside 2000::/3: discard, SRv6, reserved
	}
	for _, s := range blocked {
		if !Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s is not blocked", s)
		}
	}
	public := []string{
		"9.255.255.255", "11.0.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0",
		"169.253.255.255", "169.255.0.0", "100.63.255.255", "100.128.0.0", "198.17.255.255", "198.20.0.0",
		"192.0.1.0", "1.0.0.0", "223.255.255.255", "2001:4860:4860::8888", "::ffff:172.32.0.1",
		"192.0.1.255", "192.0.3.0", "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0",
		"2001:db7:ffff::1", "2001:db9::1", "2001:200::1", "2003::1", "3fff:1000::1", "2000::1", "3ffe:ffff::1",
		"64:ff9b::808:808", // NAT64 onto 8.8.8.8: a public IPv4 address through the gateway
	}
	for _, s := range public {
		if Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s is blocked", s)
		}
	}
}

// TestControlHookRanges runs the dialer's control hook on an address of
// each range, with an IPv6 exception, as a dial would after DNS.
func TestControlHookRanges(t *testing.T) {
	o := Options{Allow: []netip.Prefix{netip.MustParsePrefix("fd12:3456::/32"), netip.MustParsePrefix("192.168.7.0/24")}}
	control := o.Dialer().Control
	for addr, want := range map[string]string{
		"172.16.0.1:443":           "172.16.0.1",
		"172.31.1.1:80":            "172.31.1.1",
		"192.168.1.1:80":           "192.168.1.1",
		"100.64.0.1:80":            "100.64.0.1",
		"100.100.100.200:80":       "100.100.100.200",
		"169.254.170.2:80":         "169.254.170.2",
		"198.18.0.1:80":            "198.18.0.1",
		"127.0.0.1:8080":           "127.0.0.1",
		"127.0.0.2:8080":           "127.0.0.2",
		"0.0.0.0:8080":             "0.0.0.0",
		"[::1]:8080":               "::1",
		"[::]:8080":                "::",
		"[fc00::1]:80":             "fc00::1",
		"[fd00:ec2::254]:80":       "fd00:ec2::254",
		"[::ffff:192.168.1.1]:80":  "192.168.1.1",
		"[64:ff9b::a9fe:a9fe]:80":  "64:ff9b::a9fe:a9fe",
		"[fd12:3456::9]:80":        "", // allowed
		"[fd12:3457::9]:80":        "fd12:3457::9",
		"192.168.7.20:80":          "", // allowed
		"[::ffff:192.168.7.20]:80": "", // allowed through its IPv4 form
		"192.168.8.20:80":          "192.168.8.20",
		"8.8.8.8:53":               "",
	} {
		err := control("tcp", addr, nil)
		var be *BlockedError
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", addr, err)
		case want != "" && (!errors.As(err, &be) || be.Addr.String() != want):
			t.Errorf("%s: got %v, want blocked %s", addr, err, want)
		case want != "" && !strings.Contains(err.Error(), want):
			t.Errorf("%s: the error %q does not name the address", addr, err)
		}
	}
	if err := control("tcp", "not-an-address", nil); err == nil {
		t.Error("an address that does not parse passed")
	}
}

// TestClientRefusesPrivateRanges sends requests to literal private,
// link-local and metadata addresses, directly and through a redirect: the
// control hook refuses each dial before connect, so nothing leaves.
func TestClientRefusesPrivateRanges(t *testing.T) {
	targets := []string{"http://10.0.0.1/", "http://172.16.0.1/", "http://192.168.0.1/",
		"http://169.254.169.254/latest/meta-data/", "http://100.100.100.200/latest/meta-data/",
		"http://[fd00:ec2::254]/latest/meta-data/", "http://[fc00::1]/", "http://[::ffff:10.0.0.1]/"}
	redirector, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	c := NewClient(loopbackOnly())
	for _, target := range targets {
		for _, u := range []string{target, redirector.URL + "/?to=" + target} {
			_, err := c.Get(u)
			var be *BlockedError
			if !errors.As(err, &be) {
				t.Errorf("%s: got %v, want a BlockedError", u, err)
			}
		}
	}
	if n := hits.Load(); int(n) != len(targets) {
		t.Errorf("the allowed redirector answered %d times, want %d", n, len(targets))
	}
}

// fakeDNS answers A queries from names (AAAA queries get no records),
// over the stream connections a Go resolver opens through Dial; answers
// may change between queries, as a rebinding server's do.
type fakeDNS struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
	queries map[string]int
}

func (f *fakeDNS) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		client, srv := net.Pipe()
		go f.serve(srv)
		return client, nil
	}}
}

func (f *fakeDNS) serve(c net.Conn) {
	defer c.Close()
	for {
		var n uint16
		if err := binary.Read(c, binary.BigEndian, &n); err != nil {
			return
		}
		q := make([]byte, n)
		if _, err := io.ReadFull(c, q); err != nil || len(q) < 12 {
			return
		}
		// The question: labels, then type and class.
		i, labels := 12, []string{}
		for i < len(q) && q[i] != 0 {
			l := int(q[i])
			if i+1+l > len(q) {
				return
			}
			labels = append(labels, string(q[i+1:i+1+l]))
			i += 1 + l
		}
		if i+5 > len(q) {
			return
		}
		question := q[12 : i+5]
		qtype := binary.BigEndian.Uint16(q[i+1:])
		name := strings.ToLower(strings.Join(labels, "."))
		f.mu.Lock()
		if f.queries == nil {
			f.queries = map[string]int{}
		}
		var addr []netip.Addr
		if qtype == 1 { // A
			f.queries[name]++
			all := f.answers[name]
			if len(all) > 0 {
				addr = all[:1]
				if len(all) > 1 {
					f.answers[name] = all[1:] // the next query gets the next address
				}
			}
		}
		f.mu.Unlock()
		resp := make([]byte, 12, 512)
		copy(resp[:2], q[:2])
		binary.BigEndian.PutUint16(resp[2:], 0x8580) // response, authoritative, recursion desired and available
		binary.BigEndian.PutUint16(resp[4:], 1)
		binary.BigEndian.PutUint16(resp[6:], uint16(len(addr)))
		resp = append(resp, question...)
		for _, a := range addr {
			ip := a.As4()
			resp = append(resp, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4)
			resp = append(resp, ip[:]...)
		}
		out := binary.BigEndian.AppendUint16(nil, uint16(len(resp)))
		if _, err := c.Write(append(out, resp...)); err != nil {
			return
		}
	}
}

// TestHostnamesJudgedAfterDNS: a name is judged by the address it
// resolves to at each dial, so a name that resolves to a metadata or
// private address is refused, and a name that rebinds from an allowed
// address to loopback is refused on the dial after the change.
func TestHostnamesJudgedAfterDNS(t *testing.T) {
	l2, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2: %v", err)
	}
	var allowedHits, loopbackHits atomic.Int32
	allowed := &httptest.Server{Listener: l2, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		allowedHits.Add(1)
	})}}
	allowed.Start()
	defer allowed.Close()
	loop, _ := server(t, func(w http.ResponseWriter, r *http.Request) { loopbackHits.Add(1) })
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(allowed.URL, "http://"))
	_, loopPort, _ := net.SplitHostPort(strings.TrimPrefix(loop.URL, "http://"))

	dns := &fakeDNS{answers: map[string][]netip.Addr{
		"metadata.test": {netip.MustParseAddr("169.254.169.254")},
		"intranet.test": {netip.MustParseAddr("10.0.0.5")},
		"loopback.test": {netip.MustParseAddr("127.0.0.1")},
		"rebind.test":   {netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.1")},
	}}
	o := Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}
	d := o.Dialer()
	d.Resolver = dns.resolver()
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}

	for name, want := range map[string]string{"metadata.test": "169.254.169.254", "intranet.test": "10.0.0.5", "loopback.test:" + loopPort: "127.0.0.1"} {
		host := name
		if !strings.Contains(host, ":") {
			host += ":80"
		}
		_, err := c.Get("http://" + host + "/")
		var be *BlockedError
		if !errors.As(err, &be) || be.Addr.String() != want {
			t.Errorf("%s: got %v, want blocked %s", name, err, want)
		}
	}

	// Rebinding: the first dial resolves to the allowed address, the
	// second to loopback (where a server listens on the same port).
	if resp, err := c.Get("http://rebind.test:" + port + "/"); err != nil {
		t.Fatalf("first dial: %v", err)
	} else {
		resp.Body.Close()
	}
	_, err = c.Get("http://rebind.test:" + port + "/")
	var be *BlockedError
	if !errors.As(err, &be) || be.Addr.String() != "127.0.0.1" {
		t.Fatalf("after rebinding: got %v, want blocked 127.0.0.1", err)
	}
	if allowedHits.Load() != 1 || loopbackHits.Load() != 0 {
		t.Fatalf("allowed server hit %d times, loopback %d", allowedHits.Load(), loopbackHits.Load())
	}
	dns.mu.Lock()
	defer dns.mu.Unlock()
	if dns.queries["rebind.test"] != 2 {
		t.Fatalf("rebind.test resolved %d times, want once per dial", dns.queries["rebind.test"])
	}
}

// TestOwnAddressesRefused: an address of the host is refused although
// public (93.184.215.14 stands for a server's public address here), in
// its mapped and NAT64 forms too, unless an exception lists it.
func TestOwnAddressesRefused(t *testing.T) {
	own := []netip.Addr{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("2606:2800:21f:cb07:6820:80da:af6b:8b2c")}
	control := Options{Own: own}.Dialer().Control
	for addr, want := range map[string]string{
		"93.184.215.14:443":                           "93.184.215.14",
		"[::ffff:93.184.215.14]:443":                  "93.184.215.14",
		"[64:ff9b::5db8:d70e]:80":                     "64:ff9b::5db8:d70e",
		"[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:80": "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
		"93.184.215.15:443":                           "",
		"8.8.8.8:53":                                  "",
	} {
		err := control("tcp", addr, nil)
		var be *BlockedError
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", addr, err)
		case want != "" && (!errors.As(err, &be) || be.Addr.String() != want):
			t.Errorf("%s: got %v, want blocked %s", addr, err, want)
		}
	}
	allowed := Options{Own: own, Allow: []netip.Prefix{netip.MustParsePrefix("93.184.215.0/24")}}.Dialer().Control
	if err := allowed("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("an exception does not let the host's own address through: %v", err)
	}
}

// TestDialerReadsHostAddrs: a guard made without Own refuses the
// addresses of the machine's interfaces, read when the dialer is made.
func TestDialerReadsHostAddrs(t *testing.T) {
	ifaces, err := net.InterfaceAddrs()
	if err != nil || len(ifaces) == 0 {
		t.Skipf("no interface addresses: %v", err)
	}
	o, err := Options{}.withHost()
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Own) != len(ifaces) {
		t.Fatalf("own addresses %v, interfaces %v", o.Own, ifaces)
	}
	control := Options{}.Dialer().Control
	for _, a := range o.Own {
		var be *BlockedError
		if err := control("tcp", netip.AddrPortFrom(a, 80).String(), nil); !errors.As(err, &be) {
			t.Errorf("the host's address %s: %v", a, err)
		}
	}
	// An empty list read from the interfaces is kept, not read again.
	if o, _ := (Options{Own: []netip.Addr{}}).withHost(); o.Own == nil || len(o.Own) != 0 {
		t.Errorf("an empty Own was replaced: %v", o.Own)
	}
}

// TestExceptionsOverNewRanges: TRAWL_ALLOW_PRIVATE_NETWORKS lets through
// an address of the documentation ranges as it does a private one, and a
// NAT64 address by the IPv4 address it reaches.
func TestExceptionsOverNewRanges(t *testing.T) {
	allow, err := ParsePrefixes("192.0.2.0/24, 2001:db8::/32, 10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	control := Options{Allow: allow, Own: []netip.Addr{netip.MustParseAddr("192.0.2.9")}}.Dialer().Control
	for addr, allowed := range map[string]bool{
		"192.0.2.9:80":         true,
		"[2001:db8::1]:443":    true,
		"[64:ff9b::a00:1]:80":  true,
		"203.0.113.5:80":       false,
		"[3fff::1]:80":         false,
		"[64:ff9b::ac10:1]:80": false, // 172.16.0.1
	} {
		if err := control("tcp", addr, nil); (err == nil) != allowed {
			t.Errorf("%s: %v, want allowed %v", addr, err, allowed)
		}
	}
}

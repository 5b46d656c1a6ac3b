package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The private, link-local and metadata ranges are tested as policy and
// through the dialer's control hook only: no packet is sent to them.
func TestBlocked(t *testing.T) {
	blocked := []string{
		"127.0.0.1", "127.0.0.2", "::1", "0.0.0.0", "::", "0.1.2.3",
		"10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "fc00::1", "fd12:3456::1",
		"169.254.169.254", "169.254.0.1", "fe80::1", "fe80::1%eth0",
		"224.0.0.1", "239.255.255.250", "ff02::1", "255.255.255.255",
		"100.64.0.1", "100.127.255.255",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:100.64.0.1",
		"64:ff9b::a00:1", "::127.0.0.1",
	}
	for _, s := range blocked {
		if !Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s is not blocked", s)
		}
	}
	public := []string{"8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"}
	for _, s := range public {
		if Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s is blocked", s)
		}
	}
}

func TestControlHook(t *testing.T) {
	o := Options{Allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}
	control := o.Dialer().Control
	for addr, want := range map[string]string{
		"10.0.0.1:80":                 "10.0.0.1",
		"169.254.169.254:80":          "169.254.169.254",
		"[::ffff:169.254.169.254]:80": "169.254.169.254",
		"[fe80::1%eth0]:443":          "fe80::1",
		"[fd00::1]:25":                "fd00::1",
		"10.1.0.1:80":                 "", // allowed
		"[::ffff:10.1.2.3]:80":        "", // allowed through its IPv4 form
		"93.184.215.14:443":           "",
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
}

func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &hits
}

func ok(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }

func loopbackOnly() Options {
	return Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
}

func TestLoopbackRefused(t *testing.T) {
	s, hits := server(t, ok)
	for _, u := range []string{s.URL, strings.Replace(s.URL, "127.0.0.1", "localhost", 1),
		strings.Replace(s.URL, "127.0.0.1", "[::ffff:127.0.0.1]", 1)} {
		_, err := NewClient(Options{}).Get(u)
		var be *BlockedError
		if !errors.As(err, &be) || !be.Addr.IsLoopback() {
			t.Errorf("%s: got %v, want a BlockedError on loopback", u, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the server was reached %d times", hits.Load())
	}
}

func TestAllowedPrefix(t *testing.T) {
	s, _ := server(t, ok)
	resp, err := NewClient(loopbackOnly()).Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestRedirectToRefusedAddress(t *testing.T) {
	// The target listens on 127.0.0.2, outside the allowed 127.0.0.1/32.
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2: %v", err)
	}
	var targetHits atomic.Int32
	target := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
	})}}
	target.Start()
	defer target.Close()
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/metadata", http.StatusFound)
	})
	_, err = NewClient(loopbackOnly()).Get(s.URL)
	var be *BlockedError
	if !errors.As(err, &be) || be.Addr != netip.MustParseAddr("127.0.0.2") {
		t.Fatalf("got %v, want blocked 127.0.0.2", err)
	}
	if targetHits.Load() != 0 {
		t.Fatal("the redirect target was reached")
	}
}

func TestRedirectLimit(t *testing.T) {
	s, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/again", http.StatusFound)
	})
	_, err := NewClient(loopbackOnly()).Get(s.URL)
	if !errors.Is(err, ErrTooManyRedirects) {
		t.Fatalf("got %v", err)
	}
	if n := hits.Load(); n != 1+MaxRedirects {
		t.Fatalf("%d requests, want %d", n, 1+MaxRedirects)
	}
}

func TestNoProxyFromEnvironment(t *testing.T) {
	// A proxy would dial for us, unchecked.
	proxy, hits := server(t, ok)
	t.Setenv("HTTP_PROXY", proxy.URL)
	c := NewClient(Options{})
	c.Timeout = 5 * time.Second
	if _, err := c.Get("http://trawl-test.invalid/"); err == nil {
		t.Fatal("an unresolvable host answered")
	}
	if hits.Load() != 0 {
		t.Fatal("the request went through the proxy")
	}
}

func TestParsePrefixes(t *testing.T) {
	got, err := ParsePrefixes(" 10.0.0.0/8, 127.0.0.1 ,fd00::/8,,::ffff:192.168.0.0/112, 10.1.2.3/16")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "127.0.0.1/32", "fd00::/8", "192.168.0.0/16", "10.1.0.0/16"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("%d: got %s, want %s", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", "fe80::1%eth0", "10.0.0.0/8;", "1.2.3"} {
		if _, err := ParsePrefixes(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if p, err := ParsePrefixes(""); err != nil || len(p) != 0 {
		t.Errorf("empty: %v %v", p, err)
	}
}

func FuzzParsePrefixes(f *testing.F) {
	for _, s := range []string{"", "10.0.0.0/8", "127.0.0.1, ::1", "::ffff:10.0.0.0/104", "fe80::/10,100.64.0.0/10", "a/b", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParsePrefixes(s)
		if err != nil {
			return
		}
		parts := make([]string, len(ps))
		for i, p := range ps {
			if !p.IsValid() || p.Masked() != p || p.Addr().Is4In6() && p.Bits() >= 96 || p.Addr().Zone() != "" {
				t.Fatalf("%q gave %v", s, p)
			}
			parts[i] = p.String()
		}
		again, err := ParsePrefixes(strings.Join(parts, ","))
		if err != nil || len(again) != len(ps) {
			t.Fatalf("%q: round trip gave %v, %v", s, again, err)
		}
		for i := range ps {
			if again[i] != ps[i] {
				t.Fatalf("%q: round trip %v != %v", s, again[i], ps[i])
			}
		}
	})
}

// TestOriginBoundHeaders follows redirect chains between two loopback
// servers (two origins: other ports) and records which requests carried
// the secret header; the plain header goes everywhere.
func TestOriginBoundHeaders(t *testing.T) {
	type seen struct{ path, secret, plain string }
	var mu sync.Mutex
	var got []seen
	record := func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		got = append(got, seen{r.Host[strings.LastIndex(r.Host, ":"):] + r.URL.Path, r.Header.Get("X-Api-Token"), r.Header.Get("X-Plain")})
		mu.Unlock()
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return true
		}
		return false
	}
	a, _ := server(t, func(w http.ResponseWriter, r *http.Request) { record(w, r) })
	b, _ := server(t, func(w http.ResponseWriter, r *http.Request) { record(w, r) })
	portA, portB := a.URL[strings.LastIndex(a.URL, ":"):], b.URL[strings.LastIndex(b.URL, ":"):]
	c := NewClient(loopbackOnly())
	for _, tc := range []struct {
		name, url string
		want      []seen
	}{
		{"same origin keeps it", a.URL + "/1?to=" + url.QueryEscape("/2"),
			[]seen{{portA + "/1", "s", "p"}, {portA + "/2", "s", "p"}}},
		{"another port drops it", a.URL + "/1?to=" + url.QueryEscape(b.URL+"/2"),
			[]seen{{portA + "/1", "s", "p"}, {portB + "/2", "", "p"}}},
		{"another host name drops it", a.URL + "/1?to=" + url.QueryEscape(strings.Replace(a.URL, "127.0.0.1", "localhost", 1)+"/2"),
			[]seen{{portA + "/1", "s", "p"}, {portA + "/2", "", "p"}}},
		{"once dropped, not sent home again", a.URL + "/1?to=" + url.QueryEscape(b.URL+"/2?to="+url.QueryEscape(a.URL+"/3")),
			[]seen{{portA + "/1", "s", "p"}, {portB + "/2", "", "p"}, {portA + "/3", "", "p"}}},
	} {
		got = nil
		req, _ := http.NewRequestWithContext(WithOriginBoundHeaders(context.Background(), "X-Api-Token"), http.MethodGet, tc.url, nil)
		req.Header.Set("X-Api-Token", "s")
		req.Header.Set("X-Plain", "p")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		resp.Body.Close()
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: requests %v, want %v", tc.name, got, tc.want)
		}
	}

	// Without the context the client is Go's: the header follows.
	got = nil
	req, _ := http.NewRequest(http.MethodGet, a.URL+"/1?to="+url.QueryEscape(b.URL+"/2"), nil)
	req.Header.Set("X-Api-Token", "s")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(got) != 2 || got[1].secret != "s" {
		t.Errorf("without origin-bound headers: %v", got)
	}
}

func TestOrigin(t *testing.T) {
	for raw, want := range map[string]string{
		"http://Example.com/x":      "http://example.com:80",
		"http://example.com:80/":    "http://example.com:80",
		"https://example.com":       "https://example.com:443",
		"https://example.com:8443":  "https://example.com:8443",
		"http://[::1]:8080/":        "http://[::1]:8080",
		"HTTPS://EXAMPLE.COM:443/a": "https://example.com:443",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := origin(u); got != want {
			t.Errorf("%s: %s, want %s", raw, got, want)
		}
	}
}

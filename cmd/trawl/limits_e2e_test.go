package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/store"
)

// The limits of what a request may send: body sizes and read timeouts, on
// the webhook route (whose input is a raw body) and on the others.

// jsonOfSize is a JSON object of exactly n bytes.
func jsonOfSize(n int) []byte {
	return []byte(`{"pad":"` + strings.Repeat("x", n-len(`{"pad":""}`)) + `"}`)
}

// filler is an endless body of x's that allocates nothing.
type filler struct{}

func (filler) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// rawAnswer is what rawPost got back.
type rawAnswer struct {
	status int
	code   string
	// sent is how many body bytes the connection took before the answer
	// was read.
	sent int64
}

// rawPost posts body to url over a connection of its own, as a sender the
// test controls byte by byte: with Content-Length when length >= 0,
// chunked otherwise; with stall, it stops sending once body is exhausted
// and waits for the answer. The answer is read while the body is still
// being sent, as a server that refuses a body early sends it.
func rawPost(t *testing.T, url string, h http.Header, length int64, body io.Reader, stall bool) rawAnswer {
	t.Helper()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A guard against a server that never answers, not a measurement.
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n", u.RequestURI(), u.Host)
	for k, vs := range h {
		for _, v := range vs {
			fmt.Fprintf(&head, "%s: %s\r\n", k, v)
		}
	}
	if length >= 0 {
		fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n", length)
	} else {
		head.WriteString("Transfer-Encoding: chunked\r\n\r\n")
	}
	if _, err := conn.Write(head.Bytes()); err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	answered := make(chan struct{})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		buf, frame := make([]byte, 32<<10), make([]byte, 0, 32<<10+16)
		for {
			n, rerr := body.Read(buf)
			if n > 0 {
				chunk := buf[:n]
				if length < 0 {
					frame = fmt.Appendf(frame[:0], "%x\r\n", n)
					frame = append(append(frame, chunk...), "\r\n"...)
					chunk = frame
				}
				if _, err := conn.Write(chunk); err != nil {
					return
				}
				sent.Add(int64(n))
			}
			if rerr != nil {
				break
			}
		}
		if stall {
			<-answered
			return
		}
		if length < 0 {
			_, _ = conn.Write([]byte("0\r\n\r\n"))
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	a := rawAnswer{status: resp.StatusCode, code: out.Error.Code, sent: sent.Load()}
	close(answered)
	conn.Close()
	<-wrote
	return a
}

func TestWebhookBodyLimit(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		url, secret, id := hookFlow(t, ts)
		unknown := url[:len(url)-4] + "AAAA"

		// Over the default 1 MiB, validly signed or to no workflow at all,
		// declared or not: 413 before the token is looked up.
		big := jsonOfSize(1<<20 + 1)
		for _, target := range []string{url, unknown} {
			h := sign(t, secret, "msg_big", time.Now(), big)
			if a := rawPost(t, target, h, int64(len(big)), bytes.NewReader(big), false); a.status != 413 || a.code != "PAYLOAD_TOO_LARGE" {
				t.Fatalf("declared oversize body: %+v", a)
			}
			if a := rawPost(t, target, h, -1, bytes.NewReader(big), false); a.status != 413 || a.code != "PAYLOAD_TOO_LARGE" {
				t.Fatalf("chunked oversize body: %+v", a)
			}
		}

		// A sender that never stops is cut off at the limit: the server
		// neither reads nor holds more than a bounded part of it (what the
		// sockets buffer aside).
		const endless = 128 << 20
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		a := rawPost(t, url, nil, -1, io.LimitReader(filler{}, endless), false)
		runtime.ReadMemStats(&after)
		if a.status != 413 {
			t.Fatalf("endless body: %+v", a)
		}
		if a.sent >= endless/2 {
			t.Fatalf("the server took %d bytes of an endless body", a.sent)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Fatalf("the process allocated %d bytes while refusing an endless body", grew)
		}
		if n := executionsOf(t, ts, id); n != 0 {
			t.Fatalf("%d executions recorded from oversize bodies", n)
		}

		// At the limit, the webhook is taken.
		exact := jsonOfSize(1 << 20)
		if st, out := postHook(t, ts.HTTP, url, sign(t, secret, "msg_exact", time.Now(), exact), exact); st != 202 {
			t.Fatalf("a body of exactly 1 MiB: %d %v", st, out)
		}
		// Every other route has its limit too.
		r := do(t, ts.Client, http.MethodPost, "/v1/workflows", map[string]any{"name": strings.Repeat("x", 1<<20)})
		wantError(t, r, 413, "PAYLOAD_TOO_LARGE")
		if !strings.Contains(r.Err().Message, "1 MiB") {
			t.Fatalf("413 does not name the limit: %s", r.Body)
		}
	})
}

func TestWebhookSlowBody(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		// A read timeout is the network's time: a short one keeps the test
		// short. The webhook limit is raised to 3 MiB.
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_READ_TIMEOUT": "300ms", "TRAWL_WEBHOOK_MAX_BODY": "3145728"}))
		url, secret, id := hookFlow(t, ts)

		body := jsonOfSize(1000)
		for _, target := range []string{url, url[:len(url)-4] + "AAAA"} {
			h := sign(t, secret, "msg_slow", time.Now(), body)
			if a := rawPost(t, target, h, int64(len(body)), bytes.NewReader(body[:100]), true); a.status != 408 || a.code != "REQUEST_TIMEOUT" {
				t.Fatalf("a sender that stalls mid-body: %+v", a)
			}
		}
		if n := executionsOf(t, ts, id); n != 0 {
			t.Fatalf("%d executions recorded from stalled bodies", n)
		}

		// The raised limit takes a 2 MiB payload and still refuses 4 MiB.
		two := jsonOfSize(2 << 20)
		if st, out := postHook(t, ts.HTTP, url, sign(t, secret, "msg_two", time.Now(), two), two); st != 202 {
			t.Fatalf("2 MiB under a 3 MiB limit: %d %v", st, out)
		}
		four := jsonOfSize(4 << 20)
		if a := rawPost(t, url, sign(t, secret, "msg_four", time.Now(), four), int64(len(four)), bytes.NewReader(four), false); a.status != 413 || a.code != "PAYLOAD_TOO_LARGE" {
			t.Fatalf("4 MiB over a 3 MiB limit: %+v", a)
		}
		if n := executionsOf(t, ts, id); n != 1 {
			t.Fatalf("%d executions recorded, want the 2 MiB one", n)
		}
	})
}

func TestLimitSettingsAreValidated(t *testing.T) {
	assertSettingsRefused(t, map[string]string{"TRAWL_WEBHOOK_MAX_BODY": "100", "TRAWL_READ_TIMEOUT": "1ms", "TRAWL_WRITE_TIMEOUT": "0s"})
}

// assertSettingsRefused checks that each bad value, set alone, stops the
// start with an error naming its variable.
func assertSettingsRefused(t *testing.T, bad map[string]string) {
	t.Helper()
	env := serverEnv(t, store.SQLite, nil)
	for k, v := range bad {
		getenv := func(name string) string {
			if name == k {
				return v
			}
			return env[name]
		}
		if _, err := runCLI(t, getenv, "migrate"); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: err = %v, want it to name %s", k, v, err, k)
		}
	}
}

package benchkit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/trawlhq/trawl/internal/sandbox"
)

// Overhead is measured the same way by the programs that compare Trawl's
// connectors with the upstream alone: the sandbox runs in a child process
// (its garbage collection does not land on the connector), a Recorder
// keeps the requests of a call, and Replay sends them again with a bare
// client that decodes nothing: the upstream's own latency.

// Recorder is a transport that keeps the requests of the call in flight.
type Recorder struct {
	mu   sync.Mutex
	reqs []Recorded
}

// Recorded is one recorded request.
type Recorded struct {
	method, url string
	header      http.Header
	body        []byte
}

// RoundTrip records req and sends it with the default transport.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, Recorded{req.Method, req.URL.String(), req.Header.Clone(), body})
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// Take returns the requests recorded since the last Take.
func (r *Recorder) Take() []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

// Replay sends reqs again, one after the other, reading each body and
// decoding nothing, and returns how long that took.
func Replay(ctx context.Context, reqs []Recorded) (time.Duration, error) {
	start := time.Now()
	for _, rr := range reqs {
		req, err := http.NewRequestWithContext(ctx, rr.method, rr.url, bytes.NewReader(rr.body))
		if err != nil {
			return 0, err
		}
		req.Header = rr.header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// SandboxChildFlag is the flag with which a program runs as the sandbox's
// child process (ServeSandbox).
const SandboxChildFlag = "-serve-sandbox"

// ServeSandbox serves the sandbox on addr until the process is killed.
func ServeSandbox(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return (&http.Server{Handler: sandbox.New(sandbox.Config{Seed: 1}).Handler(), ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
}

// StartSandbox runs this program again with SandboxChildFlag and waits
// until the sandbox answers GET probe; it returns the sandbox's base URL
// and a function that stops it.
func StartSandbox(ctx context.Context, probe string) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.CommandContext(ctx, os.Args[0], SandboxChildFlag, addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	base := "http://" + addr
	for i := 0; ; i++ {
		if resp, err := http.Get(base + probe); err == nil {
			resp.Body.Close()
			return base, stop, nil
		}
		if i > 200 {
			stop()
			return "", nil, errors.New("the sandbox did not start on " + addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

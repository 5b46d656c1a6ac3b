package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/config"
)

// waitCmd waits until a trawl serve answers /readyz. A script that starts
// serve in the background must not go on before: the first `go run`
// compiles for minutes, and the bootstrap key is written just before the
// service listens.
type waitCmd struct {
	URL     string        `name:"url" placeholder:"URL" help:"Base URL of the service; default TRAWL_PUBLIC_URL, else http:// and TRAWL_ADDR."`
	Timeout time.Duration `default:"5m" help:"Give up after this long (a duration: 30s, 5m)."`
}

func (c waitCmd) Run(cfg *config.Config, e env) error {
	base := strings.TrimRight(c.URL, "/")
	if base == "" {
		base = serviceURL(cfg)
	}
	ctx, cancel := context.WithTimeout(e.ctx, c.Timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz", nil)
		if err != nil {
			return fmt.Errorf("wait: --url %q: %w", base, err)
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				fmt.Fprintf(e.stdout, "Trawl is ready at %s\n", base)
				return nil
			}
			err = fmt.Errorf("/readyz answered %s", resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait: %s is not ready after %s: %v", base, c.Timeout, last)
		case <-time.After(250 * time.Millisecond): // polling a process that is starting
		}
	}
}

// serviceURL is where clients reach the service: TRAWL_PUBLIC_URL, else
// the listen address, with a wildcard host asked on loopback.
func serviceURL(cfg *config.Config) string {
	if cfg.PublicURL != "" {
		return cfg.PublicURL
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return "http://" + cfg.Addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

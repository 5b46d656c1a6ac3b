package app

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// TestCheckPronetNeverLogsKey: a rejected key is logged once at error level with the provider
// and the vendor's reason, and the key is nowhere in the log, even when the vendor repeats it.
func TestCheckPronetNeverLogsKey(t *testing.T) {
	const key = "invalid-SECRETSECRET"
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"success":false,"message":"Invalid API key %s"}`, r.Header.Get("x-api-key"))
	}))
	defer upstream.Close()
	cfg := &config.Config{PronetProvider: "sandbox", PronetAPIKey: key, SearchRunLease: 10 * time.Minute}
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	p, err := openPronet(cfg, upstream.URL, key, upstream.Client(), Options{Now: time.Now, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	checkPronet(context.Background(), pronet.NewReadiness(p, pronet.ReadinessConfig{Secret: key, Log: log}), log)

	out := logs.String()
	if strings.Contains(out, "SECRETSECRET") {
		t.Errorf("the key is in the log: %s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one log line, got %q", lines)
	}
	for _, want := range []string{`"level":"ERROR"`, `"provider":"sandbox"`, `"reason":"key rejected (401 Invalid API key [key])"`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("log %s lacks %s", lines[0], want)
		}
	}
}

// TestOpenPronet: the provider of the settings, within their limits; a malformed price or actor
// setting stops the start naming the setting.
func TestOpenPronet(t *testing.T) {
	cases := []struct {
		provider, prices, actors string
		rate                     float64
		conc                     int
		wantName, wantErr        string
	}{
		{provider: "sandbox", wantName: pronet.ContractName},
		{provider: "", rate: 2.5, conc: 4, wantName: pronet.ContractName},
		{provider: "harvestapi", rate: 1, conc: 2, wantName: "harvestapi"},
		{provider: "apify", rate: 3, conc: 1, wantName: "apify", prices: "profile=0.01/call", actors: "profile=me~my-profile-actor"},
		{provider: "harvestapi", prices: "search=lots", wantErr: "TRAWL_PRONET_PRICES"},
		{provider: "apify", actors: "nonsense", wantErr: "TRAWL_APIFY_ACTORS"},
		{provider: "other", wantErr: "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.provider+tc.wantErr, func(t *testing.T) {
			cfg := &config.Config{PronetProvider: tc.provider, PronetRateLimit: tc.rate, PronetConcurrency: tc.conc, SearchRunLease: 10 * time.Minute,
				PronetPrices: tc.prices, ApifyActors: tc.actors}
			p, err := openPronet(cfg, "http://127.0.0.1:1", "k", http.DefaultClient, Options{Now: time.Now})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := p.(*pronet.Limited); !ok || p.Name() != tc.wantName {
				t.Errorf("provider %T %q, want the limited %s", p, p.Name(), tc.wantName)
			}
			l := pronetLimits(cfg, providerDefaults{}, Options{})
			if l.Rate != tc.rate || l.Concurrency != tc.conc || l.MaxWait != 150*time.Second {
				t.Errorf("limits %+v", l)
			}
		})
	}
	// A setting of 0 is the provider's default.
	cfg := &config.Config{PronetConcurrency: 3, SearchRunLease: time.Minute}
	l := pronetLimits(cfg, providerDefaults{rate: 10, burst: 5, concurrency: 8}, Options{})
	if l.Rate != 10 || l.Burst != 5 || l.Concurrency != 3 || l.MaxWait != 15*time.Second {
		t.Errorf("limits %+v", l)
	}
}

// TestPronetUsesSandbox: a vendor's key alone reaches the vendor; the contract without a URL,
// and a vendor without a key, are the sandbox.
func TestPronetUsesSandbox(t *testing.T) {
	for _, tc := range []struct {
		provider, url, key string
		want               bool
	}{
		{"sandbox", "", "", true}, {"sandbox", "", "k", true}, {"sandbox", "http://p", "k", false},
		{"harvestapi", "", "", true}, {"harvestapi", "", "k", false}, {"harvestapi", "http://h", "k", false},
		{"apify", "", "", true}, {"apify", "", "tok", false},
	} {
		cfg := &config.Config{PronetProvider: tc.provider, PronetAPIURL: tc.url, PronetAPIKey: tc.key}
		if got := pronetUsesSandbox(cfg); got != tc.want {
			t.Errorf("%s url %q key %q: sandbox %v, want %v", tc.provider, tc.url, tc.key, got, tc.want)
		}
	}
}

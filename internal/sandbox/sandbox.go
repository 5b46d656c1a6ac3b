package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Config configures a sandbox.
type Config struct {
	Seed   int64
	Now    func() time.Time // nil means time.Now
	Logger *slog.Logger     // nil discards logs
}

// Sandbox serves the world over the upstream protocols.
type Sandbox struct {
	world  *World
	now    func() time.Time
	logger *slog.Logger
	runs   apifyRuns // the simulated Apify's runs and their datasets
}

// New builds the sandbox of cfg.Seed.
func New(cfg Config) *Sandbox {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Sandbox{world: NewWorld(cfg.Seed), now: func() time.Time { return now().UTC() }, logger: logger}
}

// World gives tests and features direct access to the synthetic world.
func (s *Sandbox) World() *World { return s.world }

// Handler serves /microblog/… (X API v2), /pronet/… (pronet provider), /harvestapi/… (HarvestAPI
// REST), /apify/… (Apify API v2 with HarvestAPI's actors), /enrich/… (PDL v5), /llm/v1/… (chat
// completions) and /hubspot/… (HubSpot account-info v3).
func (s *Sandbox) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/microblog/", http.StripPrefix("/microblog", s.microblogHandler()))
	mux.Handle("/pronet/", http.StripPrefix("/pronet", s.pronetHandler()))
	mux.Handle("/enrich/", http.StripPrefix("/enrich", s.enrichHandler()))
	mux.Handle("/llm/", http.StripPrefix("/llm", s.llmHandler()))
	mux.Handle("/harvestapi/", http.StripPrefix("/harvestapi", s.harvestAPIHandler()))
	mux.Handle("/apify/", http.StripPrefix("/apify", s.apifyHandler()))
	// The services connections reach, by connection type; each logs what
	// it was asked (integrationLog), the tests' request log.
	for typ, h := range map[string]http.Handler{
		"hubspot":       s.hubSpotHandler(),
		"salesforce":    s.salesforceHandler(),
		"pipedrive":     s.pipedriveHandler(),
		"attio":         s.attioHandler(),
		"google_sheets": s.googleSheetsHandler(),
		"airtable":      s.airtableHandler(),
		"notion":        s.notionHandler(),
		"linear":        s.linearHandler(),
		"smartlead":     s.smartleadHandler(),
		"instantly":     s.instantlyHandler(),
		"lemlist":       s.lemlistHandler(),
		"heyreach":      s.heyReachHandler(),
		"slack":         s.slackHandler(),
	} {
		mux.Handle("/"+typ+"/", http.StripPrefix("/"+typ, s.integrationLog(typ, h)))
	}
	return s.logRequests(mux)
}

func (s *Sandbox) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		s.logger.Debug("sandbox request", "method", r.Method, "path", r.URL.Path, "status", rec.status)
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Server is a sandbox listening on a TCP address.
type Server struct {
	base     string
	srv      *http.Server
	served   chan error
	stop     chan struct{}
	stopOnce sync.Once
}

// Start serves a sandbox on addr ("127.0.0.1:0" picks a free port) until Close or ctx ends.
func Start(ctx context.Context, addr string, cfg Config) (*Server, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sandbox: listen %s: %w", addr, err)
	}
	sb := New(cfg)
	s := &Server{
		base:   "http://" + ln.Addr().String(),
		srv:    &http.Server{Handler: sb.Handler(), ReadHeaderTimeout: 10 * time.Second},
		served: make(chan error, 1),
		stop:   make(chan struct{}),
	}
	go func() { s.served <- s.srv.Serve(ln) }()
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Close()
		case <-s.stop:
		}
	}()
	sb.logger.Info("sandbox listening", "url", s.base)
	return s, nil
}

// Addr is the base URL of the server (http://host:port).
func (s *Server) Addr() string { return s.base }

// MicroblogURL is the X API v2 base URL to configure the microblog connector with.
func (s *Server) MicroblogURL() string { return s.base + "/microblog" }

// PronetURL is the pronet provider base URL.
func (s *Server) PronetURL() string { return s.base + "/pronet" }

// EnrichURL is the PDL base URL (…/v5/person/enrich under it).
func (s *Server) EnrichURL() string { return s.base + "/enrich" }

// HarvestAPIURL is the HarvestAPI REST base URL (…/linkedin/… under it).
func (s *Server) HarvestAPIURL() string { return s.base + "/harvestapi" }

// ApifyURL is the Apify API base URL (…/v2/… under it).
func (s *Server) ApifyURL() string { return s.base + "/apify" }

// IntegrationURL is the base URL of the API of the service a connection
// type names (hubspot: HubSpot's API, …/crm/v3/… under it).
func (s *Server) IntegrationURL(typ string) string { return s.base + "/" + typ }

// Close stops the server and waits for it to finish; calling it again is harmless.
func (s *Server) Close() error {
	var err error
	s.stopOnce.Do(func() {
		close(s.stop)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if e := s.srv.Shutdown(ctx); e != nil {
			err = fmt.Errorf("sandbox: shutdown: %w", e)
		}
		if e := <-s.served; e != nil && !errors.Is(e, http.ErrServerClosed) && err == nil {
			err = fmt.Errorf("sandbox: serve: %w", e)
		}
	})
	return err
}

// Package httpapi is Trawl's HTTP API: every route in routes.go, one file per
// resource, the envelope and error model, and the middleware that
// authenticates, limits and logs requests.
package httpapi

import (
	"cmp"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/source/enrich"
	"github.com/trawlhq/trawl/internal/source/microblog"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
	"github.com/trawlhq/trawl/internal/workflow/engine"
)

// Version is reported in the OpenAPI document.
const Version = "0.1.0"

// Deps are what the API needs from the rest of the process.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	Log    *slog.Logger
	Now    func() time.Time

	Microblog *microblog.Client
	Pronet    pronet.Provider
	// PronetReadiness is the last check of Pronet's key, which /readyz reports; nil: not
	// checked.
	PronetReadiness *pronet.Readiness
	Enrich          *enrich.Client
	// Collector runs saved searches on demand (POST /v1/searches/{id}/run).
	Collector *search.Collector
	// Secrets seals account secrets and webhook signing secrets.
	Secrets *secret.Box
	// Connector opens accounts' connections (health probes, lookups).
	Connector *integration.Connector
	// PublicURL is where clients reach the API (webhook URLs start with it).
	PublicURL string
	// Engine runs webhook executions inline when the caller waits.
	Engine *engine.Engine
	// Mapping answers social mapping and creator queries: the process's
	// one engine, which app loads and warms. Nil: a new one over Store.
	Mapping *mapping.Engine
	// Console serves every path that is not the API's (the web console);
	// nil: those paths are the API's JSON 404.
	Console http.Handler
}

// Server is the API as an http.Handler.
type Server struct {
	cfg     *config.Config
	store   *store.Store
	log     *slog.Logger
	now     func() time.Time
	api     huma.API
	metrics *metrics
	handler http.Handler

	microblog   *microblog.Client
	pronet      pronet.Provider
	pronetReady *pronet.Readiness
	enrich      *enrich.Client
	collector   *search.Collector

	secrets   *secret.Box
	publicURL string

	connector *integration.Connector
	engine    *engine.Engine
	mapper    *mapping.Engine
	catalogue *action.Catalogue
	validator *workflow.Validator
}

// New builds the API with every route registered.
func New(d Deps) *Server {
	s := &Server{cfg: d.Config, store: d.Store, log: d.Log, now: d.Now, metrics: newMetrics(),
		microblog: d.Microblog, pronet: d.Pronet, pronetReady: d.PronetReadiness, enrich: d.Enrich, collector: d.Collector,
		secrets: d.Secrets, publicURL: d.PublicURL, connector: d.Connector, engine: d.Engine, mapper: d.Mapping, catalogue: action.NewCatalogue()}
	if s.mapper == nil && s.store != nil {
		s.mapper = mapping.NewEngine(s.store.MappingPool())
	}
	if s.connector == nil {
		s.connector = &integration.Connector{HTTP: &http.Client{Timeout: 15 * time.Second}}
	}
	s.validator = &workflow.Validator{Catalogue: s.catalogue}
	mux := http.NewServeMux()
	hc := huma.DefaultConfig("Trawl API", Version)
	hc.Info.Description = "Social monitoring, lead discovery and workflow automation. " +
		"Every /v1 request carries an API key in the x-api-key header."
	// The repository's LICENSE.
	hc.Info.License = &huma.License{Name: "MIT", Identifier: "MIT"}
	hc.Servers = []*huma.Server{{URL: cmp.Or(d.PublicURL, "/"), Description: "This Trawl deployment"}}
	hc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"apiKey": {Type: "apiKey", In: "header", Name: "x-api-key"},
	}
	hc.OpenAPIPath = "/openapi"
	// huma's own docs page loads its UI from a CDN; ours is embedded (docs.go).
	hc.DocsPath = ""
	hc.SchemasPath = "/schemas"
	// Bodies are described exactly; a $schema member would be an unknown field.
	hc.CreateHooks = nil
	// Whole numbers written 10.0 fill integer fields; type errors name the field.
	hc.Formats = jsonFormats()
	s.api = humago.New(mux, hc)
	s.api.OpenAPI().OnAddOperation = append(s.api.OpenAPI().OnAddOperation, s.boundBody, describeDeclared, markMetered)
	s.api.UseMiddleware(s.withServer, s.zeroSpentCredits, s.refuseLargeBody, s.authenticate, s.refuseUnknownQuery, s.refuseNUL, s.acceptHostedNames)
	s.routes()
	dropUndeclared422(s.api.OpenAPI())
	describeOutsideRoutes(s.api.OpenAPI(), hc.OpenAPIPath, hc.SchemasPath)
	// Without a store the server only describes itself (Document).
	if s.store != nil {
		s.metrics.watchKeywordMatches(s.mapper.KeywordMatchesHeld)
		if s.store.PacksKeywordPostings() {
			s.metrics.watchKeywordPostings(s.store.KeywordPostingsHeld)
		}
	}
	if lp, ok := d.Pronet.(*pronet.Limited); ok {
		s.metrics.watchPronetLimits(lp)
	}
	mux.Handle("GET /metrics", s.metrics.handler())
	docs := docsHandler(hc.Info.Title, hc.OpenAPIPath+".json")
	mux.Handle("GET "+docsPath, docs)
	mux.Handle("GET "+docsPath+"/", docs)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, NewAPIError(http.StatusNotFound, CodeNotFound, "No endpoint "+r.Method+" "+r.URL.Path+"."))
	})
	var h http.Handler = jsonBodies(mux)
	if d.Console != nil {
		h = consoleOr(mux, d.Console, h)
	}
	s.handler = observe(s.log, s.metrics, s.now, s.cfg.WriteTimeout, s.hostedResponses(h))
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// consoleOr sends to the console every request that no API route takes
// (the catch-all "/" would answer it) outside the API's paths (apiPath):
// those stay the API's JSON 404, and the console's forms are not read as
// JSON.
func consoleOr(mux *http.ServeMux, console, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "/" && !apiPath(r.URL.Path) {
			console.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// apiPrefixes are the paths the API keeps whatever the method: an unknown
// one, or a known one with another method, is the API's JSON 404.
var apiPrefixes = []string{"/v1", "/healthz", "/readyz", "/metrics", "/openapi", "/schemas", docsPath}

// apiPath reports whether p is one of the API's paths or under one.
func apiPath(p string) bool {
	for _, pre := range apiPrefixes {
		if p == pre || strings.HasPrefix(p, pre+"/") || strings.HasPrefix(p, pre+".") || strings.HasPrefix(p, pre+"-") {
			return true
		}
	}
	return strings.HasPrefix(p, hooksPath)
}

// OpenAPI is the API's OpenAPI 3.1 document.
func (s *Server) OpenAPI() *huma.OpenAPI { return s.api.OpenAPI() }

// metaDeclares422 marks a route that answers 422 itself (alsoErrors).
const metaDeclares422 = "declares422"

// dropUndeclared422 removes the 422 response huma adds to every operation
// with parameters or a body: this API answers invalid input with 400 and
// keeps 422 for QUERY_TOO_BROAD, which operations declare themselves. huma
// appends 422 to op.Errors too, so the declaration is read from metadata.
func dropUndeclared422(doc *huma.OpenAPI) {
	for _, item := range doc.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			if declared, _ := op.Metadata[metaDeclares422].(bool); !declared {
				delete(op.Responses, "422")
				op.Errors = slices.DeleteFunc(op.Errors, func(c int) bool { return c == http.StatusUnprocessableEntity })
			}
		}
	}
}

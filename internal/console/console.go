// Package console is Trawl's web console: server-rendered html/template
// pages at / (the API keeps /v1), signed in with an API key into a
// server-side session. It decides nothing itself: keys are checked as the
// API checks them (store.Authenticate, auth.Key), figures come from the
// store's reads the API uses, and the CSV download is the API's own export
// served to the session's principal.
package console

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/store"
)

//go:embed templates
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Deps are what the console needs from the rest of the process.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	Log    *slog.Logger
	Now    func() time.Time
}

// Console is the web console as an http.Handler.
type Console struct {
	cfg   *config.Config
	store *store.Store
	log   *slog.Logger
	now   func() time.Time
	pages map[string]*template.Template
	mux   *http.ServeMux

	// API serves the API's routes to a request carrying a principal
	// (AsPrincipal); app sets both once the API is built. The CSV download
	// goes through them.
	API         http.Handler
	AsPrincipal func(context.Context, auth.Principal) context.Context
}

// New builds the console with every page.
func New(d Deps) *Console {
	c := &Console{cfg: d.Config, store: d.Store, log: d.Log, now: d.Now, pages: map[string]*template.Template{}}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	base := template.Must(template.New("layout.html").Funcs(templateFuncs()).ParseFS(templateFS, "templates/layout.html", "templates/parts/*.html"))
	pages, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, file := range pages {
		name := strings.TrimSuffix(path.Base(file), ".html")
		if name == "layout" {
			continue
		}
		c.pages[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, file))
	}
	mux := http.NewServeMux()
	c.routes(mux)
	c.mux = mux
	return c
}

func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// Nothing from another origin, no framing, no sniffing.
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	c.mux.ServeHTTP(w, r)
}

func cacheAssets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}

// view is what every page's template is given.
type view struct {
	Title     string
	Nav       string
	SignedIn  bool
	CSRF      string
	KeyPrefix string
	Account   string
	// Flash is what the last form did, shown once above the page.
	Flash string
	Data  any
}

// render writes a page with status.
func (c *Console) render(w http.ResponseWriter, status int, page string, v view) {
	c.renderBlock(w, status, page, "layout", v)
}

// renderBlock writes one template of a page: "layout" for the whole page,
// or a part of it that htmx swaps in (a request with HX-Request).
func (c *Console) renderBlock(w http.ResponseWriter, status int, page, block string, v view) {
	var b strings.Builder
	t, ok := c.pages[page]
	if !ok {
		c.log.Error("console: no such page", "page", page)
		http.Error(w, "The page could not be rendered.", http.StatusInternalServerError)
		return
	}
	if err := t.ExecuteTemplate(&b, block, v); err != nil {
		c.log.Error("console: render", "page", page, "block", block, "error", err)
		http.Error(w, "The page could not be rendered.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// message renders a page that only says something (not found, forbidden…).
func (c *Console) message(w http.ResponseWriter, r *http.Request, status int, heading, msg string) {
	v := view{Title: heading, Data: map[string]string{"Heading": heading, "Message": msg}}
	if s, ok := sessionFrom(r.Context()); ok {
		v = s.view(heading, "")
		v.Data = map[string]string{"Heading": heading, "Message": msg}
	}
	c.render(w, status, "message", v)
}

func (c *Console) notFound(w http.ResponseWriter, r *http.Request) {
	// A signed-in visitor keeps the header; an anonymous one gets the bare page.
	if s, err := c.session(r); err == nil {
		r = r.WithContext(context.WithValue(r.Context(), sessionKey{}, s))
	}
	c.message(w, r, http.StatusNotFound, "Not found", "No page at "+r.URL.Path+".")
}

// serverError logs err and renders a 500 page.
func (c *Console) serverError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	c.log.Error("console", "path", r.URL.Path, "error", err)
	c.message(w, r, http.StatusInternalServerError, "Something went wrong", "The server could not answer; the error is in its log.")
}

package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

func newDocsServer(t *testing.T) *httptest.Server {
	t.Helper()
	st := storetest.Open(t, store.SQLite, nil)
	s := New(Deps{Config: &config.Config{}, Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

type docsResponse struct {
	status      int
	contentType string
	header      http.Header
	body        string
}

// getDocs GETs path without an API key. plain asks for an uncompressed body,
// as a client that does not speak gzip would.
func getDocs(t *testing.T, ts *httptest.Server, method, path string, plain bool) docsResponse {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := ts.Client()
	if plain {
		client = &http.Client{Transport: &http.Transport{DisableCompression: true}}
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	if plain && res.Header.Get("Content-Encoding") != "" {
		t.Errorf("%s %s: Content-Encoding %q for a client that accepts none", method, path, res.Header.Get("Content-Encoding"))
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	return docsResponse{status: res.StatusCode, contentType: mt, header: res.Header, body: string(b)}
}

var (
	// htmlRef finds every src= and href= attribute value of a page.
	htmlRef = regexp.MustCompile(`(?i)\b(src|href)\s*=\s*["']([^"']*)["']`)
	// linkTag and scriptTag find the tags that load styles, icons and scripts.
	linkTag   = regexp.MustCompile(`(?is)<link\b[^>]*>`)
	scriptTag = regexp.MustCompile(`(?is)<script\b[^>]*\bsrc\s*=[^>]*>`)
	// cssRemote finds what a stylesheet would fetch from another host.
	cssRemote = regexp.MustCompile(`(?i)(url\(\s*["']?\s*(https?:)?//|@import)`)
)

// offHost reports whether ref, a src or href of a page at /docs, would make
// the browser reach a host other than the one serving the page.
func offHost(ref string) bool {
	u, err := url.Parse(strings.TrimSpace(ref))
	return err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(strings.TrimSpace(ref), "//")
}

func TestDocsPageWorksWithoutNetwork(t *testing.T) {
	ts := newDocsServer(t)
	for _, page := range []string{"/docs", "/docs/"} {
		t.Run(page, func(t *testing.T) {
			r := getDocs(t, ts, http.MethodGet, page, false)
			if r.status != http.StatusOK || r.contentType != "text/html" {
				t.Fatalf("GET %s without a key: %d %q, want 200 text/html", page, r.status, r.contentType)
			}
			if !strings.Contains(r.body, `"/openapi.json"`) {
				t.Errorf("the page does not read /openapi.json:\n%s", r.body)
			}
			if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("Content-Security-Policy %q does not keep the page on this server", csp)
			}

			refs := htmlRef.FindAllStringSubmatch(r.body, -1)
			if len(refs) == 0 {
				t.Fatalf("no src or href in the page:\n%s", r.body)
			}
			for _, m := range refs {
				if offHost(m[2]) {
					t.Errorf("%s=%q points off this server", m[1], m[2])
				}
			}

			// Every script, stylesheet and icon the page loads is served
			// from the binary, plain or gzipped, with its own type.
			want := map[string]string{}
			for _, tag := range scriptTag.FindAllString(r.body, -1) {
				want[htmlRef.FindStringSubmatch(tag)[2]] = "text/javascript"
			}
			for _, tag := range linkTag.FindAllString(r.body, -1) {
				m := htmlRef.FindStringSubmatch(tag)
				if m == nil {
					continue
				}
				switch ext := path.Ext(m[2]); {
				case ext == ".css":
					want[m[2]] = "text/css"
				case ext == ".png":
					want[m[2]] = "image/png"
				default:
					t.Errorf("the page links %q, of no type this test knows", m[2])
				}
			}
			var scripts, styles int
			for ref, ct := range want {
				switch ct {
				case "text/javascript":
					scripts++
				case "text/css":
					styles++
				}
				u, err := url.Parse(ref)
				if err != nil {
					t.Errorf("%q: %v", ref, err)
					continue
				}
				asset := (&url.URL{Path: page}).ResolveReference(u).Path
				for _, plain := range []bool{false, true} {
					a := getDocs(t, ts, http.MethodGet, asset, plain)
					if a.status != http.StatusOK || len(a.body) == 0 {
						t.Errorf("GET %s (plain %v): %d, %d bytes", asset, plain, a.status, len(a.body))
						continue
					}
					if a.contentType != ct && !(ct == "text/javascript" && a.contentType == "application/javascript") {
						t.Errorf("GET %s (plain %v): Content-Type %q, want %s", asset, plain, a.contentType, ct)
					}
					if ct == "text/css" && cssRemote.MatchString(a.body) {
						t.Errorf("%s loads something from another host: %q", asset, cssRemote.FindString(a.body))
					}
				}
			}
			if scripts == 0 || styles == 0 {
				t.Errorf("the page loads %d scripts and %d stylesheets, want the UI's:\n%s", scripts, styles, r.body)
			}
		})
	}

	// The document the page shows is there, without a key too.
	if r := getDocs(t, ts, http.MethodGet, "/openapi.json", false); r.status != http.StatusOK {
		t.Errorf("GET /openapi.json: %d", r.status)
	}
}

func TestDocsUnknownPathsAreJSON404(t *testing.T) {
	ts := newDocsServer(t)
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/docs/nope.js"},
		{http.MethodGet, "/docs/index.html"},
		{http.MethodGet, "/docs/static/"},
		{http.MethodGet, "/docs/swagger-ui.css/x"},
		{http.MethodGet, "/docs/swagger-ui.css.gz.gz"},
		{http.MethodPost, "/docs"},
		{http.MethodDelete, "/docs/swagger-ui.css"},
	} {
		r := getDocs(t, ts, c.method, c.path, false)
		var body errorBody
		if err := json.Unmarshal([]byte(r.body), &body); err != nil || r.status != http.StatusNotFound ||
			r.contentType != "application/json" || body.Success || body.Error.Code != CodeNotFound {
			t.Errorf("%s %s: %d %q %s, want the JSON 404", c.method, c.path, r.status, r.contentType, r.body)
		}
	}
}

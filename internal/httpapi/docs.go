package httpapi

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/swaggest/swgui"
	"github.com/swaggest/swgui/v5/static"
	"github.com/swaggest/swgui/v5emb"
)

// docsPath is where the interactive API reference is served; its assets are
// under docsPath + "/".
const docsPath = "/docs"

// docsHandler serves the API reference: Swagger UI reading the OpenAPI
// document at openAPIPath. The page's script, styles and icons are embedded
// in the binary (github.com/swaggest/swgui/v5emb, pinned in go.mod), so the
// page works on a network with no way out. A path under docsPath + "/" that
// is not one of those assets answers the JSON 404 of the error model.
func docsHandler(title, openAPIPath string) http.Handler {
	ui := v5emb.NewHandlerWithConfig(swgui.Config{
		Title:       title,
		SwaggerJSON: openAPIPath,
		BasePath:    docsPath + "/",
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if name, ok := strings.CutPrefix(r.URL.Path, docsPath+"/"); ok && name != "" && !docsAsset(name) {
			writeError(w, NewAPIError(http.StatusNotFound, CodeNotFound, "No endpoint "+r.Method+" "+r.URL.Path+"."))
			return
		}
		w.Header().Set("Content-Security-Policy", docsCSP)
		ui.ServeHTTP(w, r)
	})
}

// docsAsset reports whether name is a file the docs UI embeds, stored as is
// or gzipped (the UI's server decompresses for clients that want it plain).
func docsAsset(name string) bool {
	for _, n := range []string{name, name + ".gz"} {
		if fi, err := fs.Stat(static.FS, n); err == nil && !fi.IsDir() {
			return true
		}
	}
	return false
}

// docsCSP lets the docs load nothing but what this server sends (the inline
// script that starts the UI and the UI's inline styles included): the browser
// itself refuses anything from another host.
const docsCSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

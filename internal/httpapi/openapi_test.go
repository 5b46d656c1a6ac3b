package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// servedDocument is what a client generator reads of /openapi.json.
type servedDocument struct {
	Info struct {
		License *struct {
			Name       string `json:"name"`
			Identifier string `json:"identifier"`
			URL        string `json:"url"`
		} `json:"license"`
	} `json:"info"`
	Servers []struct {
		URL string `json:"url"`
	} `json:"servers"`
	Paths map[string]map[string]struct {
		// A pointer tells `security: []` (no key) from no security at all.
		Security  *[]map[string][]string `json:"security"`
		Responses map[string]any         `json:"responses"`
	} `json:"paths"`
}

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// TestOpenAPIDeclaresAccess: the served document names its server and
// license, and says of every route whether it needs a key as the server
// behaves: a route the auth middleware lets through without a key (routes.go
// declares it public, or it is served outside huma) has `security: []`, and
// every other one asks for the apiKey scheme and documents 401. Which routes
// need a key is read from the declarations the middleware reads, then
// checked by calling each route without a key.
func TestOpenAPIDeclaresAccess(t *testing.T) {
	const publicURL = "https://trawl.example.org"
	st := storetest.Open(t, store.SQLite, nil)
	s := New(Deps{Config: &config.Config{}, Store: st, Log: slog.New(slog.DiscardHandler), Now: time.Now, PublicURL: publicURL})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)

	resp, err := http.Get(ts.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	served, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %v", resp.StatusCode, err)
	}
	var doc servedDocument
	if err := json.Unmarshal(served, &doc); err != nil {
		t.Fatalf("decode the document: %v", err)
	}

	if len(doc.Servers) != 1 || doc.Servers[0].URL != publicURL {
		t.Errorf("servers = %+v, want the public URL %s", doc.Servers, publicURL)
	}
	if l := doc.Info.License; l == nil || l.Name != "MIT" || (l.Identifier == "") == (l.URL == "") {
		t.Errorf("info.license = %+v, want MIT with an identifier or a URL (not both)", l)
	}

	// What the auth middleware reads of each huma route.
	needsKey := map[string]bool{}
	for path, item := range s.OpenAPI().Paths {
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op != nil {
				required, _ := op.Metadata[metaAuth].(bool)
				needsKey[op.Method+" "+path] = required
			}
		}
	}

	var public int
	for path, ops := range doc.Paths {
		for method, op := range ops {
			route := strings.ToUpper(method) + " " + path
			keyed := needsKey[route] // false for the routes outside huma
			switch {
			case op.Security == nil:
				t.Errorf("%s states no security", route)
			case keyed && (len(*op.Security) != 1 || (*op.Security)[0]["apiKey"] == nil):
				t.Errorf("%s needs a key but its security is %v", route, *op.Security)
			case !keyed && len(*op.Security) != 0:
				t.Errorf("%s needs no key but its security is %v, want []", route, *op.Security)
			}
			if keyed {
				if _, ok := op.Responses["401"]; !ok {
					t.Errorf("%s needs a key but documents no 401", route)
				}
			} else {
				public++
			}

			// The server agrees: without a key, a keyed route is a 401
			// and a public one is anything else.
			req, err := http.NewRequest(strings.ToUpper(method), ts.URL+pathParam.ReplaceAllString(path, "x"), bytes.NewReader([]byte(`{}`)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("%s: %v", route, err)
			}
			res.Body.Close()
			if got := res.StatusCode == http.StatusUnauthorized; got != keyed {
				t.Errorf("%s without a key answered %d; the document says it needs a key: %v", route, res.StatusCode, keyed)
			}
		}
	}
	// healthz, readyz, the webhook, metrics, docs and its files, the four
	// forms of the document and /schemas.
	if public < 11 {
		t.Errorf("%d public routes in the document, want at least 11", public)
	}
}

// TestDocumentIsTheServedOne: `trawl openapi` prints Document, which must be
// the very document the server serves with the same settings.
func TestDocumentIsTheServedOne(t *testing.T) {
	const publicURL = "http://127.0.0.1:8080"
	cfg := &config.Config{WebhookMaxBody: 12345}
	st := storetest.Open(t, store.SQLite, nil)
	ts := httptest.NewServer(New(Deps{Config: cfg, Store: st, Log: slog.New(slog.DiscardHandler), Now: time.Now, PublicURL: publicURL}))
	t.Cleanup(ts.Close)
	resp, err := http.Get(ts.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	served, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	printed, err := Document(cfg, publicURL)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(printed, served) {
		t.Errorf("Document differs from /openapi.json (%d and %d bytes)", len(printed), len(served))
	}
}

// TestWebhookBodyIsJSON: the document describes the webhook's body as JSON
// of any shape, so that a generated client sends its payload as JSON rather
// than base64 of a binary string; the handler still reads the raw bytes.
func TestWebhookBodyIsJSON(t *testing.T) {
	b, err := Document(&config.Config{}, "http://127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	content := doc.Paths[hooksPath+"{token}"]["post"].RequestBody.Content
	schema := content["application/json"].Schema
	if len(content) != 1 || schema["type"] != "object" || schema["additionalProperties"] != true ||
		schema["format"] != nil || schema["contentEncoding"] != nil || schema["contentMediaType"] != nil {
		t.Errorf("webhook body = %v, want one JSON object schema of any members", content)
	}
}

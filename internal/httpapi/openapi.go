package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/config"
)

// Document is the OpenAPI document a server with cfg serves at
// /openapi.json, its servers entry set to publicURL. It needs no database:
// `trawl openapi` prints it for linters and client generators.
func Document(cfg *config.Config, publicURL string) ([]byte, error) {
	s := New(Deps{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, PublicURL: publicURL})
	b, err := json.Marshal(s.OpenAPI())
	if err != nil {
		return nil, fmt.Errorf("httpapi: marshal the OpenAPI document: %w", err)
	}
	if cfg.APINames == NamesHosted {
		b = rewriteJSON(b, hostedNames().docToHosted)
	}
	return b, nil
}

// noKey is the security requirement of a route that needs no API key: an
// empty list, which says so, where a missing one would mean "unstated".
func noKey() []map[string][]string { return []map[string][]string{} }

// describeOutsideRoutes adds to the document the routes the server answers
// outside huma (the document itself, the schemas, the docs page and the
// metrics), so that clients and the contract tests know their statuses and
// content types too. They need no key.
func describeOutsideRoutes(doc *huma.OpenAPI, openAPIPath, schemasPath string) {
	errorSchema := doc.Components.Schemas.Schema(reflect.TypeOf(Error{}), true, "")
	notFound := &huma.Response{Description: "No such file", Content: map[string]*huma.MediaType{"application/json": {Schema: errorSchema}}}
	text := func(desc string, types ...string) map[string]*huma.Response {
		content := map[string]*huma.MediaType{}
		for _, t := range types {
			content[t] = &huma.MediaType{Schema: &huma.Schema{Type: huma.TypeString}}
		}
		return map[string]*huma.Response{"200": {Description: desc, Content: content}}
	}
	add := func(path, id, summary string, responses map[string]*huma.Response, params ...*huma.Param) {
		doc.AddOperation(&huma.Operation{Method: http.MethodGet, Path: path, OperationID: id, Summary: summary,
			Tags: []string{"Operations"}, Security: noKey(), Parameters: params, Responses: responses})
	}
	self := "The OpenAPI 3.1 document of this API"
	asJSON := map[string]*huma.Response{"200": {Description: self, Content: map[string]*huma.MediaType{
		"application/openapi+json": {Schema: &huma.Schema{Type: huma.TypeObject, Description: "An OpenAPI document."}}}}}
	add(openAPIPath+".json", "openapi-json", self+", as JSON", asJSON)
	add(openAPIPath+".yaml", "openapi-yaml", self+", as YAML", text(self, "application/openapi+yaml"))
	add(openAPIPath+"-3.0.json", "openapi-30-json", "The document downgraded to OpenAPI 3.0, as JSON", asJSON)
	add(openAPIPath+"-3.0.yaml", "openapi-30-yaml", "The document downgraded to OpenAPI 3.0, as YAML", text(self, "application/openapi+yaml"))
	add(schemasPath+"/{schema}", "get-schema", "One JSON Schema of the document's components (null when there is none of that name)",
		map[string]*huma.Response{"200": {Description: "The schema", Content: map[string]*huma.MediaType{
			"application/json": {Schema: &huma.Schema{Type: huma.TypeObject, Nullable: true}}}}},
		&huma.Param{Name: "schema", In: "path", Required: true, Description: "A component schema's name, .json optional.", Schema: &huma.Schema{Type: huma.TypeString}})
	add(docsPath, "docs", "The API reference (Swagger UI), served from the binary", text("The page", "text/html"))
	asset := text("A script, stylesheet or image of the page", "text/html", "text/css", "text/javascript", "application/javascript", "image/png")
	asset["404"] = notFound
	add(docsPath+"/{file}", "docs-asset", "A file of the API reference page", asset,
		&huma.Param{Name: "file", In: "path", Required: true, Description: "The file's name.", Schema: &huma.Schema{Type: huma.TypeString}})
	add("/metrics", "metrics", "Prometheus metrics of this process",
		text("The metrics in the Prometheus text format (or OpenMetrics, when asked for)", "text/plain", "application/openmetrics-text"))
}

// Metadata keys of what routes.go declares for the document alone.
const (
	metaAlsoAnswers = "alsoAnswers" // []answer: success statuses besides the default
	metaAnyJSONBody = "anyJSONBody" // string: the body's description
)

// answer is a success status a handler may pick over its route's default.
type answer struct {
	status      int
	description string
}

// alsoAnswers declares a success status the handler sets through its
// output's Status field: huma documents only the default one, so this one
// is documented with the default's body and headers.
func alsoAnswers(status int, description string) func(*huma.Operation) {
	return func(op *huma.Operation) {
		as, _ := op.Metadata[metaAlsoAnswers].([]answer)
		op.Metadata[metaAlsoAnswers] = append(as, answer{status, description})
	}
}

// anyJSONBody declares a RawBody route's body as JSON of any shape: huma
// describes a raw body as a binary string, which generated clients send
// base64-encoded.
func anyJSONBody(description string) func(*huma.Operation) {
	return func(op *huma.Operation) { op.Metadata[metaAnyJSONBody] = description }
}

// describeDeclared applies alsoAnswers and anyJSONBody once huma has
// described the operation's input and output.
func describeDeclared(_ *huma.OpenAPI, op *huma.Operation) {
	if as, ok := op.Metadata[metaAlsoAnswers].([]answer); ok {
		def := op.Responses[strconv.Itoa(op.DefaultStatus)]
		for _, a := range as {
			op.Responses[strconv.Itoa(a.status)] = &huma.Response{Description: a.description, Content: def.Content, Headers: def.Headers}
		}
	}
	if desc, ok := op.Metadata[metaAnyJSONBody].(string); ok && op.RequestBody != nil {
		op.RequestBody.Description = desc
		op.RequestBody.Content = map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{
			Type: huma.TypeObject, AdditionalProperties: true, Description: desc}}}
	}
}

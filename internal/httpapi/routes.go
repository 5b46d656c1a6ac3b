package httpapi

import (
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/auth"
)

// access declares what a route needs from the caller.
type access struct {
	public     bool
	permission auth.Permission
	feature    auth.Feature
}

var (
	public  = access{public: true}
	anyKey  = access{}
	withKey = func(p auth.Permission) access { return access{permission: p} }
)

// route fills in what every operation shares: the access declaration (read by
// the auth middleware), the security requirement and the error responses.
func route(method, path, id, tag, summary string, a access, extra ...func(*huma.Operation)) huma.Operation {
	op := huma.Operation{
		OperationID: id, Method: method, Path: path, Summary: summary, Tags: []string{tag},
		Metadata: map[string]any{metaAuth: !a.public},
	}
	if !a.public {
		op.Security = []map[string][]string{{"apiKey": {}}}
		op.Errors = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusInternalServerError}
		if a.permission != "" {
			op.Metadata[metaPermission] = a.permission
			op.Errors = append(op.Errors, http.StatusForbidden)
		}
		if a.feature != "" {
			op.Metadata[metaFeature] = a.feature
			if a.permission == "" {
				op.Errors = append(op.Errors, http.StatusForbidden)
			}
		}
	}
	for _, f := range extra {
		f(&op)
	}
	return op
}

// routes is the one place where every endpoint is declared.
func (s *Server) routes() {
	api := s.api
	huma.Register(api, route(http.MethodGet, "/healthz", "healthz", "Operations", "Liveness: the process is up", public), s.handleHealthz)
	huma.Register(api, route(http.MethodGet, "/readyz", "readyz", "Operations", "Readiness: the database answers", public, alsoErrors(http.StatusServiceUnavailable)), s.handleReadyz)

	// Live pronet lookups.

	// Microblog saved searches.

	huma.Register(api, route(http.MethodGet, "/v1/usage", "get-usage", "Usage", "Credits, monitors and results for a period", anyKey), s.handleUsage)
}

func alsoErrors(codes ...int) func(*huma.Operation) {
	return func(op *huma.Operation) { op.Errors = append(op.Errors, codes...) }
}

package httpapi

import "testing"

// TestAPIPathStaysAPI: the paths the API keeps for its JSON 404 whatever
// the method, and those the console may take.
func TestAPIPathStaysAPI(t *testing.T) {
	for _, p := range []string{"/v1", "/v1/nope", "/v1/hooks/abc", "/healthz", "/readyz/x", "/metrics", "/openapi.json", "/openapi.yaml",
		"/openapi-3.0.json", "/schemas/Error.json", "/docs", "/docs/x"} {
		if !apiPath(p) {
			t.Errorf("apiPath(%q) = false, want the API's", p)
		}
	}
	for _, p := range []string{"/", "/signin", "/searches", "/searches/123", "/assets/console.css", "/v1x", "/documents", "/healthzz"} {
		if apiPath(p) {
			t.Errorf("apiPath(%q) = true, want the console's", p)
		}
	}
}

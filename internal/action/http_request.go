package action

import (
	"net/http"
	"net/url"
	"strings"
)

// KindHTTPRequest calls any HTTP endpoint.
const KindHTTPRequest = "http_request"

func httpRequestSpec() Spec {
	return Spec{
		Kind: KindHTTPRequest, Name: "HTTP request", Category: CategoryMessaging,
		Description: "Sends an HTTP request and outputs the response. It carries an Idempotency-Key header stable per execution and step, so a retried step can be recognised. Private and loopback addresses are refused.",
		Inputs: []Input{
			{Name: "method", Title: "Method", Type: TypeEnum, Options: []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead},
				Description: "Default GET."},
			{Name: "url", Title: "URL", Required: true, Type: TypeString, Description: "An absolute http or https URL."},
			{Name: "headers", Title: "Headers", Type: TypeObject, Description: "Header name to value."},
			{Name: "secret_headers", Title: "Secret headers", Type: TypeObject, Secret: true, Description: "Header name to the name of an account secret whose value is sent, e.g. {\"Authorization\": \"CRM_TOKEN\"}."},
			{Name: "query", Title: "Query", Type: TypeObject, Description: "Query parameters added to the URL."},
			{Name: "body", Title: "Body", Type: TypeAny, Description: "Sent as JSON unless it is a string."},
			{Name: "timeout", Title: "Timeout (ms)", Type: TypeNumber, Description: "1-300000 milliseconds; default 30000."},
		},
		Check: func(in map[string]any) []Problem {
			var out []Problem
			if s, ok := in["url"].(string); ok {
				if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					out = append(out, problemf("url", "must be an absolute http or https URL"))
				}
			}
			if t, ok := in["timeout"].(float64); ok && (t < 1 || t > 300000) {
				out = append(out, problemf("timeout", "must be 1-300000 milliseconds"))
			}
			for _, name := range []string{"headers", "secret_headers", "query"} {
				m, ok := in[name].(map[string]any)
				if !ok {
					continue
				}
				for k, v := range m {
					if _, ok := v.(string); !ok {
						out = append(out, problemf(name, "%s must be a string", k))
					}
					if name != "query" && !validHeaderName(k) {
						out = append(out, problemf(name, "%q is not a valid header name", k))
					}
				}
			}
			return out
		},
		Outputs: object(map[string]any{
			"status":  typed("integer", "HTTP status code."),
			"headers": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"body":    map[string]any{"description": "The response body: parsed JSON when it is JSON, text otherwise."},
		}, "status", "headers", "body"),
	}
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	return !strings.ContainsFunc(k, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	})
}

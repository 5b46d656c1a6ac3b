package sandbox

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxLoggedBody bounds the request body an integration's log line carries.
const maxLoggedBody = 64 << 10

// integrationLog logs every request to the service of a connection type at
// debug level, as "sandbox integration request" with the service, method,
// path, query and JSON body, which is the request log the end-to-end tests
// read. Credentials never appear: headers are not logged, and query or
// form parameters that carry keys or tokens are masked.
func (s *Sandbox) integrationLog(service string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			raw, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
			if err != nil {
				http.Error(w, "reading the request", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(raw))
			body = raw
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			// Token requests: a refresh token, a client secret, a signed assertion.
			if form, err := url.ParseQuery(string(body)); err == nil {
				body = []byte(maskedQuery(form))
			}
		}
		if len(body) > maxLoggedBody {
			body = body[:maxLoggedBody]
		}
		s.logger.Debug("sandbox integration request", "service", service, "method", r.Method, "path", r.URL.Path,
			"query", maskedQuery(r.URL.Query()), "body", string(body))
		next.ServeHTTP(w, r)
	})
}

// maskedQuery encodes q with the values of key-carrying parameters masked.
func maskedQuery(q url.Values) string {
	for k := range q {
		switch strings.ToLower(k) {
		case "api_key", "apikey", "api_token", "token", "access_token", "key",
			"refresh_token", "client_secret", "assertion", "password", "code":
			q[k] = []string{"***"}
		}
	}
	return q.Encode()
}

package action

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/netguard"
)

// maxResponseBody caps what http_request reads of a response.
const maxResponseBody = 5 << 20

// httpRequestRun sends the request. A 4xx answer is not an error: the
// output carries the status and the workflow decides (an if on
// status, say). 5xx, 429 and transport failures are retryable errors;
// a refused address is not.
func httpRequestRun(d Deps) Executor {
	return func(ctx context.Context, call Call) (map[string]any, error) {
		in := call.Inputs
		method := strings.ToUpper(inputString(in, "method"))
		if method == "" {
			method = http.MethodGet
		}
		u, err := url.Parse(inputString(in, "url"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, failf(CodeInvalidInput, false, "url must be an absolute http or https URL")
		}
		query, err := stringMap(in, "query")
		if err != nil {
			return nil, err
		}
		if len(query) > 0 {
			q := u.Query()
			for k, v := range query {
				q.Set(k, v)
			}
			u.RawQuery = q.Encode()
		}

		var body io.Reader
		contentType := ""
		switch b := in["body"].(type) {
		case nil:
		case string:
			body = strings.NewReader(b)
		default:
			raw, err := json.Marshal(b)
			if err != nil {
				return nil, failf(CodeInvalidInput, false, "body: %v", err)
			}
			body, contentType = bytes.NewReader(raw), "application/json"
		}

		timeout := 30 * time.Second
		if ms, ok := in["timeout"].(float64); ok && ms > 0 {
			timeout = time.Duration(ms) * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
		if err != nil {
			return nil, failf(CodeInvalidInput, false, "%v", err)
		}
		headers, err := stringMap(in, "headers")
		if err != nil {
			return nil, err
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		secretNames, err := stringMap(in, "secret_headers")
		if err != nil {
			return nil, err
		}
		var secrets, secretHeaders []string
		for k, name := range secretNames {
			v, err := secretValue(ctx, call, name)
			if err != nil {
				return nil, err
			}
			req.Header.Set(k, v)
			secrets, secretHeaders = append(secrets, v), append(secretHeaders, k)
		}
		// A secret is meant for the server the definition names, not for
		// wherever that server redirects.
		req = req.WithContext(netguard.WithOriginBoundHeaders(ctx, secretHeaders...))
		if call.IdempotencyKey != "" {
			req.Header.Set("Idempotency-Key", call.IdempotencyKey)
		}

		resp, err := d.HTTP.Do(req)
		if err != nil {
			return nil, dialError(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return nil, failf(CodeUpstream, true, "%s answered HTTP %d", u.Host, resp.StatusCode)
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
		if err != nil {
			return nil, dialError(err)
		}
		if len(raw) > maxResponseBody {
			return nil, failf(CodeUpstream, false, "the response body is larger than %d bytes", maxResponseBody)
		}

		// A server that echoes the request (httpbin, say) must not carry
		// a secret into the execution log.
		out := map[string]any{}
		for k, vs := range resp.Header {
			out[strings.ToLower(k)] = hideSecrets(vs[0], secrets)
		}
		var parsed any
		if !isJSON(resp.Header.Get("Content-Type")) || json.Unmarshal(raw, &parsed) != nil {
			parsed = string(raw)
		}
		parsed = hideSecrets(parsed, secrets)
		return map[string]any{"status": resp.StatusCode, "headers": out, "body": parsed}, nil
	}
}

func isJSON(contentType string) bool {
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && (t == "application/json" || strings.HasSuffix(t, "+json"))
}

// stringMap reads an object input of scalar values; numbers and booleans
// that a template produced are written out.
func stringMap(in map[string]any, name string) (map[string]string, error) {
	m, _ := in[name].(map[string]any)
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case nil:
		case string:
			out[k] = v
		case float64:
			out[k] = strconv.FormatFloat(v, 'f', -1, 64)
		case bool:
			out[k] = strconv.FormatBool(v)
		default:
			return nil, failf(CodeInvalidInput, false, "%s: %s must be a string", name, k)
		}
	}
	return out, nil
}

// hideSecrets replaces every secret value in a JSON value's strings.
func hideSecrets(v any, secrets []string) any {
	switch v := v.(type) {
	case string:
		for _, s := range secrets {
			v = strings.ReplaceAll(v, s, "[secret]")
		}
		return v
	case []any:
		for i := range v {
			v[i] = hideSecrets(v[i], secrets)
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[hideSecrets(k, secrets).(string)] = hideSecrets(e, secrets)
		}
		return out
	}
	return v
}

package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

var testNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func newTest(t testing.TB, seed int64, now time.Time) *Sandbox {
	t.Helper()
	return New(Config{Seed: seed, Now: func() time.Time { return now }})
}

// get performs a request against the handler with credentials for every protocol.
func get(t testing.TB, h http.Handler, path string) (int, []byte) {
	t.Helper()
	return do(h, httptest.NewRequest(http.MethodGet, path, nil))
}

// getRaw sends rawQuery as is, however malformed.
func getRaw(t testing.TB, h http.Handler, path, rawQuery string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.URL.RawQuery = rawQuery
	return do(h, req)
}

func do(h http.Handler, req *http.Request) (int, []byte) {
	req.Header.Set("Authorization", "Bearer test")
	req.Header.Set("x-api-key", "test")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, body
}

func getJSON(t testing.TB, h http.Handler, path string, wantStatus int) map[string]any {
	t.Helper()
	code, body := get(t, h, path)
	if code != wantStatus {
		t.Fatalf("GET %s: status %d, want %d: %s", path, code, wantStatus, body)
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET %s: decode: %v: %s", path, err, body)
	}
	return v
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func newRecorder(h http.Handler, path string, headers map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

package sandbox

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHubSpotAccountInfo(t *testing.T) {
	h := New(Config{Seed: 1}).Handler()
	get := func(auth string) (int, map[string]any) {
		req := httptest.NewRequest(http.MethodGet, "/hubspot/account-info/v3/details", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("body %q: %v", rec.Body, err)
		}
		return rec.Code, body
	}
	code, body := get("Bearer pat-na1-abc")
	if code != 200 {
		t.Fatalf("status %d %v", code, body)
	}
	for _, k := range []string{"portalId", "accountType", "timeZone", "companyCurrency", "additionalCurrencies", "utcOffset", "utcOffsetMilliseconds", "uiDomain", "dataHostingLocation"} {
		if _, ok := body[k]; !ok {
			t.Errorf("details lack %s: %v", k, body)
		}
	}
	if _, again := get("Bearer pat-na1-abc"); again["portalId"] != body["portalId"] {
		t.Errorf("portal changed between calls: %v, %v", body["portalId"], again["portalId"])
	}
	for _, auth := range []string{"", "Bearer ", "Bearer invalid-abc", "Basic abc"} {
		code, body := get(auth)
		if code != 401 || body["status"] != "error" || body["category"] != "INVALID_AUTHENTICATION" || body["message"] == "" || body["correlationId"] == "" {
			t.Errorf("auth %q: %d %v", auth, code, body)
		}
	}
}

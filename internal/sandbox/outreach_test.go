package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// call sends one request to the sandbox with the given headers.
func call(t *testing.T, h http.Handler, method, path string, header map[string]string, body any) (int, []byte, http.Header) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	} else {
		rd = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, path, rd)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), rec.Result().Header
}

func TestSmartleadSandboxCapAndPartition(t *testing.T) {
	h := newTest(t, 1, testNow).Handler()
	var cs []struct{ ID int }
	_, body, _ := call(t, h, "GET", "/smartlead/campaigns?api_key=cap", nil, nil)
	if err := json.Unmarshal(body, &cs); err != nil || len(cs) != 3 {
		t.Fatalf("campaigns %s", body)
	}
	path := fmt.Sprintf("/smartlead/campaigns/%d/leads?api_key=cap", cs[0].ID)
	for batch := range outreachMaxLeads / 400 {
		leads := make([]map[string]any, 400)
		for i := range leads {
			leads[i] = map[string]any{"email": fmt.Sprintf("l%d-%d@example.com", batch, i)}
		}
		if code, body, _ := call(t, h, "POST", path, nil, map[string]any{"lead_list": leads}); code != 200 || !strings.Contains(string(body), `"upload_count":400`) {
			t.Fatalf("batch %d: %d %s", batch, code, body)
		}
	}
	code, body, _ := call(t, h, "POST", path, nil, map[string]any{"lead_list": []any{map[string]any{"email": "one-more@example.com"}}})
	if code != 200 || !strings.Contains(string(body), `"is_lead_limit_exhausted":true`) || !strings.Contains(string(body), `"upload_count":0`) {
		t.Fatalf("past the cap: %d %s", code, body)
	}
	// Another key is another account: it cannot see the first one's campaign.
	other := strings.Replace(path, "api_key=cap", "api_key=other", 1)
	if code, body, _ := call(t, h, "POST", other, nil, map[string]any{"lead_list": []any{map[string]any{"email": "a@example.com"}}}); code != 404 || !strings.Contains(string(body), "Campaign not found") {
		t.Fatalf("another account's campaign: %d %s", code, body)
	}
	if code, body, _ := call(t, h, "POST", path, nil, map[string]any{"lead_list": []any{}, "settings": map[string]any{"update": true}}); code != 400 {
		t.Fatalf("bad body: %d %s", code, body)
	}
	if code, body, hdr := call(t, h, "GET", "/smartlead/campaigns?api_key=ratelimited-x", nil, nil); code != 429 || hdr.Get("Retry-After") != "1" {
		t.Fatalf("rate-limited key: %d %s", code, body)
	}
}

func TestOutreachSandboxFaults(t *testing.T) {
	h := newTest(t, 1, testNow).Handler()
	// Instantly: its JSON error shape.
	code, body, _ := call(t, h, "GET", "/instantly/api/v2/campaigns", map[string]string{"Authorization": "Bearer invalid-k"}, nil)
	if code != 401 || !strings.Contains(string(body), `"statusCode":401`) {
		t.Fatalf("instantly 401: %d %s", code, body)
	}
	bearer := map[string]string{"Authorization": "Bearer k"}
	_, body, _ = call(t, h, "GET", "/instantly/api/v2/campaigns?limit=2", bearer, nil)
	var page struct {
		Items []struct{ ID string }
		Next  string `json:"next_starting_after"`
	}
	if json.Unmarshal(body, &page) != nil || len(page.Items) != 2 || page.Next != page.Items[1].ID {
		t.Fatalf("instantly page: %s", body)
	}
	_, body, _ = call(t, h, "GET", "/instantly/api/v2/campaigns?limit=2&starting_after="+page.Next, bearer, nil)
	if !strings.Contains(string(body), "Webinar") || strings.Contains(string(body), "next_starting_after") {
		t.Fatalf("instantly last page: %s", body)
	}
	if code, body, _ := call(t, h, "POST", "/instantly/api/v2/leads", bearer, map[string]any{"campaign": page.Items[0].ID, "email": "nope"}); code != 400 {
		t.Fatalf("instantly bad email: %d %s", code, body)
	}

	// lemlist: plain-text errors, and its duplicate answer.
	basic := func(key string) map[string]string {
		req := httptest.NewRequest("GET", "/", nil)
		req.SetBasicAuth("", key)
		return map[string]string{"Authorization": req.Header.Get("Authorization")}
	}
	if code, body, _ := call(t, h, "GET", "/lemlist/team", basic("invalid-k"), nil); code != 401 || string(body) != "Invalid API key" {
		t.Fatalf("lemlist 401: %d %s", code, body)
	}
	var cs []struct {
		ID string `json:"_id"`
	}
	_, body, _ = call(t, h, "GET", "/lemlist/campaigns", basic("k"), nil)
	if json.Unmarshal(body, &cs) != nil || len(cs) != 3 || !strings.HasPrefix(cs[0].ID, "cam_") {
		t.Fatalf("lemlist campaigns: %s", body)
	}
	path := "/lemlist/campaigns/" + cs[0].ID + "/leads/ann@example.com?deduplicate=true"
	if code, body, _ := call(t, h, "POST", path, basic("k"), map[string]any{"firstName": "Ann"}); code != 200 || !strings.Contains(string(body), `"_id":"lea_`) {
		t.Fatalf("lemlist add: %d %s", code, body)
	}
	if code, body, _ := call(t, h, "POST", path, basic("k"), nil); code != 400 || string(body) != "Lead already in the campaign" {
		t.Fatalf("lemlist again: %d %s", code, body)
	}

	// HeyReach: a draft campaign takes no leads; a profile URL's spelling does not count.
	key := map[string]string{"X-API-KEY": "k"}
	_, body, _ = call(t, h, "POST", "/heyreach/campaign/GetAll", key, map[string]any{"offset": 0, "limit": 10})
	var hr struct {
		Items []struct {
			ID     int
			Status string
		}
	}
	if json.Unmarshal(body, &hr) != nil || len(hr.Items) != 3 || hr.Items[2].Status != "DRAFT" {
		t.Fatalf("heyreach campaigns: %s", body)
	}
	add := func(id int, url string) (int, string) {
		code, body, _ := call(t, h, "POST", "/heyreach/campaign/AddLeadsToCampaignV2", key,
			map[string]any{"campaignId": id, "accountLeadPairs": []any{map[string]any{"lead": map[string]any{"profileUrl": url}}}})
		return code, string(body)
	}
	if code, body := add(hr.Items[2].ID, "https://www.linkedin.com/in/ann"); code != 400 {
		t.Fatalf("draft campaign: %d %s", code, body)
	}
	if code, body := add(hr.Items[0].ID, "https://www.linkedin.com/in/ann"); code != 200 || !strings.Contains(body, `"addedLeadsCount":1`) {
		t.Fatalf("add: %d %s", code, body)
	}
	if code, body := add(hr.Items[0].ID, "http://linkedin.com/in/Ann/?trk=x"); code != 200 || !strings.Contains(body, `"updatedLeadsCount":1`) {
		t.Fatalf("again: %d %s", code, body)
	}
	if code, body := add(hr.Items[0].ID, "https://example.com/in/ann"); code != 400 {
		t.Fatalf("not a LinkedIn URL: %d %s", code, body)
	}
}

func FuzzNormProfileURL(f *testing.F) {
	for _, s := range []string{"https://www.linkedin.com/in/ann/", "linkedin.com/in/a?x", "https://evil.com/in/x", "https://de.linkedin.com/in/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := normProfileURL(s)
		if k != "" && (!strings.HasPrefix(k, "linkedin.com/in/") || normProfileURL("https://"+k) != k) {
			t.Fatalf("normProfileURL(%q) = %q", s, k)
		}
	})
}

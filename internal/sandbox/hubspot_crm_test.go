package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hubSpotClient calls the sandbox's HubSpot with a token.
type hubSpotClient struct {
	t     *testing.T
	h     http.Handler
	token string
}

func (c hubSpotClient) do(method, path string, body any) (int, map[string]any, http.Header) {
	c.t.Helper()
	var r *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	} else {
		r = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, "/hubspot"+path, r)
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		c.t.Fatalf("%s %s: %d %q is not JSON", method, path, rec.Code, rec.Body)
	}
	return rec.Code, out, rec.Header()
}

func upsertBody(email string, props map[string]any) map[string]any {
	return map[string]any{"inputs": []any{map[string]any{"idProperty": "email", "id": email, "properties": props}}}
}

func firstResult(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	rs, _ := body["results"].([]any)
	if len(rs) == 0 {
		t.Fatalf("no results: %v", body)
	}
	return rs[0].(map[string]any)
}

func TestHubSpotCRMUpsertAndErrors(t *testing.T) {
	h := New(Config{Seed: 1}).Handler()
	c := hubSpotClient{t, h, "pat-na1-one"}

	code, body, _ := c.do("POST", "/crm/v3/objects/contacts/batch/upsert", upsertBody("Jane@Acme.com", map[string]any{"firstname": "Jane"}))
	first := firstResult(t, body)
	if code != 200 || body["status"] != "COMPLETE" || first["new"] != true || body["startedAt"] == nil {
		t.Fatalf("upsert: %d %v", code, body)
	}
	id := first["id"].(string)
	if strings.Trim(id, "0123456789") != "" || first["createdAt"] == nil {
		t.Fatalf("id %q is not numeric: %v", id, first)
	}
	code, body, _ = c.do("POST", "/crm/v3/objects/contacts/batch/upsert", upsertBody("jane@acme.com", map[string]any{"lastname": "Doe", "lifecyclestage": "lead"}))
	again := firstResult(t, body)
	if code != 200 || again["id"] != id || again["new"] != false {
		t.Fatalf("second upsert: %d %v", code, body)
	}
	// Read by id and by email.
	code, body, _ = c.do("GET", "/crm/v3/objects/contacts/"+id+"?properties=firstname,lastname,lifecyclestage", nil)
	props, _ := body["properties"].(map[string]any)
	if code != 200 || props["firstname"] != "Jane" || props["lastname"] != "Doe" || props["lifecyclestage"] != "lead" {
		t.Fatalf("get: %d %v", code, body)
	}
	if code, body, _ = c.do("GET", "/crm/v3/objects/contacts/jane@acme.com?idProperty=email", nil); code != 200 || body["id"] != id {
		t.Fatalf("get by email: %d %v", code, body)
	}
	// Errors.
	code, body, _ = c.do("POST", "/crm/v3/objects/contacts/batch/upsert", upsertBody("not-an-email", nil))
	errs, _ := body["errors"].([]any)
	if code != 400 || body["category"] != "VALIDATION_ERROR" || !strings.Contains(body["message"].(string), "Email address not-an-email is invalid") || len(errs) != 1 {
		t.Fatalf("bad email: %d %v", code, body)
	}
	code, body, _ = c.do("POST", "/crm/v3/objects/contacts/batch/upsert", upsertBody("x@acme.com", map[string]any{"favourite_colour": "red"}))
	if code != 400 || !strings.Contains(body["message"].(string), "PROPERTY_DOESNT_EXIST") {
		t.Fatalf("unknown property: %d %v", code, body)
	}
	code, body, _ = c.do("POST", "/crm/v3/objects/contacts/batch/upsert", upsertBody("x@acme.com", map[string]any{"lifecyclestage": "champion"}))
	if code != 400 || !strings.Contains(body["message"].(string), "INVALID_OPTION") {
		t.Fatalf("bad option: %d %v", code, body)
	}
	code, body, _ = c.do("POST", "/crm/v3/objects/contacts", map[string]any{"properties": map[string]any{"email": "jane@acme.com"}})
	if code != 409 || body["category"] != "CONFLICT" || body["message"] != "Contact already exists. Existing ID: "+id {
		t.Fatalf("duplicate create: %d %v", code, body)
	}
	for _, path := range []string{"/crm/v3/objects/contacts/missing-1", "/crm/v3/objects/contacts/999", "/crm/v3/objects/companies/" + id} {
		if code, body, _ = c.do("GET", path, nil); code != 404 || body["category"] != "OBJECT_NOT_FOUND" {
			t.Fatalf("GET %s: %d %v", path, code, body)
		}
	}
	if code, body, _ = c.do("POST", "/crm/v3/objects/notes", map[string]any{"properties": map[string]any{"hs_note_body": "hi"}}); code != 400 || body["category"] != "VALIDATION_ERROR" {
		t.Fatalf("note without hs_timestamp: %d %v", code, body)
	}
	if code, body, _ = c.do("POST", "/crm/v3/objects/widgets", map[string]any{"properties": map[string]any{}}); code != 400 {
		t.Fatalf("unknown object type: %d %v", code, body)
	}

	// Another token is another portal.
	other := hubSpotClient{t, h, "pat-na1-two"}
	if code, body, _ = other.do("GET", "/crm/v3/objects/contacts/"+id, nil); code != 404 {
		t.Fatalf("another portal sees the contact: %d %v", code, body)
	}
}

func TestHubSpotCRMSearchAssociations(t *testing.T) {
	h := New(Config{Seed: 1}).Handler()
	c := hubSpotClient{t, h, "pat-na1-assoc"}
	_, body, _ := c.do("POST", "/crm/v3/objects/contacts/batch/upsert", upsertBody("ann@globex.com", nil))
	contact := firstResult(t, body)["id"].(string)
	code, body, _ := c.do("POST", "/crm/v3/objects/companies", map[string]any{"properties": map[string]any{"domain": "Globex.com", "name": "Globex", "industry": "INTERNET"}})
	if code != 201 {
		t.Fatalf("create company: %d %v", code, body)
	}
	company := body["id"].(string)
	search := map[string]any{"filterGroups": []any{map[string]any{"filters": []any{map[string]any{"propertyName": "domain", "operator": "EQ", "value": "globex.com"}}}}, "properties": []string{"name"}}
	code, body, _ = c.do("POST", "/crm/v3/objects/companies/search", search)
	if code != 200 || body["total"] != float64(1) || firstResult(t, body)["id"] != company {
		t.Fatalf("search: %d %v", code, body)
	}
	search["filterGroups"] = []any{map[string]any{"filters": []any{map[string]any{"propertyName": "nope", "operator": "EQ", "value": "x"}}}}
	if code, body, _ = c.do("POST", "/crm/v3/objects/companies/search", search); code != 400 || body["category"] != "VALIDATION_ERROR" {
		t.Fatalf("search on an unknown property: %d %v", code, body)
	}

	code, body, _ = c.do("PUT", "/crm/v4/objects/contacts/"+contact+"/associations/default/companies/"+company, nil)
	if code != 200 || body["status"] != "COMPLETE" || len(body["results"].([]any)) != 2 {
		t.Fatalf("associate: %d %v", code, body)
	}
	spec := firstResult(t, body)["associationSpec"].(map[string]any)
	if spec["associationTypeId"] != float64(279) || spec["associationCategory"] != "HUBSPOT_DEFINED" {
		t.Fatalf("association spec %v", spec)
	}
	c.do("PUT", "/crm/v4/objects/contacts/"+contact+"/associations/default/companies/"+company, nil)
	code, body, _ = c.do("GET", "/crm/v4/objects/contacts/"+contact+"/associations/companies", nil)
	if rs := body["results"].([]any); code != 200 || len(rs) != 1 || len(rs[0].(map[string]any)["associationTypes"].([]any)) != 1 {
		t.Fatalf("associations after associating twice: %d %v", code, body)
	}
	if code, body, _ = c.do("PUT", "/crm/v4/objects/contacts/missing-9/associations/default/companies/"+company, nil); code != 404 || body["category"] != "OBJECT_NOT_FOUND" {
		t.Fatalf("associate a missing contact: %d %v", code, body)
	}

	// A note on the contact, found by association and body.
	note := map[string]any{"properties": map[string]any{"hs_note_body": "Met at the fair", "hs_timestamp": "1700000000000"},
		"associations": []any{map[string]any{"to": map[string]any{"id": contact}, "types": []any{map[string]any{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 202}}}}}
	if code, body, _ = c.do("POST", "/crm/v3/objects/notes", note); code != 201 {
		t.Fatalf("create note: %d %v", code, body)
	}
	noteID := body["id"].(string)
	search = map[string]any{"filterGroups": []any{map[string]any{"filters": []any{
		map[string]any{"propertyName": "associations.contact", "operator": "EQ", "value": contact},
		map[string]any{"propertyName": "hs_note_body", "operator": "EQ", "value": "Met at the fair"},
	}}}}
	if code, body, _ = c.do("POST", "/crm/v3/objects/notes/search", search); code != 200 || body["total"] != float64(1) || firstResult(t, body)["id"] != noteID {
		t.Fatalf("note search: %d %v", code, body)
	}
	code, body, _ = c.do("GET", "/crm/v3/objects/notes/"+noteID+"?properties=hs_timestamp", nil)
	if props := body["properties"].(map[string]any); code != 200 || props["hs_timestamp"] != "2023-11-14T22:13:20.000Z" {
		t.Fatalf("note's timestamp is not ISO 8601: %v", body)
	}
	note["associations"] = []any{map[string]any{"to": map[string]any{"id": "missing-1"}, "types": []any{map[string]any{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 202}}}}
	if code, body, _ = c.do("POST", "/crm/v3/objects/notes", note); code != 404 {
		t.Fatalf("note on a missing contact: %d %v", code, body)
	}
}

func TestHubSpotCRMPropertiesAndFaults(t *testing.T) {
	h := New(Config{Seed: 1}).Handler()
	c := hubSpotClient{t, h, "pat-na1-props"}
	code, body, _ := c.do("GET", "/crm/v3/properties/contacts", nil)
	if code != 200 || len(body["results"].([]any)) < 10 {
		t.Fatalf("contact properties: %d %v", code, body)
	}
	code, body, _ = c.do("GET", "/crm/v3/properties/companies/industry", nil)
	if opts, _ := body["options"].([]any); code != 200 || body["type"] != "enumeration" || body["fieldType"] != "select" || len(opts) < 5 {
		t.Fatalf("industry: %d %v", code, body)
	}
	if code, body, _ = c.do("GET", "/crm/v3/properties/contacts/nope", nil); code != 404 || body["category"] != "OBJECT_NOT_FOUND" {
		t.Fatalf("missing property: %d %v", code, body)
	}

	limited := hubSpotClient{t, h, "ratelimited-1"}
	code, body, hdr := limited.do("POST", "/crm/v3/objects/contacts/batch/upsert", upsertBody("a@b.co", nil))
	if code != 429 || body["policyName"] == nil || body["errorType"] != "RATE_LIMIT" || hdr.Get("Retry-After") != "1" || hdr.Get("X-HubSpot-RateLimit-Max") == "" {
		t.Fatalf("rate limited: %d %v %v", code, body, hdr)
	}
	if code, body, _ = c.do("POST", "/crm/v3/objects/contacts/batch/upsert", upsertBody("flaky-1@acme.com", nil)); code != 429 {
		t.Fatalf("flaky first: %d %v", code, body)
	}
	if code, body, _ = c.do("POST", "/crm/v3/objects/contacts/batch/upsert", upsertBody("flaky-1@acme.com", nil)); code != 200 {
		t.Fatalf("flaky second: %d %v", code, body)
	}
	if code, body, _ = (hubSpotClient{t, h, "invalid-x"}).do("GET", "/crm/v3/properties/contacts", nil); code != 401 || body["category"] != "INVALID_AUTHENTICATION" {
		t.Fatalf("invalid token: %d %v", code, body)
	}
}

// FuzzHubSpotCRMRequests sends arbitrary bodies to the CRM's write and
// search endpoints: every answer is HubSpot's JSON, never a 5xx.
func FuzzHubSpotCRMRequests(f *testing.F) {
	for _, s := range []string{
		`{"inputs":[{"idProperty":"email","id":"a@b.co","properties":{"firstname":"A","numberofemployees":3}}]}`,
		`{"properties":{"hs_note_body":"x","hs_timestamp":"1700000000000"},"associations":[{"to":{"id":"1"},"types":[{"associationTypeId":202}]}]}`,
		`{"filterGroups":[{"filters":[{"propertyName":"email","operator":"IN","values":["a",1,null]}]}],"limit":-1,"after":"-5"}`,
		`{"properties":{"email":["x"]}}`, `null`, `[]`, `{`,
	} {
		f.Add(uint8(0), s)
	}
	h := New(Config{Seed: 1}).Handler()
	types := []string{"contacts", "companies", "notes", "tasks", "0-1", "deals"}
	f.Fuzz(func(t *testing.T, kind uint8, body string) {
		typ := types[int(kind)%len(types)]
		for _, path := range []string{"/crm/v3/objects/" + typ, "/crm/v3/objects/" + typ + "/batch/upsert", "/crm/v3/objects/" + typ + "/search"} {
			req := httptest.NewRequest(http.MethodPost, "/hubspot"+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer pat-fuzz")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 500 || !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("POST %s %q: %d %q", path, body, rec.Code, rec.Body)
			}
		}
	})
}

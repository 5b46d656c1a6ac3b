package action

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzHubSpotAnswers feeds arbitrary bodies to the decoding of HubSpot's
// answers the steps read (ids as strings or numbers, null properties, a
// batch's errors): nothing panics, and a batch yields one record or an
// error.
func FuzzHubSpotAnswers(f *testing.F) {
	for _, s := range []string{
		`{"status":"COMPLETE","results":[{"id":"51","properties":{"email":"a@b.co","firstname":null},"createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z","new":true}]}`,
		`{"status":"COMPLETE","results":[{"id":51,"properties":{}}]}`,
		`{"status":"COMPLETE","results":[],"errors":[{"status":"error","category":"VALIDATION_ERROR","message":"bad"}]}`,
		`{"total":1,"results":[{"id":"7"}]}`,
		`{"results":[{"id":1e3}]}`, `{"results":null}`, `[]`, `null`, `{"id":"x","new":"yes"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var batch hubSpotBatchAnswer
		if json.Unmarshal(body, &batch) == nil {
			o, err := batch.one()
			if (o == nil) == (err == nil) {
				t.Fatalf("one() = %v, %v", o, err)
			}
			if o != nil {
				_ = o.created()
				_ = o.propertyMap()
			}
		}
		var search hubSpotSearchAnswer
		_ = json.Unmarshal(body, &search)
		var obj hubSpotObject
		_ = json.Unmarshal(body, &obj)
		var id hubSpotID
		if json.Unmarshal(body, &id) == nil && strings.ContainsAny(string(id), "\"{[") {
			t.Fatalf("id %q from %q", id, body)
		}
	})
}

// FuzzHubSpotInputs feeds arbitrary text to the parsing of the steps'
// inputs: a domain, a time and property values.
func FuzzHubSpotInputs(f *testing.F) {
	for _, s := range []string{"https://www.Acme.com/about?x=1", "jane@acme.com", "acme.com:443", "", "2026-12-01T09:00:00Z", "1796115600000", "2026-12-01", "::::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := hubSpotDomain(s)
		if strings.ContainsAny(d, "/?#@") {
			t.Fatalf("domain %q from %q", d, s)
		}
		_, _ = hubSpotTimestamp(s, nil)
		_, _ = hubSpotPropertyValues(map[string]any{"x": s, "y": []any{s}}, 0)
	})
}

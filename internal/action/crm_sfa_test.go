package action

import (
	"context"
	"errors"
	"testing"

	"github.com/trawlhq/trawl/internal/integration"
)

// TestSalesforceAttioInputs: inputs Salesforce or Attio could not take
// fail the step before any call, as INVALID_INPUT; a missing connection
// is NOT_CONNECTED.
func TestSalesforceAttioInputs(t *testing.T) {
	noConn := func(context.Context, string) (*integration.Conn, error) {
		return nil, integration.ErrNotConnected
	}
	for _, tc := range []struct {
		name string
		run  Executor
		in   map[string]any
		code string
	}{
		{"lead without key", salesforceUpsertLead, map[string]any{"LastName": "x"}, CodeInvalidInput},
		{"lead bad key field", salesforceUpsertLead, map[string]any{"external_id": "x", "external_id_field": "a/b"}, CodeInvalidInput},
		{"lead fields not object", salesforceUpsertLead, map[string]any{"external_id": "x", "fields": "Industry"}, CodeInvalidInput},
		{"lead bad field name", salesforceUpsertLead, map[string]any{"external_id": "x", "fields": map[string]any{"a b": 1}}, CodeInvalidInput},
		{"lead not connected", salesforceUpsertLead, map[string]any{"external_id": "x"}, CodeNotConnected},
		{"task without subject", salesforceCreateTask, map[string]any{"WhoId": "00Q"}, CodeInvalidInput},
		{"task bad key field", salesforceCreateTask, map[string]any{"WhoId": "00Q", "Subject": "s", "idempotency_field": "?"}, CodeInvalidInput},
		{"person without email", attioAssertPerson, map[string]any{"first_name": "x"}, CodeInvalidInput},
		{"person values not object", attioAssertPerson, map[string]any{"email": "a@b.co", "values": []any{}}, CodeInvalidInput},
		{"entry without list", attioAddToList, map[string]any{"record_id": "r"}, CodeInvalidInput},
		{"entry without record", attioAddToList, map[string]any{"list": "l"}, CodeInvalidInput},
		{"entry not connected", attioAddToList, map[string]any{"list": "l", "record_id": "r"}, CodeNotConnected},
	} {
		_, err := tc.run(t.Context(), Call{Inputs: tc.in, Connection: noConn})
		var e *Error
		if !errors.As(err, &e) || e.Code != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
	if a, b := salesforceTaskKey("x/1/step"), salesforceTaskKey("x/1/step"); a != b || len(a) != 38 || a == salesforceTaskKey("x/2/step") {
		t.Fatalf("task keys %q %q", a, b)
	}
}

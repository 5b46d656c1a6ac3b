package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

func airtableConn(t *testing.T, token string) *integration.Conn {
	t.Helper()
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	t.Cleanup(srv.Close)
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"airtable": srv.URL + "/airtable"},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	return k.Conn(integration.Airtable, integration.Credentials{"access_token": token}, "acct")
}

func TestAirtableProbeAndLookups(t *testing.T) {
	ctx := context.Background()
	if fes := integration.Airtable.Validate(integration.Credentials{"access_token": "patAbc.123"}); len(fes) != 0 {
		t.Fatal(fes)
	}
	c := airtableConn(t, "patSandbox.0123456789")
	if err := integration.Airtable.Probe(ctx, c); err != nil {
		t.Fatal(err)
	}
	bases, err := integration.Airtable.Lookups["bases"](ctx, c, nil)
	raw, _ := json.Marshal(bases)
	var bs []struct{ ID, Name string }
	_ = json.Unmarshal(raw, &bs)
	if err != nil || len(bs) != 2 || bs[0].Name != "Growth CRM" || !integration.AirtableIDRE.MatchString(bs[0].ID) {
		t.Fatalf("bases = %s, %v", raw, err)
	}
	tables, err := integration.Airtable.Lookups["tables"](ctx, c, url.Values{"base_id": {bs[0].ID}})
	raw, _ = json.Marshal(tables)
	var ts []struct {
		ID, Name       string
		PrimaryFieldID string `json:"primary_field_id"`
	}
	_ = json.Unmarshal(raw, &ts)
	if err != nil || len(ts) != 2 || ts[0].Name != "Leads" || !strings.HasPrefix(ts[0].PrimaryFieldID, "fld") {
		t.Fatalf("tables = %s, %v", raw, err)
	}
	for _, ref := range []string{ts[0].ID, "Leads"} {
		fields, err := integration.Airtable.Lookups["fields"](ctx, c, url.Values{"base_id": {bs[0].ID}, "table_id": {ref}})
		raw, _ = json.Marshal(fields)
		if err != nil || !strings.Contains(string(raw), `"name":"Email","type":"email"`) || !strings.Contains(string(raw), `"name":"Qualified"`) {
			t.Fatalf("fields = %s, %v", raw, err)
		}
	}
	var pe *integration.ParamError
	if _, err := integration.Airtable.Lookups["tables"](ctx, c, url.Values{"base_id": {"nope"}}); !errors.As(err, &pe) || pe.Param != "base_id" {
		t.Fatalf("bad base id: %v", err)
	}
	if _, err := integration.Airtable.Lookups["fields"](ctx, c, url.Values{"base_id": {bs[0].ID}, "table_id": {"Nope"}}); !errors.As(err, &pe) || pe.Param != "table_id" {
		t.Fatalf("unknown table: %v", err)
	}
	var se *integration.Error
	if _, err := integration.Airtable.Lookups["tables"](ctx, c, url.Values{"base_id": {"appAAAAAAAAAAAAAA"}}); !errors.As(err, &se) || se.Status != http.StatusNotFound || !strings.Contains(se.Message, "NOT_FOUND") {
		t.Fatalf("unknown base: %v", err)
	}
}

func TestAirtableRejected(t *testing.T) {
	err := integration.Airtable.Probe(context.Background(), airtableConn(t, "invalid-token"))
	if !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "AUTHENTICATION_REQUIRED") {
		t.Fatalf("probe = %v", err)
	}
	err = integration.Airtable.Probe(context.Background(), airtableConn(t, "ratelimited-token"))
	var se *integration.Error
	if !errors.As(err, &se) || se.Status != http.StatusTooManyRequests || !strings.Contains(se.Message, "RATE_LIMIT_REACHED") {
		t.Fatalf("probe = %v", err)
	}
}

func FuzzServiceErrorBodies(f *testing.F) {
	f.Add([]byte(`{"error":{"type":"INVALID_VALUE_FOR_COLUMN","message":"Field \"Score\" cannot accept the provided value"}}`))
	f.Add([]byte(`{"error":"NOT_FOUND"}`))
	f.Add([]byte(`{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}`))
	f.Add([]byte(`{"error":7}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = integration.Airtable.ErrorMessage(body)
		_ = integration.GoogleSheets.ErrorMessage(body)
	})
}

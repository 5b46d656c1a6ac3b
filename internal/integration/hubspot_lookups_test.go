package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

func TestHubSpotLookupsAgainstSandbox(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	defer srv.Close()
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"hubspot": srv.URL + "/hubspot"},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	conn := k.Conn(integration.HubSpot, integration.Credentials{"access_token": "pat-na1-lookups"}, "")
	lookups := integration.HubSpot.Lookups

	out, err := lookups["crm-fields"](t.Context(), conn, url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	fields := out.(map[string][]integration.CRMField)
	find := func(typ, slug string) *integration.CRMField {
		for i, f := range fields[typ] {
			if f.Slug == slug {
				return &fields[typ][i]
			}
		}
		return nil
	}
	if f := find("contacts", "email"); f == nil || f.Label != "Email" || f.Type != "string" || f.FieldType != "text" || f.Options != nil {
		t.Fatalf("contacts' email: %+v", f)
	}
	if f := find("companies", "industry"); f == nil || f.Type != "enumeration" || len(f.Options) < 5 || f.Options[0].Value == "" || f.Options[0].Label == "" {
		t.Fatalf("companies' industry: %+v", f)
	}
	raw, _ := json.Marshal(out)
	var shape map[string][]map[string]any
	if err := json.Unmarshal(raw, &shape); err != nil || len(shape["contacts"]) == 0 || shape["contacts"][0]["slug"] == nil || shape["contacts"][0]["field_type"] == nil {
		t.Fatalf("crm-fields JSON: %s", raw)
	}

	opts := lookups["crm-field-options"]
	got, err := opts(t.Context(), conn, url.Values{"object_type": {"contacts"}, "field_slug": {"hs_lead_status"}})
	if o, _ := got.([]integration.FieldOption); err != nil || len(o) < 3 || o[0] != (integration.FieldOption{Label: "New", Value: "NEW"}) {
		t.Fatalf("hs_lead_status options: %v, %v", got, err)
	}
	var pe *integration.ParamError
	if _, err := opts(t.Context(), conn, url.Values{"object_type": {"contacts"}, "field_slug": {"firstname"}}); !errors.As(err, &pe) || pe.Param != "field_slug" {
		t.Fatalf("a text property's options: %v", err)
	}
	if _, err := opts(t.Context(), conn, url.Values{"object_type": {"deals"}, "field_slug": {"x"}}); !errors.As(err, &pe) || pe.Param != "object_type" {
		t.Fatalf("deals: %v", err)
	}
	var se *integration.Error
	if _, err := opts(t.Context(), conn, url.Values{"object_type": {"companies"}, "field_slug": {"nope"}}); !errors.As(err, &se) || se.Status != 404 {
		t.Fatalf("a missing property: %v", err)
	}
	rejected := k.Conn(integration.HubSpot, integration.Credentials{"access_token": "invalid-1"}, "")
	if _, err := lookups["crm-fields"](t.Context(), rejected, nil); !errors.Is(err, integration.ErrRejected) {
		t.Fatalf("invalid token: %v", err)
	}
}

// FuzzHubSpotProperties decodes arbitrary property definitions as the
// lookups do: nothing panics.
func FuzzHubSpotProperties(f *testing.F) {
	f.Add([]byte(`{"name":"industry","label":"Industry","type":"enumeration","fieldType":"select","options":[{"label":"A","value":"a","hidden":false}]}`))
	f.Add([]byte(`{"name":"x","options":null}`))
	f.Add([]byte(`{"results":[{"name":1}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var p integration.HubSpotProperty
		_ = json.Unmarshal(body, &p)
		var list struct {
			Results []integration.HubSpotProperty `json:"results"`
		}
		_ = json.Unmarshal(body, &list)
	})
}

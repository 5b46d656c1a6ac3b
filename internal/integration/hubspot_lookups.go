package integration

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// HubSpot's lookups, from its properties API (CRM v3):
// GET /crm/v3/properties/{objectType} and
// GET /crm/v3/properties/{objectType}/{propertyName}.

func hubSpotLookups() map[string]LookupFunc {
	return map[string]LookupFunc{
		"crm-fields":        hubSpotCRMFields,
		"crm-field-options": hubSpotCRMFieldOptions,
	}
}

// HubSpotProperty is the part of a property's definition the lookups read.
type HubSpotProperty struct {
	Name      string `json:"name"`
	Label     string `json:"label"`
	Type      string `json:"type"`
	FieldType string `json:"fieldType"`
	Hidden    bool   `json:"hidden"`
	Archived  bool   `json:"archived"`
	Options   []struct {
		Label  string `json:"label"`
		Value  string `json:"value"`
		Hidden bool   `json:"hidden"`
	} `json:"options"`
}

// CRMField is a field of the crm-fields lookup.
type CRMField struct {
	Slug      string        `json:"slug"`
	Label     string        `json:"label"`
	Type      string        `json:"type"`
	FieldType string        `json:"field_type,omitempty"`
	Options   []FieldOption `json:"options,omitempty"`
}

// FieldOption is an option of an enumeration field.
type FieldOption struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// hubSpotCRMFields answers {contacts: [...], companies: [...]}: the
// properties a workflow may write, hidden and archived ones left out.
func hubSpotCRMFields(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	out := make(map[string][]CRMField, 2)
	for _, typ := range [...]string{"contacts", "companies"} {
		var answer struct {
			Results []HubSpotProperty `json:"results"`
		}
		if err := c.Do(ctx, Request{Path: "/crm/v3/properties/" + typ}, &answer); err != nil {
			return nil, err
		}
		fields := make([]CRMField, 0, len(answer.Results))
		for _, p := range answer.Results {
			if p.Name == "" || p.Hidden || p.Archived {
				continue
			}
			fields = append(fields, p.field())
		}
		out[typ] = fields
	}
	return out, nil
}

func (p HubSpotProperty) field() CRMField {
	f := CRMField{Slug: p.Name, Label: p.Label, Type: p.Type, FieldType: p.FieldType}
	if f.Label == "" {
		f.Label = p.Name
	}
	for _, o := range p.Options {
		if !o.Hidden {
			f.Options = append(f.Options, FieldOption{Label: o.Label, Value: o.Value})
		}
	}
	return f
}

// hubSpotCRMFieldOptions answers the options of one property: a 404 from
// HubSpot (no such property) stays the *Error it is, and a property
// without options is a ParamError on field_slug.
func hubSpotCRMFieldOptions(ctx context.Context, c *Conn, params url.Values) (any, error) {
	typ := params.Get("object_type")
	if typ != "contacts" && typ != "companies" {
		return nil, &ParamError{Param: "object_type", Message: "must be contacts or companies"}
	}
	slug := strings.TrimSpace(params.Get("field_slug"))
	if slug == "" || strings.ContainsAny(slug, "/?#%") {
		return nil, &ParamError{Param: "field_slug", Message: "must be a HubSpot property's internal name (GET /v1/integrations/hubspot/crm-fields)"}
	}
	var p HubSpotProperty
	if err := c.Do(ctx, Request{Method: http.MethodGet, Path: "/crm/v3/properties/" + typ + "/" + url.PathEscape(slug)}, &p); err != nil {
		return nil, err
	}
	f := p.field()
	if len(f.Options) == 0 {
		return nil, &ParamError{Param: "field_slug", Message: "names a " + typ + " property without options (" + p.Type + "); only enumeration properties have them"}
	}
	return f.Options, nil
}

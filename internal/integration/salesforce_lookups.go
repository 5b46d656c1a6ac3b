package integration

import (
	"context"
	"net/url"
)

// salesforceObjects are the sObjects behind the lookups' object types:
// contacts are Leads (what salesforce_upsert_lead writes), companies Accounts.
var salesforceObjects = map[string]string{"contacts": "Lead", "companies": "Account"}

// SalesforceDescribe is the part of an sObject's describe the lookups read.
type SalesforceDescribe struct {
	Name   string `json:"name"`
	Fields []struct {
		Name           string `json:"name"`
		Label          string `json:"label"`
		Type           string `json:"type"`
		PicklistValues []struct {
			Active bool   `json:"active"`
			Label  string `json:"label"`
			Value  string `json:"value"`
		} `json:"picklistValues"`
	} `json:"fields"`
}

// describe reads an sObject's fields: GET /sobjects/<name>/describe.
func salesforceDescribe(ctx context.Context, c *Conn, object string) ([]CRMField, error) {
	var d SalesforceDescribe
	if err := c.Do(ctx, Request{Path: SalesforceAPI + "/sobjects/" + object + "/describe"}, &d); err != nil {
		return nil, err
	}
	out := make([]CRMField, 0, len(d.Fields))
	for _, f := range d.Fields {
		cf := CRMField{Slug: f.Name, Label: f.Label, Type: f.Type}
		for _, p := range f.PicklistValues {
			if p.Active {
				cf.Options = append(cf.Options, FieldOption{Value: p.Value, Label: p.Label})
			}
		}
		out = append(out, cf)
	}
	return out, nil
}

// salesforceFields answers crm-fields: the Lead's and the Account's fields.
func salesforceFields(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	contacts, err := salesforceDescribe(ctx, c, salesforceObjects["contacts"])
	if err != nil {
		return nil, err
	}
	companies, err := salesforceDescribe(ctx, c, salesforceObjects["companies"])
	if err != nil {
		return nil, err
	}
	return map[string][]CRMField{"contacts": contacts, "companies": companies}, nil
}

// salesforceFieldOptions answers crm-field-options: a picklist's active values.
func salesforceFieldOptions(ctx context.Context, c *Conn, params url.Values) (any, error) {
	object, ok := salesforceObjects[params.Get("object_type")]
	if !ok {
		return nil, &ParamError{Param: "object_type", Message: "must be contacts or companies"}
	}
	slug := params.Get("field_slug")
	fields, err := salesforceDescribe(ctx, c, object)
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		if f.Slug == slug {
			if f.Type != "picklist" && f.Type != "multipicklist" {
				return nil, &ParamError{Param: "field_slug", Message: "is a " + f.Type + " field of " + object + ", not a picklist"}
			}
			return append([]FieldOption{}, f.Options...), nil
		}
	}
	return nil, &ParamError{Param: "field_slug", Message: "is not a field of " + object}
}

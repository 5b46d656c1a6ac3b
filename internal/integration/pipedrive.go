package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// Pipedrive connects with a user's personal API token, sent in the
// x-api-token header as Pipedrive's docs recommend (the api_token query
// parameter would put it in every proxy's log).
var Pipedrive = &Type{
	Name:        "pipedrive",
	DisplayName: "Pipedrive",
	Source:      SourceAPIKey,
	Fields: []Field{
		{Name: "api_token", Doc: "the personal API token from Pipedrive's Personal preferences → API (one per user and company)", Required: true, MaxLen: 256},
		{Name: "company_domain", Doc: "the company's subdomain (acme for acme.pipedrive.com); optional, api.pipedrive.com when absent", MaxLen: 100},
	},
	DefaultURL:    "https://api.pipedrive.com",
	CredentialURL: pipedriveURL,
	Probe:         probePipedrive,
	Authorize: func(_ context.Context, c *Conn, req *http.Request) error {
		req.Header.Set("x-api-token", c.Creds["api_token"])
		return nil
	},
	ErrorMessage: PipedriveErrorMessage,
	Lookups: map[string]LookupFunc{
		"crm-fields":        pipedriveCRMFields,
		"crm-field-options": pipedriveFieldOptions,
	},
}

func init() { Register(Pipedrive) }

var pipedriveDomainRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// pipedriveURL is https://<company>.pipedrive.com when the credential names
// a company; only a plain subdomain is taken, so a credential never points
// the token at another host.
func pipedriveURL(creds Credentials) string {
	d := strings.ToLower(strings.TrimSpace(creds["company_domain"]))
	d = strings.TrimPrefix(strings.TrimPrefix(d, "https://"), "http://")
	d = strings.TrimSuffix(strings.TrimSuffix(d, "/"), ".pipedrive.com")
	if !pipedriveDomainRE.MatchString(d) {
		return ""
	}
	return "https://" + d + ".pipedrive.com"
}

// PipedriveErrorMessage is the error of Pipedrive's error body
// ({"success":false,"error","error_info"}).
func PipedriveErrorMessage(body []byte) string {
	var e struct {
		Error     string `json:"error"`
		ErrorInfo string `json:"error_info"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	return e.Error
}

// PipedriveEnvelope is every Pipedrive answer: {success, data, additional_data}.
type PipedriveEnvelope[T any] struct {
	Success        bool `json:"success"`
	Data           T    `json:"data"`
	AdditionalData struct {
		Pagination struct {
			MoreItemsInCollection bool `json:"more_items_in_collection"`
			NextStart             int  `json:"next_start"`
		} `json:"pagination"`
	} `json:"additional_data"`
}

// probePipedrive reads the token's user: GET /v1/users/me.
func probePipedrive(ctx context.Context, c *Conn) error {
	var me PipedriveEnvelope[struct {
		ID int64 `json:"id"`
	}]
	if err := c.Do(ctx, Request{Path: "/v1/users/me"}, &me); err != nil {
		return err
	}
	if !me.Success || me.Data.ID == 0 {
		return fmt.Errorf("Pipedrive answered 200 without a user (is its URL Pipedrive's API?)")
	}
	return nil
}

// PipedriveField is one field of persons or organizations.
type PipedriveField struct {
	ID        int64  `json:"id"`
	Key       string `json:"key"`
	Name      string `json:"name"`
	FieldType string `json:"field_type"`
	Options   []struct {
		ID    any    `json:"id"`
		Label string `json:"label"`
	} `json:"options"`
}

// pipedriveFields reads every field of persons (personFields) or
// organizations (organizationFields), page by page.
func pipedriveFields(ctx context.Context, c *Conn, path string) ([]PipedriveField, error) {
	var out []PipedriveField
	for start := 0; len(out) < 5000; {
		var page PipedriveEnvelope[[]PipedriveField]
		q := url.Values{"start": {fmt.Sprint(start)}, "limit": {"500"}}
		if err := c.Do(ctx, Request{Path: path, Query: q}, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Data...)
		p := page.AdditionalData.Pagination
		if !p.MoreItemsInCollection || p.NextStart <= start {
			break
		}
		start = p.NextStart
	}
	return out, nil
}

type crmField struct {
	Slug    string      `json:"slug"`
	Label   string      `json:"label"`
	Type    string      `json:"type"`
	Options []crmOption `json:"options,omitempty"`
}

type crmOption struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

func crmFieldOf(f PipedriveField) crmField {
	out := crmField{Slug: f.Key, Label: f.Name, Type: f.FieldType}
	for _, o := range f.Options {
		out.Options = append(out.Options, crmOption{Value: fmt.Sprint(o.ID), Label: o.Label})
	}
	return out
}

var pipedriveFieldPaths = map[string]string{"contacts": "/v1/personFields", "companies": "/v1/organizationFields"}

func pipedriveCRMFields(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	out := map[string][]crmField{}
	for obj, path := range pipedriveFieldPaths {
		fields, err := pipedriveFields(ctx, c, path)
		if err != nil {
			return nil, err
		}
		list := make([]crmField, 0, len(fields))
		for _, f := range fields {
			list = append(list, crmFieldOf(f))
		}
		out[obj] = list
	}
	return out, nil
}

func pipedriveFieldOptions(ctx context.Context, c *Conn, p url.Values) (any, error) {
	path, ok := pipedriveFieldPaths[p.Get("object_type")]
	if !ok {
		return nil, &ParamError{"object_type", "must be contacts or companies"}
	}
	slug := p.Get("field_slug")
	fields, err := pipedriveFields(ctx, c, path)
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		if f.Key != slug {
			continue
		}
		if f.FieldType != "enum" && f.FieldType != "set" {
			return nil, &ParamError{"field_slug", fmt.Sprintf("names a %s field; only enum and set fields have options", f.FieldType)}
		}
		opts := crmFieldOf(f).Options
		if opts == nil {
			opts = []crmOption{}
		}
		return map[string]any{"field": f.Key, "type": f.FieldType, "options": opts}, nil
	}
	return nil, &ParamError{"field_slug", "is not a field of " + p.Get("object_type")}
}

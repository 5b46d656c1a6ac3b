package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"time"
)

// Airtable connects with a personal access token
// (docs/integrations/sheets-airtable.md).
var Airtable = &Type{
	Name:        "airtable",
	DisplayName: "Airtable",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name: "access_token",
		Doc: "an Airtable personal access token (airtable.com/create/tokens) with the scopes data.records:read, " +
			"data.records:write and schema.bases:read, and access to the bases Trawl writes to",
		Required: true,
		MaxLen:   512,
	}},
	DefaultURL: "https://api.airtable.com",
	// Airtable's 429 carries no Retry-After; its docs ask for 30 seconds.
	RateLimitWait: 30 * time.Second,
	Probe:         probeAirtable,
	Authorize:     BearerAuth("access_token"),
	ErrorMessage:  airtableErrorMessage,
	Lookups: map[string]LookupFunc{
		"bases":  airtableBases,
		"tables": airtableTables,
		"fields": airtableFields,
	},
}

func init() { Register(Airtable) }

// airtableErrorMessage is "TYPE: message" of Airtable's error body,
// {"error": {"type", "message"}}, or its short form {"error": "NOT_FOUND"}.
func airtableErrorMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || len(e.Error) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		return s
	}
	var o struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &o) != nil {
		return ""
	}
	switch {
	case o.Type != "" && o.Message != "":
		return o.Type + ": " + o.Message
	case o.Type != "":
		return o.Type
	}
	return o.Message
}

// probeAirtable asks who the token belongs to: GET /v0/meta/whoami.
func probeAirtable(ctx context.Context, c *Conn) error {
	var who struct {
		ID string `json:"id"`
	}
	err := c.Do(ctx, Request{Path: "/v0/meta/whoami"}, &who)
	var e *Error
	switch {
	case errors.As(err, &e) && e.Status == http.StatusForbidden:
		return fmt.Errorf("Airtable: the token lacks a scope this needs (403 %s)", e.Message)
	case err != nil:
		return err
	case who.ID == "":
		return fmt.Errorf("Airtable answered 200 without a user id (is its URL Airtable's API?)")
	}
	return nil
}

// AirtableIDRE matches Airtable's ids: a 3-letter prefix and 14 characters.
var AirtableIDRE = regexp.MustCompile(`^(app|tbl|fld|rec|usr|viw)[A-Za-z0-9]{14}$`)

func airtableBases(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	type base struct {
		ID              string `json:"id"`
		Name            string `json:"name"`
		PermissionLevel string `json:"permission_level"`
	}
	out := []base{}
	q := url.Values{}
	for page := 0; page < maxLookupPages; page++ {
		var list struct {
			Bases []struct {
				ID              string `json:"id"`
				Name            string `json:"name"`
				PermissionLevel string `json:"permissionLevel"`
			} `json:"bases"`
			Offset string `json:"offset"`
		}
		if err := c.Do(ctx, Request{Path: "/v0/meta/bases", Query: q}, &list); err != nil {
			return nil, err
		}
		for _, b := range list.Bases {
			out = append(out, base{b.ID, b.Name, b.PermissionLevel})
		}
		if list.Offset == "" {
			break
		}
		q.Set("offset", list.Offset)
	}
	return out, nil
}

// AirtableField is a field of a table's schema.
type AirtableField struct {
	ID      string         `json:"id"`
	Name    string         `json:"name"`
	Type    string         `json:"type"`
	Options map[string]any `json:"options,omitempty"`
}

// AirtableTable is a table of a base's schema.
type AirtableTable struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	PrimaryFieldID string          `json:"primaryFieldId"`
	Fields         []AirtableField `json:"fields"`
}

// AirtableTables reads a base's schema: GET /v0/meta/bases/{baseId}/tables.
func AirtableTables(ctx context.Context, c *Conn, baseID string) ([]AirtableTable, error) {
	var schema struct {
		Tables []AirtableTable `json:"tables"`
	}
	err := c.Do(ctx, Request{Path: "/v0/meta/bases/" + url.PathEscape(baseID) + "/tables"}, &schema)
	return schema.Tables, err
}

func airtableBaseParam(p url.Values) (string, error) {
	id := p.Get("base_id")
	if !AirtableIDRE.MatchString(id) || id[:3] != "app" {
		return "", &ParamError{"base_id", "must be an Airtable base id (app followed by 14 letters and digits)"}
	}
	return id, nil
}

func airtableTables(ctx context.Context, c *Conn, p url.Values) (any, error) {
	base, err := airtableBaseParam(p)
	if err != nil {
		return nil, err
	}
	tables, err := AirtableTables(ctx, c, base)
	if err != nil {
		return nil, err
	}
	type table struct {
		ID             string `json:"id"`
		Name           string `json:"name"`
		PrimaryFieldID string `json:"primary_field_id"`
	}
	out := make([]table, len(tables))
	for i, t := range tables {
		out[i] = table{t.ID, t.Name, t.PrimaryFieldID}
	}
	return out, nil
}

func airtableFields(ctx context.Context, c *Conn, p url.Values) (any, error) {
	base, err := airtableBaseParam(p)
	if err != nil {
		return nil, err
	}
	ref := p.Get("table_id")
	if ref == "" {
		return nil, &ParamError{"table_id", "is required: the table's id (tbl…) or name"}
	}
	tables, err := AirtableTables(ctx, c, base)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		if t.ID == ref || t.Name == ref {
			if t.Fields == nil {
				t.Fields = []AirtableField{}
			}
			return t.Fields, nil
		}
	}
	return nil, &ParamError{"table_id", "names no table of the base (GET /v1/integrations/airtable/bases/" + base + "/tables lists them)"}
}

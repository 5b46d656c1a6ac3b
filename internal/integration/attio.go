package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Attio connects with a workspace's access token (docs/integrations/salesforce-attio.md).
var Attio = &Type{
	Name:        "attio",
	DisplayName: "Attio",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name:     "api_key",
		Doc:      "an Attio access token (Workspace settings → Developers → an integration's access token) with the record, object, list entry and list configuration scopes",
		Required: true,
		MaxLen:   1024,
	}},
	DefaultURL:   "https://api.attio.com",
	Probe:        probeAttio,
	Authorize:    BearerAuth("api_key"),
	ErrorMessage: attioErrorMessage,
	Lookups: map[string]LookupFunc{
		"crm-fields":        attioFields,
		"crm-field-options": attioFieldOptions,
	},
}

func init() { Register(Attio) }

// AttioError is Attio's error body.
type AttioError struct {
	StatusCode int    `json:"status_code"`
	Type       string `json:"type"`
	Code       string `json:"code"`
	Message    string `json:"message"`
}

// ParseAttioError reads Attio's error body; ok is false when it is not one.
func ParseAttioError(body []byte) (AttioError, bool) {
	var e AttioError
	if json.Unmarshal(body, &e) != nil || (e.Code == "" && e.Message == "") {
		return AttioError{}, false
	}
	return e, true
}

// attioErrorMessage is "code: message" of Attio's error body.
func attioErrorMessage(body []byte) string {
	e, ok := ParseAttioError(body)
	if !ok {
		return ""
	}
	return strings.TrimPrefix(strings.TrimSuffix(e.Code+": "+e.Message, ": "), ": ")
}

// probeAttio asks who the token is: GET /v2/self, which any token may;
// an inactive (revoked) token answers active false.
func probeAttio(ctx context.Context, c *Conn) error {
	var self struct {
		Active        bool   `json:"active"`
		WorkspaceID   string `json:"workspace_id"`
		WorkspaceName string `json:"workspace_name"`
	}
	err := c.Do(ctx, Request{Path: "/v2/self"}, &self)
	switch {
	case err != nil:
		return err
	case !self.Active:
		return &Error{Service: c.Type.DisplayName, Status: http.StatusUnauthorized, Message: "the token is not active"}
	case self.WorkspaceID == "":
		return fmt.Errorf("Attio answered 200 without a workspace (is its URL Attio's API?)")
	}
	return nil
}

// attioObjects are the Attio objects behind the lookups' object types.
var attioObjects = map[string]string{"contacts": "people", "companies": "companies"}

// attioAttribute is the part of an attribute the lookups read.
type attioAttribute struct {
	APISlug  string `json:"api_slug"`
	Title    string `json:"title"`
	Type     string `json:"type"`
	Archived bool   `json:"is_archived"`
}

// attioAttributes lists an object's attributes: GET /v2/objects/{object}/attributes.
func attioAttributes(ctx context.Context, c *Conn, object string) ([]attioAttribute, error) {
	var page struct {
		Data []attioAttribute `json:"data"`
	}
	if err := c.Do(ctx, Request{Path: "/v2/objects/" + object + "/attributes", Query: url.Values{"limit": {"1000"}}}, &page); err != nil {
		return nil, err
	}
	out := page.Data[:0]
	for _, a := range page.Data {
		if !a.Archived {
			out = append(out, a)
		}
	}
	return out, nil
}

// attioFields answers crm-fields: the attributes of people and companies.
func attioFields(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	out := map[string][]CRMField{}
	for _, kind := range []string{"contacts", "companies"} {
		attrs, err := attioAttributes(ctx, c, attioObjects[kind])
		if err != nil {
			return nil, err
		}
		fields := make([]CRMField, 0, len(attrs))
		for _, a := range attrs {
			fields = append(fields, CRMField{Slug: a.APISlug, Label: a.Title, Type: a.Type})
		}
		out[kind] = fields
	}
	return out, nil
}

// attioFieldOptions answers crm-field-options: a select attribute's options
// (GET …/attributes/{attribute}/options) or a status attribute's statuses
// (…/statuses), the archived ones left out.
func attioFieldOptions(ctx context.Context, c *Conn, params url.Values) (any, error) {
	object, ok := attioObjects[params.Get("object_type")]
	if !ok {
		return nil, &ParamError{Param: "object_type", Message: "must be contacts or companies"}
	}
	slug := params.Get("field_slug")
	attrs, err := attioAttributes(ctx, c, object)
	if err != nil {
		return nil, err
	}
	var kind string
	for _, a := range attrs {
		if a.APISlug == slug {
			kind = a.Type
		}
	}
	var path string
	switch kind {
	case "":
		return nil, &ParamError{Param: "field_slug", Message: "is not an attribute of " + object}
	case "select":
		path = "/options"
	case "status":
		path = "/statuses"
	default:
		return nil, &ParamError{Param: "field_slug", Message: "is a " + kind + " attribute of " + object + ", not a select or status"}
	}
	var page struct {
		Data []struct {
			Title    string `json:"title"`
			Archived bool   `json:"is_archived"`
		} `json:"data"`
	}
	err = c.Do(ctx, Request{Path: "/v2/objects/" + object + "/attributes/" + url.PathEscape(slug) + path}, &page)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return nil, &ParamError{Param: "field_slug", Message: "is not an attribute of " + object}
	}
	if err != nil {
		return nil, err
	}
	out := []FieldOption{}
	for _, o := range page.Data {
		if !o.Archived {
			// Attio writes a select or status by its title.
			out = append(out, FieldOption{Value: o.Title, Label: o.Title})
		}
	}
	return out, nil
}

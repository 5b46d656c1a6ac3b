package action

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// attioObjectInput reads an object input ("" or absent: empty).
func attioObjectInput(in map[string]any, name string) (map[string]any, error) {
	v, ok := in[name]
	if !ok || v == nil {
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, failf(CodeInvalidInput, false, "%s must be an object of attribute slugs to values", name)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out, nil
}

// attioAssertPerson asserts a person by email address: PUT
// /v2/objects/people/records?matching_attribute=email_addresses.
func attioAssertPerson(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	email := strings.TrimSpace(inputString(in, "email"))
	if email == "" {
		return nil, failf(CodeInvalidInput, false, "email is required")
	}
	values, err := attioObjectInput(in, "values")
	if err != nil {
		return nil, err
	}
	values["email_addresses"] = []any{email}
	first, last := strings.TrimSpace(inputString(in, "first_name")), strings.TrimSpace(inputString(in, "last_name"))
	full := strings.TrimSpace(inputString(in, "full_name"))
	if full == "" {
		full = strings.TrimSpace(first + " " + last)
	}
	if full != "" || first != "" || last != "" {
		// Attio's personal-name value takes all three parts.
		values["name"] = []any{map[string]any{"first_name": first, "last_name": last, "full_name": full}}
	}
	for _, name := range []string{"job_title", "linkedin"} {
		if v := strings.TrimSpace(inputString(in, name)); v != "" {
			values[name] = v
		}
	}
	c, err := connection(ctx, call, "attio")
	if err != nil {
		return nil, err
	}
	var answer struct {
		Data struct {
			ID struct {
				RecordID string `json:"record_id"`
			} `json:"id"`
			WebURL string `json:"web_url"`
		} `json:"data"`
	}
	req := integration.Request{Method: http.MethodPut, Path: "/v2/objects/people/records",
		Query: url.Values{"matching_attribute": {"email_addresses"}}, Body: map[string]any{"data": map[string]any{"values": values}}}
	if err := c.Do(ctx, req, &answer); err != nil {
		return nil, serviceFailure(err)
	}
	out := map[string]any{"record_id": answer.Data.ID.RecordID}
	if answer.Data.WebURL != "" {
		out["web_url"] = answer.Data.WebURL
	}
	return out, nil
}

// attioAddToList asserts the record's entry in a list: PUT
// /v2/lists/{list}/entries, matched by parent record.
func attioAddToList(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	list, record := strings.TrimSpace(inputString(in, "list")), strings.TrimSpace(inputString(in, "record_id"))
	parent := strings.TrimSpace(inputString(in, "parent_object"))
	if parent == "" {
		parent = "people"
	}
	switch {
	case list == "":
		return nil, failf(CodeInvalidInput, false, "list is required")
	case record == "":
		return nil, failf(CodeInvalidInput, false, "record_id is required")
	}
	values, err := attioObjectInput(in, "entry_values")
	if err != nil {
		return nil, err
	}
	c, err := connection(ctx, call, "attio")
	if err != nil {
		return nil, err
	}
	var answer struct {
		Data struct {
			ID struct {
				EntryID string `json:"entry_id"`
			} `json:"id"`
		} `json:"data"`
	}
	body := map[string]any{"data": map[string]any{"parent_record_id": record, "parent_object": parent, "entry_values": values}}
	req := integration.Request{Method: http.MethodPut, Path: "/v2/lists/" + url.PathEscape(list) + "/entries", Body: body}
	if err := c.Do(ctx, req, &answer); err != nil {
		return nil, serviceFailure(err)
	}
	return map[string]any{"entry_id": answer.Data.ID.EntryID}, nil
}

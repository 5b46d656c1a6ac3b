package action

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

type pipedriveSearch struct {
	Items []struct {
		Item struct {
			ID    any    `json:"id"` // a number, a UUID for leads
			Title string `json:"title"`
		} `json:"item"`
	} `json:"items"`
}

// pipedriveFirst is the id of the first exact match of a search endpoint
// (persons, organizations, leads); nil when none.
func pipedriveFirst(ctx context.Context, c *integration.Conn, path string, q url.Values) (any, error) {
	q.Set("exact_match", "true")
	q.Set("limit", "1")
	var res integration.PipedriveEnvelope[pipedriveSearch]
	if err := c.Do(ctx, integration.Request{Path: path, Query: q}, &res); err != nil {
		return nil, serviceFailure(err)
	}
	if len(res.Data.Items) == 0 {
		return nil, nil
	}
	return res.Data.Items[0].Item.ID, nil
}

// pipedriveNumber reads a numeric id input (a number or a string of one);
// 0 and no error when absent.
func pipedriveNumber(in map[string]any, name string) (int64, error) {
	switch v := in[name].(type) {
	case nil:
		return 0, nil
	case float64:
		if v > 0 && v == math.Trunc(v) {
			return int64(v), nil
		}
	case string:
		if strings.TrimSpace(v) == "" {
			return 0, nil
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n > 0 {
			return n, nil
		}
	}
	return 0, failf(CodeInvalidInput, false, "%s must be a positive whole number, not %v", name, in[name])
}

func pipedriveUpsertPersonRun(ctx context.Context, call Call) (map[string]any, error) {
	c, err := connection(ctx, call, "pipedrive")
	if err != nil {
		return nil, err
	}
	in := call.Inputs
	email := strings.TrimSpace(inputString(in, "email"))
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		return nil, failf(CodeInvalidInput, false, "email %q is not an email address", email)
	}
	body := map[string]any{}
	if f, ok := in["fields"].(map[string]any); ok {
		for k, v := range f {
			body[k] = v
		}
	}
	if name := strings.TrimSpace(inputString(in, "name")); name != "" {
		body["name"] = name
	}
	if phone := strings.TrimSpace(inputString(in, "phone")); phone != "" {
		body["phone"] = []any{map[string]any{"value": phone, "primary": true, "label": "work"}}
	}
	out := map[string]any{}
	if org := strings.TrimSpace(inputString(in, "org_name")); org != "" {
		id, err := pipedriveOrg(ctx, c, org)
		if err != nil {
			return nil, err
		}
		body["org_id"], out["org_id"] = id, id
	}
	found, err := pipedriveFirst(ctx, c, "/v1/persons/search", url.Values{"term": {email}, "fields": {"email"}})
	if err != nil {
		return nil, err
	}
	var res integration.PipedriveEnvelope[struct {
		ID int64 `json:"id"`
	}]
	if found != nil {
		// The person's emails stay as they are: the one searched is among them.
		err = c.Do(ctx, integration.Request{Method: http.MethodPut, Path: fmt.Sprintf("/v1/persons/%v", found), Body: body}, &res)
		out["created"] = false
	} else {
		if body["name"] == nil {
			return nil, failf(CodeInvalidInput, false, "name is required to create the person %s", email)
		}
		body["email"] = []any{map[string]any{"value": email, "primary": true, "label": "work"}}
		err = c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/v1/persons", Body: body}, &res)
		out["created"] = true
	}
	if err != nil {
		return nil, serviceFailure(err)
	}
	out["id"] = res.Data.ID
	return out, nil
}

// pipedriveOrg is the id of the organization of that exact name, created
// when there is none.
func pipedriveOrg(ctx context.Context, c *integration.Conn, name string) (any, error) {
	found, err := pipedriveFirst(ctx, c, "/v1/organizations/search", url.Values{"term": {name}, "fields": {"name"}})
	if err != nil || found != nil {
		return found, err
	}
	var res integration.PipedriveEnvelope[struct {
		ID int64 `json:"id"`
	}]
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/v1/organizations", Body: map[string]any{"name": name}}, &res); err != nil {
		return nil, serviceFailure(err)
	}
	return res.Data.ID, nil
}

// pipedriveCreateLeadRun guards against a duplicate with a search: leads
// have no natural key and Pipedrive no idempotency header, so a lead of
// the same title linked to the same person (or organization) is taken as
// the one an earlier attempt created.
func pipedriveCreateLeadRun(ctx context.Context, call Call) (map[string]any, error) {
	c, err := connection(ctx, call, "pipedrive")
	if err != nil {
		return nil, err
	}
	title := strings.TrimSpace(inputString(call.Inputs, "title"))
	person, err := pipedriveNumber(call.Inputs, "person_id")
	if err != nil {
		return nil, err
	}
	org, err := pipedriveNumber(call.Inputs, "organization_id")
	if err != nil {
		return nil, err
	}
	if title == "" || person == 0 && org == 0 {
		return nil, failf(CodeInvalidInput, false, "title and person_id or organization_id are required")
	}
	body := map[string]any{"title": title}
	q := url.Values{"term": {title}, "fields": {"title"}}
	if person != 0 {
		body["person_id"] = person
		q.Set("person_id", strconv.FormatInt(person, 10))
	}
	if org != 0 {
		body["organization_id"] = org
		q.Set("organization_id", strconv.FormatInt(org, 10))
	}
	found, err := pipedriveFirst(ctx, c, "/v1/leads/search", q)
	if err != nil {
		return nil, err
	}
	if found != nil {
		return map[string]any{"id": found, "created": false}, nil
	}
	var res integration.PipedriveEnvelope[struct {
		ID string `json:"id"`
	}]
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/v1/leads", Body: body}, &res); err != nil {
		return nil, serviceFailure(err)
	}
	return map[string]any{"id": res.Data.ID, "created": true}, nil
}

// pipedriveAddNoteRun guards against a duplicate by reading the record's
// latest notes: one of the same content is taken as the one an earlier
// attempt added.
func pipedriveAddNoteRun(ctx context.Context, call Call) (map[string]any, error) {
	c, err := connection(ctx, call, "pipedrive")
	if err != nil {
		return nil, err
	}
	content := inputString(call.Inputs, "content")
	if strings.TrimSpace(content) == "" {
		return nil, failf(CodeInvalidInput, false, "content is required")
	}
	body := map[string]any{"content": content}
	q := url.Values{"start": {"0"}, "limit": {"100"}, "sort": {"add_time DESC"}}
	if lead := strings.TrimSpace(inputString(call.Inputs, "lead_id")); lead != "" {
		body["lead_id"] = lead
		q.Set("lead_id", lead)
	}
	for _, k := range []string{"person_id", "deal_id"} {
		n, err := pipedriveNumber(call.Inputs, k)
		if err != nil {
			return nil, err
		}
		if n != 0 {
			body[k] = n
			q.Set(k, strconv.FormatInt(n, 10))
		}
	}
	if len(body) != 2 {
		return nil, failf(CodeInvalidInput, false, "give exactly one of person_id, lead_id, deal_id")
	}
	var notes integration.PipedriveEnvelope[[]struct {
		ID      int64  `json:"id"`
		Content string `json:"content"`
	}]
	if err := c.Do(ctx, integration.Request{Path: "/v1/notes", Query: q}, &notes); err != nil {
		return nil, serviceFailure(err)
	}
	for _, n := range notes.Data {
		if n.Content == content {
			return map[string]any{"id": n.ID, "created": false}, nil
		}
	}
	var res integration.PipedriveEnvelope[struct {
		ID int64 `json:"id"`
	}]
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/v1/notes", Body: body}, &res); err != nil {
		return nil, serviceFailure(err)
	}
	return map[string]any{"id": res.Data.ID, "created": true}, nil
}

package action

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// salesforceAPIName is the shape of a field's API name (Email, LinkedIn_URL__c).
var salesforceAPIName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,79}$`)

// salesforceSaved is Salesforce's answer to a create or an upsert.
type salesforceSaved struct {
	ID      string `json:"id"`
	Success bool   `json:"success"`
	Created *bool  `json:"created"`
}

// salesforceFieldsOf gathers the record's fields: the named inputs that
// are not empty, over the "fields" object's entries.
func salesforceFieldsOf(in map[string]any, named ...string) (map[string]any, error) {
	body := map[string]any{}
	if extra, ok := in["fields"]; ok && extra != nil {
		m, ok := extra.(map[string]any)
		if !ok {
			return nil, failf(CodeInvalidInput, false, "fields must be an object of field API names to values")
		}
		for k, v := range m {
			if !salesforceAPIName.MatchString(k) {
				return nil, failf(CodeInvalidInput, false, "fields: %q is not a field API name", k)
			}
			body[k] = v
		}
	}
	for _, name := range named {
		if v := strings.TrimSpace(inputString(in, name)); v != "" {
			body[name] = v
		}
	}
	return body, nil
}

// salesforceUpsertLead upserts a Lead by an External ID field: PATCH
// /sobjects/Lead/{field}/{value}, 201 created or 200 updated.
func salesforceUpsertLead(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	field := strings.TrimSpace(inputString(in, "external_id_field"))
	if field == "" {
		field = salesforceLeadKeyDefault
	}
	value := strings.TrimSpace(inputString(in, "external_id"))
	switch {
	case !salesforceAPIName.MatchString(field):
		return nil, failf(CodeInvalidInput, false, "external_id_field %q is not a field API name", field)
	case value == "":
		return nil, failf(CodeInvalidInput, false, "external_id is required")
	}
	body, err := salesforceFieldsOf(in, "LastName", "FirstName", "Company", "Email", "Title", "LeadSource")
	if err != nil {
		return nil, err
	}
	// The path names the key; Salesforce refuses it in the body too.
	for k := range body {
		if strings.EqualFold(k, field) {
			delete(body, k)
		}
	}
	c, err := connection(ctx, call, "salesforce")
	if err != nil {
		return nil, err
	}
	var saved salesforceSaved
	path := integration.SalesforceAPI + "/sobjects/Lead/" + url.PathEscape(field) + "/" + url.PathEscape(value)
	if err := c.Do(ctx, integration.Request{Method: http.MethodPatch, Path: path, Body: body}, &saved); err != nil {
		return nil, serviceFailure(err)
	}
	return map[string]any{"id": saved.ID, "created": saved.Created != nil && *saved.Created}, nil
}

// salesforceCreateTask creates a Task (POST /sobjects/Task), or upserts it
// by the step's idempotency key in idempotency_field so that a retried
// step finds the task it made.
func salesforceCreateTask(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	body, err := salesforceFieldsOf(in, "WhoId", "Subject", "Description", "ActivityDate", "Status", "Priority")
	if err != nil {
		return nil, err
	}
	for _, req := range []string{"WhoId", "Subject"} {
		if body[req] == nil {
			return nil, failf(CodeInvalidInput, false, "%s is required", req)
		}
	}
	keyField := strings.TrimSpace(inputString(in, "idempotency_field"))
	if keyField != "" && !salesforceAPIName.MatchString(keyField) {
		return nil, failf(CodeInvalidInput, false, "idempotency_field %q is not a field API name", keyField)
	}
	c, err := connection(ctx, call, "salesforce")
	if err != nil {
		return nil, err
	}
	req := integration.Request{Method: http.MethodPost, Path: integration.SalesforceAPI + "/sobjects/Task", Body: body}
	if keyField != "" && call.IdempotencyKey != "" {
		req.Method = http.MethodPatch
		req.Path += "/" + url.PathEscape(keyField) + "/" + salesforceTaskKey(call.IdempotencyKey)
	}
	var saved salesforceSaved
	if err := c.Do(ctx, req, &saved); err != nil {
		return nil, serviceFailure(err)
	}
	return map[string]any{"id": saved.ID, "created": saved.Created == nil || *saved.Created}, nil
}

// salesforceTaskKey is the value a step's task is keyed by: a digest of
// its idempotency key, which holds "/" that an External ID in a URL path
// may not.
func salesforceTaskKey(idempotencyKey string) string {
	sum := sha256.Sum256([]byte(idempotencyKey))
	return "trawl-" + hex.EncodeToString(sum[:16])
}

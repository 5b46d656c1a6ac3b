package action

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
)

// The HubSpot executors. Every call goes through the connection (Conn.Do:
// auth, retries of 429/5xx honouring Retry-After); requests and answers
// are typed structs so a step costs encoding/json and nothing more.

// hubSpotType is the connection type the HubSpot actions act through.
const hubSpotType = "hubspot"

// HubSpot's HUBSPOT_DEFINED association type ids (associations v4 docs).
const (
	hubSpotNoteToContact = 202
	hubSpotTaskToContact = 204
)

// hubSpotID is a record id: HubSpot's v3 answers give strings; numbers
// (v4's toObjectId) are read too.
type hubSpotID string

func (id *hubSpotID) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = hubSpotID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*id = hubSpotID(n.String())
	return nil
}

// hubSpotObject is the part of a CRM object's JSON the steps read.
type hubSpotObject struct {
	ID         hubSpotID          `json:"id"`
	Properties map[string]*string `json:"properties"`
	CreatedAt  string             `json:"createdAt"`
	UpdatedAt  string             `json:"updatedAt"`
	// New is batch upsert's "created" flag.
	New *bool `json:"new"`
}

// hubSpotBatchAnswer is a batch endpoint's answer; a 207 carries errors.
type hubSpotBatchAnswer struct {
	Status  string          `json:"status"`
	Results []hubSpotObject `json:"results"`
	Errors  []struct {
		Message  string `json:"message"`
		Category string `json:"category"`
	} `json:"errors"`
}

// hubSpotSearchAnswer is a search's answer.
type hubSpotSearchAnswer struct {
	Total   int             `json:"total"`
	Results []hubSpotObject `json:"results"`
}

// Requests, as HubSpot documents them.
type (
	hubSpotUpsertInput struct {
		IDProperty string            `json:"idProperty"`
		ID         string            `json:"id"`
		Properties map[string]string `json:"properties"`
	}
	hubSpotUpsertRequest struct {
		Inputs [1]hubSpotUpsertInput `json:"inputs"`
	}
	hubSpotFilter struct {
		PropertyName string `json:"propertyName"`
		Operator     string `json:"operator"`
		Value        string `json:"value,omitempty"`
	}
	hubSpotFilterGroup struct {
		Filters []hubSpotFilter `json:"filters"`
	}
	hubSpotSort struct {
		PropertyName string `json:"propertyName"`
		Direction    string `json:"direction"`
	}
	hubSpotSearchRequest struct {
		FilterGroups [1]hubSpotFilterGroup `json:"filterGroups"`
		Sorts        []hubSpotSort         `json:"sorts,omitempty"`
		Properties   []string              `json:"properties"`
		Limit        int                   `json:"limit"`
	}
	hubSpotAssocType struct {
		AssociationCategory string `json:"associationCategory"`
		AssociationTypeID   int    `json:"associationTypeId"`
	}
	hubSpotAssociation struct {
		To struct {
			ID string `json:"id"`
		} `json:"to"`
		Types [1]hubSpotAssocType `json:"types"`
	}
	hubSpotCreateRequest struct {
		Properties   map[string]string    `json:"properties"`
		Associations []hubSpotAssociation `json:"associations,omitempty"`
	}
)

// hubSpotUpsertContact creates or updates the contact of an email:
// POST /crm/v3/objects/contacts/batch/upsert with idProperty email.
func hubSpotUpsertContact(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	email := strings.TrimSpace(inputString(in, "email"))
	if email == "" {
		return nil, failf(CodeInvalidInput, false, "email is required")
	}
	// The named inputs and the contact properties they write.
	named := [...][2]string{
		{"firstname", "firstname"}, {"lastname", "lastname"}, {"company", "company"}, {"jobtitle", "jobtitle"},
		{"phone", "phone"}, {"website", "website"}, {"linkedin_url", "hs_linkedin_url"},
	}
	props, err := hubSpotPropertyValues(in["properties"], len(named))
	if err != nil {
		return nil, err
	}
	for _, m := range named {
		if v := strings.TrimSpace(inputString(in, m[0])); v != "" {
			props[m[1]] = v
		}
	}
	delete(props, "email") // the key is the input's
	c, err := connection(ctx, call, hubSpotType)
	if err != nil {
		return nil, err
	}
	req := hubSpotUpsertRequest{Inputs: [1]hubSpotUpsertInput{{IDProperty: "email", ID: email, Properties: props}}}
	var answer hubSpotBatchAnswer
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/crm/v3/objects/contacts/batch/upsert", Body: &req}, &answer); err != nil {
		return nil, serviceFailure(err)
	}
	o, err := answer.one()
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": string(o.ID), "created": o.created(), "properties": o.propertyMap()}, nil
}

// one is the batch's single result, or its error.
func (a *hubSpotBatchAnswer) one() (*hubSpotObject, error) {
	if len(a.Results) == 1 && a.Results[0].ID != "" {
		return &a.Results[0], nil
	}
	if len(a.Errors) > 0 {
		return nil, failf(CodeUpstream, false, "HubSpot: %s: %s", a.Errors[0].Category, a.Errors[0].Message)
	}
	return nil, failf(CodeUpstream, true, "HubSpot answered the upsert with %d results", len(a.Results))
}

// created reads batch upsert's "new", else compares the record's times.
func (o *hubSpotObject) created() bool {
	if o.New != nil {
		return *o.New
	}
	return o.CreatedAt != "" && o.CreatedAt == o.UpdatedAt
}

func (o *hubSpotObject) propertyMap() map[string]any {
	out := make(map[string]any, len(o.Properties))
	for k, v := range o.Properties {
		if v == nil {
			out[k] = nil
		} else {
			out[k] = *v
		}
	}
	return out
}

// hubSpotPropertyValues turns the properties input into HubSpot's string
// values: numbers and booleans as text, arrays as ;-joined options, null
// as "" (which clears the property).
func hubSpotPropertyValues(v any, extra int) (map[string]string, error) {
	m, _ := v.(map[string]any)
	if v != nil && m == nil {
		return nil, failf(CodeInvalidInput, false, "properties must be an object of property names to values")
	}
	out := make(map[string]string, len(m)+extra)
	for k, x := range m {
		s, ok := hubSpotValue(x)
		if !ok || k == "" {
			return nil, failf(CodeInvalidInput, false, "properties.%s must be a string, number, boolean or array of strings", k)
		}
		out[k] = s
	}
	return out, nil
}

func hubSpotValue(x any) (string, bool) {
	switch x := x.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			s, ok := p.(string)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return strings.Join(parts, ";"), true
	}
	return "", false
}

// hubSpotAssociateCompany finds or creates the company and associates it
// with the contact (v4 default association, idempotent by nature).
func hubSpotAssociateCompany(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	contactID := strings.TrimSpace(inputString(in, "contact_id"))
	companyID := strings.TrimSpace(inputString(in, "company_id"))
	domain := hubSpotDomain(inputString(in, "company_domain"))
	switch {
	case contactID == "":
		return nil, failf(CodeInvalidInput, false, "contact_id is required")
	case companyID == "" && domain == "":
		return nil, failf(CodeInvalidInput, false, "company_domain (a domain such as acme.com) or company_id is required")
	}
	c, err := connection(ctx, call, hubSpotType)
	if err != nil {
		return nil, err
	}
	created := false
	if companyID == "" {
		if companyID, created, err = hubSpotCompanyOf(ctx, c, domain, strings.TrimSpace(inputString(in, "company_name"))); err != nil {
			return nil, err
		}
	}
	path := "/crm/v4/objects/contacts/" + url.PathEscape(contactID) + "/associations/default/companies/" + url.PathEscape(companyID)
	if err := c.Do(ctx, integration.Request{Method: http.MethodPut, Path: path}, nil); err != nil {
		return nil, serviceFailure(err)
	}
	return map[string]any{"company_id": companyID, "company_created": created, "associated": true}, nil
}

// hubSpotCompanyOf is the id of the portal's company of domain (the oldest
// when several share it), created with name when there is none.
func hubSpotCompanyOf(ctx context.Context, c *integration.Conn, domain, name string) (string, bool, error) {
	search := hubSpotSearchRequest{Properties: []string{"domain"}, Limit: 1,
		Sorts: []hubSpotSort{{PropertyName: "createdate", Direction: "ASCENDING"}}}
	search.FilterGroups[0].Filters = []hubSpotFilter{{PropertyName: "domain", Operator: "EQ", Value: domain}}
	var found hubSpotSearchAnswer
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/crm/v3/objects/companies/search", Body: &search}, &found); err != nil {
		return "", false, serviceFailure(err)
	}
	if len(found.Results) > 0 && found.Results[0].ID != "" {
		return string(found.Results[0].ID), false, nil
	}
	props := map[string]string{"domain": domain}
	if name != "" {
		props["name"] = name
	}
	var o hubSpotObject
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/crm/v3/objects/companies", Body: &hubSpotCreateRequest{Properties: props}}, &o); err != nil {
		return "", false, serviceFailure(err)
	}
	if o.ID == "" {
		return "", false, failf(CodeUpstream, true, "HubSpot created the company without an id")
	}
	return string(o.ID), true, nil
}

// hubSpotDomain reduces a domain or URL to its lower-case host without www.
func hubSpotDomain(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(strings.TrimPrefix(s, "www."), ".")
}

// hubSpotCreateNote adds a note to the contact unless it has one with the
// same body (a retried step finds the note its first attempt made).
func hubSpotCreateNote(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	contactID := strings.TrimSpace(inputString(in, "contact_id"))
	body := inputString(in, "body")
	switch {
	case contactID == "":
		return nil, failf(CodeInvalidInput, false, "contact_id is required")
	case strings.TrimSpace(body) == "":
		return nil, failf(CodeInvalidInput, false, "body is required")
	case len(body) > 65536:
		return nil, failf(CodeInvalidInput, false, "body is longer than HubSpot's 65,536 characters")
	}
	c, err := connection(ctx, call, hubSpotType)
	if err != nil {
		return nil, err
	}
	at, err := hubSpotTimestamp(in["timestamp"], c.Now)
	if err != nil {
		return nil, err
	}
	filters := []hubSpotFilter{
		{PropertyName: "associations.contact", Operator: "EQ", Value: contactID},
		{PropertyName: "hs_note_body", Operator: "EQ", Value: body},
	}
	props := map[string]string{"hs_note_body": body, "hs_timestamp": at.Format(time.RFC3339Nano)}
	return hubSpotCreateOnce(ctx, c, "notes", contactID, hubSpotNoteToContact, filters, props)
}

// hubSpotCreateTask creates a task on the contact unless it has an open
// one of the same subject (and due time, when given).
func hubSpotCreateTask(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	contactID := strings.TrimSpace(inputString(in, "contact_id"))
	subject := strings.TrimSpace(inputString(in, "subject"))
	switch {
	case contactID == "":
		return nil, failf(CodeInvalidInput, false, "contact_id is required")
	case subject == "":
		return nil, failf(CodeInvalidInput, false, "subject is required")
	}
	props := map[string]string{"hs_task_subject": subject, "hs_task_status": "NOT_STARTED", "hs_task_type": "TODO"}
	for _, m := range [...][3]string{
		{"status", "hs_task_status", "NOT_STARTED IN_PROGRESS WAITING COMPLETED DEFERRED"},
		{"priority", "hs_task_priority", "LOW MEDIUM HIGH"},
		{"task_type", "hs_task_type", "TODO EMAIL CALL"},
	} {
		v := strings.ToUpper(strings.TrimSpace(inputString(in, m[0])))
		if v == "" {
			continue
		}
		if !strings.Contains(" "+m[2]+" ", " "+v+" ") {
			return nil, failf(CodeInvalidInput, false, "%s must be one of %s", m[0], strings.ReplaceAll(m[2], " ", ", "))
		}
		props[m[1]] = v
	}
	if b := inputString(in, "body"); b != "" {
		props["hs_task_body"] = b
	}
	c, err := connection(ctx, call, hubSpotType)
	if err != nil {
		return nil, err
	}
	due, err := hubSpotTimestamp(in["due"], c.Now)
	if err != nil {
		return nil, err
	}
	props["hs_timestamp"] = due.Format(time.RFC3339Nano)
	filters := []hubSpotFilter{
		{PropertyName: "associations.contact", Operator: "EQ", Value: contactID},
		{PropertyName: "hs_task_subject", Operator: "EQ", Value: subject},
	}
	if in["due"] != nil && in["due"] != "" {
		filters = append(filters, hubSpotFilter{PropertyName: "hs_timestamp", Operator: "EQ", Value: strconv.FormatInt(due.UnixMilli(), 10)})
	}
	if props["hs_task_status"] != "COMPLETED" {
		filters = append(filters, hubSpotFilter{PropertyName: "hs_task_status", Operator: "NEQ", Value: "COMPLETED"})
	}
	return hubSpotCreateOnce(ctx, c, "tasks", contactID, hubSpotTaskToContact, filters, props)
}

// hubSpotCreateOnce searches the contact's objects of typ matching filters
// and creates one (associated with the contact) only when none does:
// HubSpot has no idempotency key, so the record's content is its key.
func hubSpotCreateOnce(ctx context.Context, c *integration.Conn, typ, contactID string, assocType int, filters []hubSpotFilter, props map[string]string) (map[string]any, error) {
	search := hubSpotSearchRequest{Properties: []string{"hs_object_id"}, Limit: 1}
	search.FilterGroups[0].Filters = filters
	var found hubSpotSearchAnswer
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/crm/v3/objects/" + typ + "/search", Body: &search}, &found); err != nil {
		return nil, serviceFailure(err)
	}
	if len(found.Results) > 0 && found.Results[0].ID != "" {
		return map[string]any{"id": string(found.Results[0].ID), "created": false}, nil
	}
	req := hubSpotCreateRequest{Properties: props, Associations: []hubSpotAssociation{{
		Types: [1]hubSpotAssocType{{AssociationCategory: "HUBSPOT_DEFINED", AssociationTypeID: assocType}}}}}
	req.Associations[0].To.ID = contactID
	var o hubSpotObject
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/crm/v3/objects/" + typ, Body: &req}, &o); err != nil {
		return nil, serviceFailure(err)
	}
	if o.ID == "" {
		return nil, failf(CodeUpstream, true, "HubSpot created the %s without an id", strings.TrimSuffix(typ, "s"))
	}
	return map[string]any{"id": string(o.ID), "created": true}, nil
}

// hubSpotTimestamp reads a time input: ISO 8601 (or a date), or Unix
// milliseconds as a number or digits; absent is now.
func hubSpotTimestamp(v any, now func() time.Time) (time.Time, error) {
	switch v := v.(type) {
	case nil:
	case float64:
		return time.UnixMilli(int64(v)).UTC(), nil
	case string:
		v = strings.TrimSpace(v)
		if v == "" {
			break
		}
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			return time.UnixMilli(ms).UTC(), nil
		}
		for _, layout := range [...]string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02"} {
			if t, err := time.Parse(layout, v); err == nil {
				return t.UTC(), nil
			}
		}
		return time.Time{}, failf(CodeInvalidInput, false, "%q is not an ISO 8601 time or Unix milliseconds", v)
	default:
		return time.Time{}, failf(CodeInvalidInput, false, "a time must be an ISO 8601 string or Unix milliseconds")
	}
	if now != nil {
		return now().UTC(), nil
	}
	return time.Now().UTC(), nil
}

package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The handlers of HubSpot's CRM objects API v3 (create, read, update,
// list, batch upsert) over hubSpotCRM.

// hubSpotScope runs fn for an authorised request on the token's portal,
// under the CRM's lock, after the rate-limit convention; typ is the path's
// object type, canonical.
func (c *hubSpotCRM) scope(w http.ResponseWriter, r *http.Request, fn func(p *hubSpotPortal, typ string)) {
	token, ok := hubSpotToken(w, r)
	if !ok {
		return
	}
	if strings.HasPrefix(token, "ratelimited") {
		writeHubSpotRateLimited(w, r, hubSpotPortalID(token))
		return
	}
	typ := ""
	if raw := r.PathValue("type"); raw != "" {
		if typ, ok = hubSpotObjectType(raw); !ok {
			writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR", "Unable to infer object type from: "+raw, nil)
			return
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(c.portal(token), typ)
}

// decodeBody reads a JSON request body into v, answering HubSpot's 400.
func decodeHubSpotBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR", "Invalid input JSON: "+err.Error(), nil)
		return false
	}
	return true
}

// hubSpotValues are written properties: HubSpot takes strings, and
// numbers and booleans as their text.
type hubSpotValues map[string]string

func (v *hubSpotValues) UnmarshalJSON(b []byte) error {
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*v = make(hubSpotValues, len(raw))
	for k, x := range raw {
		switch x := x.(type) {
		case nil:
			(*v)[k] = ""
		case string:
			(*v)[k] = x
		case float64:
			(*v)[k] = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			(*v)[k] = strconv.FormatBool(x)
		default:
			return fmt.Errorf("property %s: a value must be a string, number or boolean", k)
		}
	}
	return nil
}

// hubSpotAssociationInput is an association of a create request.
type hubSpotAssociationInput struct {
	To struct {
		ID string `json:"id"`
	} `json:"to"`
	Types []struct {
		AssociationCategory string `json:"associationCategory"`
		AssociationTypeID   int    `json:"associationTypeId"`
	} `json:"types"`
}

// hubSpotKey is the record key the flaky- convention reads.
func hubSpotKey(typ string, props map[string]string) string {
	switch typ {
	case "contacts":
		return props["email"]
	case "companies":
		if props["domain"] != "" {
			return props["domain"]
		}
		return props["name"]
	case "notes":
		return props["hs_note_body"]
	}
	return props["hs_task_subject"]
}

// required checks the properties a create needs.
func hubSpotRequired(typ string, props map[string]string) string {
	if (typ == "notes" || typ == "tasks") && props["hs_timestamp"] == "" {
		return "hs_timestamp"
	}
	return ""
}

// routes adds the objects API to mux.
func (c *hubSpotCRM) routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /crm/v3/objects/{type}", c.handleCreate)
	mux.HandleFunc("GET /crm/v3/objects/{type}", c.handleList)
	mux.HandleFunc("GET /crm/v3/objects/{type}/{id}", c.handleGet)
	mux.HandleFunc("PATCH /crm/v3/objects/{type}/{id}", c.handleUpdate)
	mux.HandleFunc("POST /crm/v3/objects/{type}/batch/upsert", c.handleUpsert)
	mux.HandleFunc("POST /crm/v3/objects/{type}/search", c.handleSearch)
	mux.HandleFunc("PUT /crm/v4/objects/{from}/{fromId}/associations/default/{to}/{toId}", c.handleAssociateDefault)
	mux.HandleFunc("GET /crm/v4/objects/{from}/{fromId}/associations/{to}", c.handleAssociations)
	mux.HandleFunc("GET /crm/v3/properties/{type}", c.handleProperties)
	mux.HandleFunc("GET /crm/v3/properties/{type}/{name}", c.handleProperty)
}

func (c *hubSpotCRM) handleCreate(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(p *hubSpotPortal, typ string) {
		var in struct {
			Properties   hubSpotValues             `json:"properties"`
			Associations []hubSpotAssociationInput `json:"associations"`
		}
		if !decodeHubSpotBody(w, r, &in) {
			return
		}
		if p.flakyOnce(typ, hubSpotKey(typ, in.Properties)) {
			writeHubSpotRateLimited(w, r, p.id)
			return
		}
		if bad := c.validate(typ, in.Properties); len(bad) > 0 {
			writeHubSpotInvalid(w, r, p.id, bad)
			return
		}
		if name := hubSpotRequired(typ, in.Properties); name != "" {
			writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR", "Missing required property: "+name,
				[]hubSpotErrorDetail{{Message: name + " is required", Code: "REQUIRED", Context: map[string][]string{"propertyName": {name}}}})
			return
		}
		c.normalize(typ, in.Properties)
		if typ == "contacts" && in.Properties["email"] != "" {
			if o := p.find("contacts", "email", in.Properties["email"]); o != nil {
				writeHubSpotError(w, r, http.StatusConflict, "CONFLICT", "Contact already exists. Existing ID: "+o.ID, nil)
				return
			}
		}
		targets := make([]*hubSpotObject, 0, len(in.Associations))
		for _, a := range in.Associations {
			to := p.objects[a.To.ID]
			if to == nil {
				writeHubSpotError(w, r, http.StatusNotFound, "OBJECT_NOT_FOUND", fmt.Sprintf("No object with ID %s exists to associate with.", a.To.ID), nil)
				return
			}
			for _, t := range a.Types {
				if t.AssociationTypeID != hubSpotAssociationType(typ, to.Type) {
					writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR",
						fmt.Sprintf("association type id %d doesn't exist between %s and %s", t.AssociationTypeID, typ, to.Type), nil)
					return
				}
			}
			targets = append(targets, to)
		}
		o := c.create(p, typ, in.Properties)
		if o == nil {
			writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR",
				fmt.Sprintf("This portal has reached its limit of %d records in the sandbox.", hubSpotMaxObjects), nil)
			return
		}
		for _, to := range targets {
			associate(o, to)
		}
		writeJSON(w, http.StatusCreated, o.record(nil, in.Properties))
	})
}

// lookup finds the object of typ named by the path's id (or by the
// idProperty query parameter's value), answering HubSpot's 404.
func (p *hubSpotPortal) lookup(w http.ResponseWriter, r *http.Request, typ, id string) *hubSpotObject {
	var o *hubSpotObject
	switch prop := r.URL.Query().Get("idProperty"); prop {
	case "", "hs_object_id":
		o = p.objects[id]
	default:
		o = p.find(typ, prop, id)
	}
	if o == nil || o.Type != typ {
		writeHubSpotError(w, r, http.StatusNotFound, "OBJECT_NOT_FOUND", "resource not found", nil)
		return nil
	}
	return o
}

// queryList reads a parameter that may be repeated or comma-separated.
func queryList(r *http.Request, name string) []string {
	var out []string
	for _, v := range r.URL.Query()[name] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func (c *hubSpotCRM) handleGet(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(p *hubSpotPortal, typ string) {
		o := p.lookup(w, r, typ, r.PathValue("id"))
		if o == nil {
			return
		}
		rec := o.record(queryList(r, "properties"), nil)
		for _, raw := range queryList(r, "associations") {
			to, ok := hubSpotObjectType(raw)
			if !ok || len(o.Assoc[to]) == 0 {
				continue
			}
			if rec.Associations == nil {
				rec.Associations = map[string]hubSpotAssocRef{}
			}
			ref := hubSpotAssocRef{}
			for _, id := range sortedIDs(o.Assoc[to]) {
				ref.Results = append(ref.Results, hubSpotAssocResult{ID: id, Type: hubSpotSingular(typ) + "_to_" + hubSpotSingular(to)})
			}
			rec.Associations[to] = ref
		}
		writeJSON(w, http.StatusOK, rec)
	})
}

func hubSpotSingular(typ string) string {
	if typ == "companies" {
		return "company"
	}
	return strings.TrimSuffix(typ, "s")
}

func sortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, compareIDs)
	return ids
}

// compareIDs orders numeric ids by value.
func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

func (c *hubSpotCRM) handleUpdate(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(p *hubSpotPortal, typ string) {
		o := p.lookup(w, r, typ, r.PathValue("id"))
		if o == nil {
			return
		}
		var in struct {
			Properties hubSpotValues `json:"properties"`
		}
		if !decodeHubSpotBody(w, r, &in) {
			return
		}
		if bad := c.validate(typ, in.Properties); len(bad) > 0 {
			writeHubSpotInvalid(w, r, p.id, bad)
			return
		}
		c.normalize(typ, in.Properties)
		if e := in.Properties["email"]; typ == "contacts" && e != "" {
			if other := p.find("contacts", "email", e); other != nil && other != o {
				writeHubSpotError(w, r, http.StatusConflict, "CONFLICT", "Contact already exists. Existing ID: "+other.ID, nil)
				return
			}
		}
		c.update(p, o, in.Properties)
		writeJSON(w, http.StatusOK, o.record(nil, in.Properties))
	})
}

func (c *hubSpotCRM) handleList(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(p *hubSpotPortal, typ string) {
		limit := 10
		if n, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && n > 0 {
			limit = min(n, 100)
		}
		after := r.URL.Query().Get("after")
		var results []hubSpotRecord
		next := ""
		for _, id := range sortedIDs(p.objects) {
			o := p.objects[id]
			if o.Type != typ || after != "" && compareIDs(id, after) <= 0 {
				continue
			}
			if len(results) == limit {
				next = results[len(results)-1].ID
				break
			}
			results = append(results, o.record(queryList(r, "properties"), nil))
		}
		body := map[string]any{"results": append([]hubSpotRecord{}, results...)}
		if next != "" {
			body["paging"] = map[string]any{"next": map[string]string{"after": next}}
		}
		writeJSON(w, http.StatusOK, body)
	})
}

// handleUpsert is POST /crm/v3/objects/{type}/batch/upsert: each input
// names its record by a unique property (idProperty email for contacts)
// and is created or updated; results say which ("new").
func (c *hubSpotCRM) handleUpsert(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(p *hubSpotPortal, typ string) {
		started := hubSpotTime(c.now())
		var in struct {
			Inputs []struct {
				IDProperty string        `json:"idProperty"`
				ID         string        `json:"id"`
				Properties hubSpotValues `json:"properties"`
			} `json:"inputs"`
		}
		if !decodeHubSpotBody(w, r, &in) {
			return
		}
		if len(in.Inputs) == 0 || len(in.Inputs) > 100 {
			writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR", "inputs must hold between 1 and 100 records", nil)
			return
		}
		// Check every input before writing any: the batch is all or nothing.
		for _, x := range in.Inputs {
			if d, ok := c.property(typ, x.IDProperty); !ok || !d.HasUniqueValue {
				writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR",
					fmt.Sprintf("idProperty %q is not a unique value property of %s", x.IDProperty, typ), nil)
				return
			}
			if p.flakyOnce(typ, x.ID) {
				writeHubSpotRateLimited(w, r, p.id)
				return
			}
			props := hubSpotValues{x.IDProperty: x.ID}
			for k, v := range x.Properties {
				props[k] = v
			}
			if bad := c.validate(typ, props); len(bad) > 0 {
				writeHubSpotInvalid(w, r, p.id, bad)
				return
			}
		}
		if p.count+len(in.Inputs) > hubSpotMaxObjects {
			writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR",
				fmt.Sprintf("This portal has reached its limit of %d records in the sandbox.", hubSpotMaxObjects), nil)
			return
		}
		results := make([]hubSpotRecord, 0, len(in.Inputs))
		for _, x := range in.Inputs {
			props := hubSpotValues{x.IDProperty: x.ID}
			for k, v := range x.Properties {
				props[k] = v
			}
			c.normalize(typ, props)
			o, isNew := p.find(typ, x.IDProperty, x.ID), false
			if o == nil {
				o, isNew = c.create(p, typ, props), true
			} else {
				c.update(p, o, props)
			}
			rec := o.record(nil, props)
			rec.New = &isNew
			results = append(results, rec)
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "COMPLETE", "results": results,
			"startedAt": started, "completedAt": hubSpotTime(c.now())})
	})
}

package sandbox

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The sandbox workspace's records and list entries: Attio's value shapes
// (every attribute's values are a list of objects) and its validation.

var attioEmailRE = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@]+$`)

// attioBadValue is a value Attio refuses: its status, code and message.
type attioBadValue struct {
	status    int
	code, msg string
}

// attioValues normalizes the written values of o (slug → one value or a
// list of them, each a string or an object) to Attio's stored shape.
func attioValues(ws *attioWorkspace, o *attioObjectSchema, in map[string]any, now time.Time) (map[string][]map[string]any, *attioBadValue) {
	out := map[string][]map[string]any{}
	for slug, raw := range in {
		a := o.attr(slug)
		if a == nil {
			return nil, &attioBadValue{http.StatusBadRequest, "value_not_found", `Cannot find attribute with slug/ID "` + slug + `".`}
		}
		if a.Slug == "record_id" {
			return nil, &attioBadValue{http.StatusBadRequest, "immutable_value", `Cannot write to system attribute "record_id".`}
		}
		items, isList := raw.([]any)
		if !isList {
			items = []any{raw}
		}
		if len(items) > 1 && !a.Multi {
			return nil, &attioBadValue{http.StatusBadRequest, "validation_type", `Multiple values were given for the single-value attribute "` + slug + `".`}
		}
		vals := make([]map[string]any, 0, len(items))
		for _, item := range items {
			v, bad := attioValue(ws, a, item)
			if bad != nil {
				return nil, bad
			}
			v["active_from"] = now.Format("2006-01-02T15:04:05.000000000Z")
			v["active_until"] = nil
			v["created_by_actor"] = map[string]any{"type": "api-token", "id": attioUUID(ws.ID, "token")}
			v["attribute_type"] = a.Type
			vals = append(vals, v)
		}
		out[slug] = vals
	}
	return out, nil
}

// attioValue is one written value in the stored shape of a's type.
func attioValue(ws *attioWorkspace, a *attioAttr, item any) (map[string]any, *attioBadValue) {
	obj, _ := item.(map[string]any)
	str, isStr := item.(string)
	bad := &attioBadValue{http.StatusBadRequest, "validation_type", `Invalid value for attribute "` + a.Slug + `" of type ` + a.Type + `.`}
	field := map[string]string{"text": "value", "email-address": "email_address", "domain": "domain", "phone-number": "original_phone_number", "select": "option"}[a.Type]
	if !isStr && obj != nil && field != "" {
		str, isStr = obj[field].(string)
		if t, ok := obj[field].(map[string]any); ok && a.Type == "select" {
			str, isStr = t["title"].(string)
		}
	}
	switch a.Type {
	case "text":
		if !isStr {
			return nil, bad
		}
		return map[string]any{"value": str}, nil
	case "email-address":
		if !isStr || !attioEmailRE.MatchString(str) {
			return nil, &attioBadValue{http.StatusBadRequest, "validation_type", `Invalid email address "` + str + `" for attribute "` + a.Slug + `".`}
		}
		local, domain, _ := strings.Cut(str, "@")
		return map[string]any{"email_address": strings.ToLower(str), "original_email_address": str, "email_domain": strings.ToLower(domain),
			"email_root_domain": strings.ToLower(domain), "email_local_specifier": local}, nil
	case "domain":
		if !isStr || !strings.Contains(str, ".") {
			return nil, bad
		}
		return map[string]any{"domain": strings.ToLower(str), "root_domain": strings.ToLower(str)}, nil
	case "phone-number":
		if !isStr {
			return nil, bad
		}
		return map[string]any{"original_phone_number": str, "country_code": nil, "phone_number": str}, nil
	case "select":
		if !isStr || !slices.Contains(a.Options, str) {
			return nil, &attioBadValue{http.StatusBadRequest, "value_not_found", `Cannot find select option with title "` + str + `" for attribute "` + a.Slug + `".`}
		}
		return map[string]any{"option": map[string]any{"id": map[string]string{"workspace_id": ws.ID, "option_id": attioUUID(ws.ID, a.Slug, str)}, "title": str, "is_archived": false}}, nil
	case "personal-name":
		if isStr {
			first, last, _ := strings.Cut(strings.TrimSpace(str), " ")
			return map[string]any{"first_name": first, "last_name": last, "full_name": str}, nil
		}
		if obj == nil {
			return nil, bad
		}
		first, _ := obj["first_name"].(string)
		last, _ := obj["last_name"].(string)
		full, _ := obj["full_name"].(string)
		if full == "" {
			full = strings.TrimSpace(first + " " + last)
		}
		return map[string]any{"first_name": first, "last_name": last, "full_name": full}, nil
	case "record-reference":
		if obj == nil {
			return nil, bad
		}
		return map[string]any{"target_object": obj["target_object"], "target_record_id": obj["target_record_id"]}, nil
	}
	return nil, bad
}

// attioKey is the comparable key of a stored value (its email, domain,
// text), for matching and uniqueness.
func attioKey(v map[string]any) string {
	for _, f := range []string{"email_address", "domain", "value"} {
		if s, ok := v[f].(string); ok {
			return strings.ToLower(s)
		}
	}
	return ""
}

// findBy is the record of object whose attribute slug holds one of keys.
func (ws *attioWorkspace) findBy(object, slug string, keys []string, except string) *attioRecord {
	ids := make([]string, 0, len(ws.records))
	for id := range ws.records {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		rec := ws.records[id]
		if rec.Object != object || rec.ID == except {
			continue
		}
		for _, v := range rec.Values[slug] {
			if k := attioKey(v); k != "" && slices.Contains(keys, k) {
				return rec
			}
		}
	}
	return nil
}

func attioKeys(vals []map[string]any) []string {
	var out []string
	for _, v := range vals {
		if k := attioKey(v); k != "" {
			out = append(out, k)
		}
	}
	return out
}

func (st *attioState) renderRecord(ws *attioWorkspace, rec *attioRecord) map[string]any {
	o := st.objects[rec.Object]
	values := map[string]any{}
	for _, a := range o.Attrs {
		values[a.Slug] = append([]map[string]any{}, rec.Values[a.Slug]...)
	}
	return map[string]any{
		"id":         map[string]string{"workspace_id": ws.ID, "object_id": attioUUID(ws.ID, o.Slug), "record_id": rec.ID},
		"created_at": rec.Created.Format("2006-01-02T15:04:05.000000000Z"),
		"web_url":    "https://app.attio.com/" + ws.Slug + "/" + strings.ToLower(o.Singular) + "/" + rec.ID + "/overview",
		"values":     values,
	}
}

// writeRecord creates a record (POST; a duplicate unique value is a
// uniqueness_conflict) or asserts one by its matching attribute (PUT:
// updated when a record holds the value, created otherwise).
func (st *attioState) writeRecord(ws *attioWorkspace, w http.ResponseWriter, r *http.Request, assert bool) {
	o, ok := st.object(w, r)
	if !ok {
		return
	}
	var in struct {
		Values map[string]any `json:"values"`
	}
	if !attioData(w, r, &in) {
		return
	}
	now := st.now()
	values, bad := attioValues(ws, o, in.Values, now)
	if bad != nil {
		writeAttioError(w, bad.status, bad.code, bad.msg)
		return
	}
	var flakyKeys []string
	for _, vals := range values {
		flakyKeys = append(flakyKeys, attioKeys(vals)...)
	}
	slices.Sort(flakyKeys)
	if st.flakyOnce(w, flakyKeys...) {
		return
	}
	var rec *attioRecord
	if assert {
		match := r.URL.Query().Get("matching_attribute")
		a := o.attr(match)
		switch {
		case match == "":
			writeAttioError(w, http.StatusBadRequest, "validation_type", "Query parameter matching_attribute is required.")
			return
		case a == nil:
			writeAttioError(w, http.StatusNotFound, "not_found", `Cannot find attribute with slug/ID "`+match+`".`)
			return
		case !a.Unique:
			writeAttioError(w, http.StatusBadRequest, "validation_type", `Matching attribute "`+match+`" must be a unique attribute.`)
			return
		case len(values[match]) == 0:
			writeAttioError(w, http.StatusBadRequest, "missing_value", `A value for the matching attribute "`+match+`" must be given.`)
			return
		}
		rec = ws.findBy(o.Slug, match, attioKeys(values[match]), "")
	}
	except := ""
	if rec != nil {
		except = rec.ID
	}
	for _, a := range o.Attrs {
		if vals := values[a.Slug]; a.Unique && len(vals) > 0 {
			if other := ws.findBy(o.Slug, a.Slug, attioKeys(vals), except); other != nil {
				writeAttioError(w, http.StatusConflict, "uniqueness_conflict", `The value for unique attribute "`+a.Slug+`" is already held by record "`+other.ID+`".`)
				return
			}
		}
	}
	if rec == nil {
		if len(ws.records) >= attioMaxRecords {
			writeAttioError(w, http.StatusBadRequest, "validation_type", "The workspace's record limit is reached.")
			return
		}
		ws.n++
		rec = &attioRecord{ID: attioUUID(ws.ID, o.Slug, "record", strconv.Itoa(ws.n), now.String()), Object: o.Slug, Values: map[string][]map[string]any{}, Created: now}
		ws.records[rec.ID] = rec
	}
	for slug, vals := range values {
		if a := o.attr(slug); a.Multi && assert {
			// Asserting adds to a multiselect's values; it removes none.
			keys := attioKeys(rec.Values[slug])
			for _, v := range vals {
				if k := attioKey(v); k == "" || !slices.Contains(keys, k) {
					rec.Values[slug] = append(rec.Values[slug], v)
				}
			}
			continue
		}
		rec.Values[slug] = vals
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": st.renderRecord(ws, rec)})
}

func (st *attioState) getRecord(ws *attioWorkspace, w http.ResponseWriter, r *http.Request) {
	o, ok := st.object(w, r)
	if !ok {
		return
	}
	rec := ws.records[r.PathValue("record_id")]
	if rec == nil || rec.Object != o.Slug {
		writeAttioError(w, http.StatusNotFound, "not_found", `Record with ID "`+r.PathValue("record_id")+`" not found.`)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": st.renderRecord(ws, rec)})
}

func (st *attioState) renderList(ws *attioWorkspace, l *attioObjectSchema) map[string]any {
	return map[string]any{"id": map[string]string{"workspace_id": ws.ID, "list_id": attioUUID(ws.ID, "list", l.Slug)},
		"api_slug": l.Slug, "name": l.Singular, "parent_object": []string{l.Plural}, "workspace_access": "full-access",
		"workspace_member_access": []any{}, "created_by_actor": map[string]any{"type": "system", "id": nil}, "created_at": "2024-01-01T00:00:00.000000000Z"}
}

func (st *attioState) listLists(ws *attioWorkspace, w http.ResponseWriter, _ *http.Request) {
	out := []map[string]any{}
	for _, slug := range []string{"prospects", "target_accounts"} {
		out = append(out, st.renderList(ws, st.lists[slug]))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// list is the path's list, by slug or id, or Attio's 404.
func (st *attioState) list(ws *attioWorkspace, w http.ResponseWriter, r *http.Request) (*attioObjectSchema, bool) {
	key := r.PathValue("list")
	for slug, l := range st.lists {
		if key == slug || key == attioUUID(ws.ID, "list", slug) {
			return l, true
		}
	}
	writeAttioError(w, http.StatusNotFound, "not_found", `List with slug/ID "`+key+`" not found.`)
	return nil, false
}

func (st *attioState) renderEntry(ws *attioWorkspace, e *attioEntry) map[string]any {
	values := map[string]any{}
	for slug, vals := range e.Values {
		values[slug] = vals
	}
	return map[string]any{"id": map[string]string{"workspace_id": ws.ID, "list_id": attioUUID(ws.ID, "list", e.List), "entry_id": e.ID},
		"parent_record_id": e.Parent, "parent_object": e.ParentObject, "created_at": e.Created.Format("2006-01-02T15:04:05.000000000Z"), "entry_values": values}
}

// assertEntry creates the list's entry for a parent record, or updates
// the one there is.
func (st *attioState) assertEntry(ws *attioWorkspace, w http.ResponseWriter, r *http.Request) {
	l, ok := st.list(ws, w, r)
	if !ok {
		return
	}
	var in struct {
		ParentRecordID string         `json:"parent_record_id"`
		ParentObject   string         `json:"parent_object"`
		EntryValues    map[string]any `json:"entry_values"`
	}
	if !attioData(w, r, &in) || st.flakyOnce(w, in.ParentRecordID) {
		return
	}
	switch parent := ws.records[in.ParentRecordID]; {
	case in.ParentRecordID == "" || in.ParentObject == "":
		writeAttioError(w, http.StatusBadRequest, "validation_type", "Body payload validation error: parent_record_id and parent_object are required.")
		return
	case in.ParentObject != l.Plural:
		writeAttioError(w, http.StatusBadRequest, "validation_type", `Parent object "`+in.ParentObject+`" is not the list's parent object "`+l.Plural+`".`)
		return
	case parent == nil || parent.Object != in.ParentObject:
		writeAttioError(w, http.StatusNotFound, "not_found", `Record with ID "`+in.ParentRecordID+`" not found.`)
		return
	}
	now := st.now()
	values, bad := attioValues(ws, l, in.EntryValues, now)
	if bad != nil {
		writeAttioError(w, bad.status, bad.code, bad.msg)
		return
	}
	var entry *attioEntry
	for _, e := range ws.entries[l.Slug] {
		if e.Parent == in.ParentRecordID {
			entry = e
		}
	}
	if entry == nil {
		entry = &attioEntry{ID: attioUUID(ws.ID, l.Slug, in.ParentRecordID, now.String()), List: l.Slug, Parent: in.ParentRecordID,
			ParentObject: in.ParentObject, Values: map[string][]map[string]any{}, Created: now}
		ws.entries[l.Slug] = append(ws.entries[l.Slug], entry)
	}
	for slug, vals := range values {
		entry.Values[slug] = vals
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": st.renderEntry(ws, entry)})
}

func (st *attioState) queryEntries(ws *attioWorkspace, w http.ResponseWriter, r *http.Request) {
	l, ok := st.list(ws, w, r)
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, e := range ws.entries[l.Slug] {
		out = append(out, st.renderEntry(ws, e))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

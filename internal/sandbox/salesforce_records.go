package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// The sandbox org's sObject resources: describe, create, read, upsert by
// external id, with Salesforce's validation answers.

func (st *salesforceState) object(w http.ResponseWriter, r *http.Request) (*sfObject, bool) {
	o := st.schema[strings.ToLower(r.PathValue("object"))]
	if o == nil {
		writeSFError(w, http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
		return nil, false
	}
	return o, true
}

func (st *salesforceState) describeGlobal(_ *sfOrg, w http.ResponseWriter, _ *http.Request) {
	var list []map[string]any
	for _, name := range []string{"account", "contact", "lead", "task"} {
		o := st.schema[name]
		list = append(list, map[string]any{"name": o.Name, "label": o.Label, "labelPlural": o.LabelPlural, "keyPrefix": o.KeyPrefix,
			"createable": true, "updateable": true, "queryable": true, "custom": false,
			"urls": map[string]string{"sobject": "/services/data/v60.0/sobjects/" + o.Name, "describe": "/services/data/v60.0/sobjects/" + o.Name + "/describe"}})
	}
	writeJSON(w, http.StatusOK, map[string]any{"encoding": "UTF-8", "maxBatchSize": 200, "sobjects": list})
}

func (st *salesforceState) limits(org *sfOrg, w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"DailyApiRequests": map[string]int{"Max": 15000, "Remaining": 15000 - len(org.records)%15000},
		"DataStorageMB":    map[string]int{"Max": 5, "Remaining": 5},
	})
}

func (st *salesforceState) describe(_ *sfOrg, w http.ResponseWriter, r *http.Request) {
	o, ok := st.object(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": o.Name, "label": o.Label, "labelPlural": o.LabelPlural, "keyPrefix": o.KeyPrefix,
		"createable": true, "updateable": true, "custom": false, "fields": o.Fields})
}

// render is a record as GET answers it: every field, null when unset.
func (o *sfObject) render(rec *sfRecord, version string) map[string]any {
	out := map[string]any{"attributes": map[string]string{"type": o.Name, "url": "/services/data/" + version + "/sobjects/" + o.Name + "/" + rec.ID}}
	for _, f := range o.Fields {
		out[f.Name] = rec.Fields[f.Name]
	}
	out["Id"] = rec.ID
	out["CreatedDate"] = rec.Created.Format("2006-01-02T15:04:05.000+0000")
	return out
}

func (st *salesforceState) get(org *sfOrg, w http.ResponseWriter, r *http.Request) {
	o, ok := st.object(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	rec := org.records[id]
	if rec == nil && len(id) == 15 {
		rec = org.records[id+salesforceIDSuffix(id)]
	}
	if rec == nil || rec.Object != o.Name {
		writeSFError(w, http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
		return
	}
	writeJSON(w, http.StatusOK, o.render(rec, r.PathValue("version")))
}

// byExternalID lists the object's records whose field holds value
// (case-insensitive, as a unique External ID compares).
func (org *sfOrg) byExternalID(o *sfObject, field, value string) []*sfRecord {
	var out []*sfRecord
	for _, rec := range org.records {
		if v, _ := rec.Fields[field].(string); rec.Object == o.Name && strings.EqualFold(v, value) {
			out = append(out, rec)
		}
	}
	slices.SortFunc(out, func(a, b *sfRecord) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// externalField is the path's External ID field of o, or a 404 answer.
func externalField(o *sfObject, w http.ResponseWriter, r *http.Request) (*sfField, bool) {
	f := o.field(r.PathValue("field"))
	if f == nil || !f.ExternalID {
		writeSFError(w, http.StatusNotFound, "NOT_FOUND", "Provided external ID field does not exist or is not accessible: "+r.PathValue("field"))
		return nil, false
	}
	return f, true
}

func (st *salesforceState) getByExternalID(org *sfOrg, w http.ResponseWriter, r *http.Request) {
	o, ok := st.object(w, r)
	if !ok {
		return
	}
	f, ok := externalField(o, w, r)
	if !ok {
		return
	}
	switch recs := org.byExternalID(o, f.Name, r.PathValue("value")); len(recs) {
	case 0:
		writeSFError(w, http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
	case 1:
		writeJSON(w, http.StatusOK, o.render(recs[0], r.PathValue("version")))
	default:
		multipleChoices(w, o, recs, r.PathValue("version"))
	}
}

func multipleChoices(w http.ResponseWriter, o *sfObject, recs []*sfRecord, version string) {
	urls := make([]string, len(recs))
	for i, rec := range recs {
		urls[i] = "/services/data/" + version + "/sobjects/" + o.Name + "/" + rec.ID
	}
	writeJSON(w, http.StatusMultipleChoices, urls)
}

// body reads a JSON object of field values, or answers JSON_PARSER_ERROR.
func sfBody(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	var in map[string]any
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in == nil {
		writeSFError(w, http.StatusBadRequest, "JSON_PARSER_ERROR", "The request body is not a JSON object of field values")
		return nil, false
	}
	return in, true
}

// flaky answers one 503 for a key starting "flaky-" the first time it is seen.
func (st *salesforceState) flakyOnce(w http.ResponseWriter, keys ...string) bool {
	for _, k := range keys {
		if strings.HasPrefix(k, "flaky-") && !st.flaky[k] {
			st.flaky[k] = true
			writeSFError(w, http.StatusServiceUnavailable, "SERVER_UNAVAILABLE", "The server is temporarily unable to handle the request; try again later.")
			return true
		}
	}
	return false
}

func stringValues(in map[string]any) []string {
	var out []string
	for _, v := range in {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func (st *salesforceState) create(org *sfOrg, w http.ResponseWriter, r *http.Request) {
	o, ok := st.object(w, r)
	if !ok {
		return
	}
	in, ok := sfBody(w, r)
	if !ok || st.flakyOnce(w, stringValues(in)...) {
		return
	}
	rec, errs := st.save(org, o, nil, in)
	if errs != nil {
		writeJSON(w, http.StatusBadRequest, errs)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"id": rec.ID, "success": true, "errors": []any{}})
}

// upsert creates or updates the record whose External ID field holds the
// path's value: 201 created, 200 updated (API 46.0 and later), 300 when
// several match.
func (st *salesforceState) upsert(org *sfOrg, w http.ResponseWriter, r *http.Request) {
	o, ok := st.object(w, r)
	if !ok {
		return
	}
	f, ok := externalField(o, w, r)
	if !ok {
		return
	}
	value := r.PathValue("value")
	in, ok := sfBody(w, r)
	if !ok || st.flakyOnce(w, append([]string{value}, stringValues(in)...)...) {
		return
	}
	recs := org.byExternalID(o, f.Name, value)
	if len(recs) > 1 {
		multipleChoices(w, o, recs, r.PathValue("version"))
		return
	}
	var existing *sfRecord
	if len(recs) == 1 {
		existing = recs[0]
	} else {
		in[f.Name] = value
	}
	rec, errs := st.save(org, o, existing, in)
	if errs != nil {
		writeJSON(w, http.StatusBadRequest, errs)
		return
	}
	status := http.StatusCreated
	if existing != nil {
		status = http.StatusOK
	}
	writeJSON(w, status, map[string]any{"id": rec.ID, "success": true, "errors": []any{}, "created": existing == nil})
}

var (
	sfEmailRE = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@]+$`)
	sfDateRE  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

// save validates in against o and writes it to rec (a new record when
// nil), or returns Salesforce's errors.
func (st *salesforceState) save(org *sfOrg, o *sfObject, rec *sfRecord, in map[string]any) (*sfRecord, []sfError) {
	var errs []sfError
	values := map[string]any{}
	for k, v := range in {
		f := o.field(k)
		if f == nil {
			return nil, []sfError{{ErrorCode: "INVALID_FIELD", Message: fmt.Sprintf("No such column '%s' on sobject of type %s", k, o.Name)}}
		}
		if f.Type == "id" {
			return nil, []sfError{{ErrorCode: "INVALID_FIELD_FOR_INSERT_UPDATE", Message: "Unable to create/update fields: Id. Please check the security settings of this field and verify that it is read/write for your profile or permission set.", Fields: []string{"Id"}}}
		}
		if e := st.checkValue(org, o, f, v, rec); e != nil {
			errs = append(errs, *e)
		}
		values[f.Name] = v
	}
	if rec == nil {
		var missing []string
		for _, f := range o.Fields {
			if v, set := values[f.Name]; f.required && (!set || v == nil || v == "") {
				missing = append(missing, f.Name)
			}
		}
		if len(missing) > 0 {
			errs = append(errs, sfError{ErrorCode: "REQUIRED_FIELD_MISSING", Message: "Required fields are missing: [" + strings.Join(missing, ", ") + "]", Fields: missing})
		}
	}
	if errs != nil {
		return nil, errs
	}
	if rec == nil {
		if len(org.records) >= salesforceMaxRecords {
			return nil, []sfError{{ErrorCode: "STORAGE_LIMIT_EXCEEDED", Message: "storage limit exceeded"}}
		}
		org.counts[o.Name]++
		rec = &sfRecord{ID: salesforceID(o.KeyPrefix, hashN(hashString(5, org.ID), org.counts[o.Name])%1_000_000_000), Object: o.Name, Fields: map[string]any{}, Created: st.now()}
		for _, f := range o.Fields {
			if f.def != "" {
				rec.Fields[f.Name] = f.def
			}
		}
		org.records[rec.ID] = rec
	}
	for k, v := range values {
		rec.Fields[k] = v
	}
	return rec, nil
}

// checkValue is Salesforce's answer to a value a field does not take.
func (st *salesforceState) checkValue(org *sfOrg, o *sfObject, f *sfField, v any, rec *sfRecord) *sfError {
	if v == nil {
		if f.required {
			return &sfError{ErrorCode: "REQUIRED_FIELD_MISSING", Message: "Required fields are missing: [" + f.Name + "]", Fields: []string{f.Name}}
		}
		return nil
	}
	if f.Type == "int" {
		if _, ok := v.(float64); !ok {
			return &sfError{ErrorCode: "JSON_PARSER_ERROR", Message: fmt.Sprintf("Cannot deserialize instance of int from VALUE_STRING value %v", v)}
		}
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return &sfError{ErrorCode: "JSON_PARSER_ERROR", Message: fmt.Sprintf("Cannot deserialize instance of %s from %T value for field %s", f.Type, v, f.Name)}
	}
	switch {
	case f.Length > 0 && len([]rune(s)) > f.Length:
		return &sfError{ErrorCode: "STRING_TOO_LONG", Message: fmt.Sprintf("%s: data value too large: %.40s (max length=%d)", f.Label, s, f.Length), Fields: []string{f.Name}}
	case f.Type == "email" && s != "" && !sfEmailRE.MatchString(s):
		return &sfError{ErrorCode: "INVALID_EMAIL_ADDRESS", Message: f.Label + ": invalid email address: " + s, Fields: []string{f.Name}}
	case f.Type == "date" && s != "" && !sfDateRE.MatchString(s):
		return &sfError{ErrorCode: "JSON_PARSER_ERROR", Message: "Cannot deserialize instance of date from VALUE_STRING value " + s + " or request may be missing a required field"}
	case f.restricted && !slices.ContainsFunc(f.PicklistValues, func(p sfPicklistVal) bool { return p.Value == s }):
		return &sfError{ErrorCode: "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", Message: f.Label + ": bad value for restricted picklist field: " + s, Fields: []string{f.Name}}
	case f.Type == "reference" && s != "":
		return st.checkReference(org, f, s)
	case f.Unique && s != "":
		for _, other := range org.byExternalID(o, f.Name, s) {
			if rec == nil || other.ID != rec.ID {
				return &sfError{ErrorCode: "DUPLICATE_VALUE", Message: fmt.Sprintf("duplicate value found: %s duplicates value on record with id: %s", f.Name, other.ID), Fields: []string{}}
			}
		}
	}
	return nil
}

// checkReference: a well-formed id of an object the field may reference,
// of a record of the org.
func (st *salesforceState) checkReference(org *sfOrg, f *sfField, id string) *sfError {
	if !salesforceIDOK(id) {
		return &sfError{ErrorCode: "MALFORMED_ID", Message: f.Label + ": id value of incorrect type: " + id, Fields: []string{f.Name}}
	}
	if len(id) == 15 {
		id += salesforceIDSuffix(id)
	}
	target := org.records[id]
	if target == nil || !slices.Contains(f.ReferenceTo, target.Object) {
		return &sfError{ErrorCode: "INVALID_CROSS_REFERENCE_KEY", Message: "invalid cross reference id", Fields: []string{f.Name}}
	}
	return nil
}

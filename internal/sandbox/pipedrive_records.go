package sandbox

import (
	"fmt"
	"maps"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"time"
)

// Pipedrive's persons, organizations, leads and notes of a sandbox company.

func (c *pipedriveCompany) full() bool {
	return len(c.persons)+len(c.orgs)+len(c.leads)+len(c.notes) >= pipedriveMaxRecords
}

func (c *pipedriveCompany) id() int64 {
	id := c.nextID
	c.nextID++
	return id
}

// searchTerm reads term (at least 2 characters, as Pipedrive requires
// without exact_match; 1 with it) and whether the match is exact.
func searchTerm(w http.ResponseWriter, r *http.Request) (string, bool, bool) {
	q := r.URL.Query()
	term, exact := strings.TrimSpace(q.Get("term")), q.Get("exact_match") == "true" || q.Get("exact_match") == "1"
	if len([]rune(term)) < 2 && !(exact && term != "") {
		pipedriveFail(w, http.StatusBadRequest, "Term must be at least 2 characters long")
		return "", false, false
	}
	return term, exact, true
}

func termMatches(term string, exact bool, values ...string) bool {
	for _, v := range values {
		if exact && strings.EqualFold(v, term) || !exact && strings.Contains(strings.ToLower(v), strings.ToLower(term)) {
			return true
		}
	}
	return false
}

func searchAnswer(w http.ResponseWriter, items []any) {
	pipedriveOK(w, http.StatusOK, map[string]any{"items": items}, map[string]any{"pagination": map[string]any{
		"start": 0, "limit": 100, "more_items_in_collection": false}})
}

func valuesOf(list any) []string {
	var out []string
	items, _ := list.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, fmt.Sprint(m["value"]))
		}
	}
	return out
}

func pipedrivePersonSearch(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
	term, exact, ok := searchTerm(w, r)
	if !ok || c.flakyOnce(w, term) {
		return
	}
	fields := r.URL.Query().Get("fields")
	items := []any{}
	for _, id := range slices.Sorted(maps.Keys(c.persons)) {
		p := c.persons[id]
		var vals []string
		if fields == "" || strings.Contains(fields, "email") {
			vals = append(vals, valuesOf(p["email"])...)
		}
		if fields == "" || strings.Contains(fields, "name") {
			vals = append(vals, fmt.Sprint(p["name"]))
		}
		if !termMatches(term, exact, vals...) {
			continue
		}
		var org any
		if o, ok := p["org_id"].(map[string]any); ok {
			org = map[string]any{"id": o["value"], "name": o["name"], "address": nil}
		}
		items = append(items, map[string]any{"result_score": 1, "item": map[string]any{"id": id, "type": "person", "name": p["name"],
			"phones": valuesOf(p["phone"]), "emails": valuesOf(p["email"]), "visible_to": 3, "owner": map[string]any{"id": 1},
			"organization": org, "custom_fields": []any{}, "notes": []any{}}})
	}
	searchAnswer(w, items)
}

// pipedriveContacts normalizes email or phone of a person's body: a
// string, or a list of strings or {value, primary, label}.
func pipedriveContacts(v any) ([]any, bool) {
	switch x := v.(type) {
	case string:
		return []any{map[string]any{"label": "work", "value": x, "primary": true}}, true
	case []any:
		out := []any{}
		for i, it := range x {
			switch y := it.(type) {
			case string:
				out = append(out, map[string]any{"label": "work", "value": y, "primary": i == 0})
			case map[string]any:
				if _, ok := y["value"].(string); !ok {
					return nil, false
				}
				out = append(out, map[string]any{"label": cmpOr(y["label"], "work"), "value": y["value"], "primary": cmpOr(y["primary"], i == 0)})
			default:
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

func cmpOr(v, def any) any {
	if v == nil {
		return def
	}
	return v
}

// savePerson creates a person (p nil) or updates p with the body.
func (c *pipedriveCompany) savePerson(w http.ResponseWriter, r *http.Request, p map[string]any) {
	body, ok := pipedriveDecode(w, r)
	if !ok {
		return
	}
	name, hasName := body["name"].(string)
	if p == nil && strings.TrimSpace(name) == "" || hasName && strings.TrimSpace(name) == "" {
		pipedriveFail(w, http.StatusBadRequest, "Name must be given.")
		return
	}
	fields := map[string]any{}
	for _, k := range []string{"email", "phone"} {
		v, given := body[k]
		if !given {
			continue
		}
		list, ok := pipedriveContacts(v)
		if !ok {
			pipedriveFail(w, http.StatusBadRequest, fmt.Sprintf("Invalid %s: expected a string or a list of {value, primary, label}", k))
			return
		}
		if k == "email" {
			for _, e := range valuesOf(list) {
				if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
					pipedriveFail(w, http.StatusBadRequest, "Invalid email address: "+e)
					return
				}
			}
		}
		fields[k] = list
	}
	if v, given := body["org_id"]; given && v != nil {
		oid, ok := pipedriveNum(v)
		org := c.orgs[oid]
		if !ok || org == nil {
			pipedriveFail(w, http.StatusBadRequest, "Organization not found")
			return
		}
		fields["org_id"] = map[string]any{"name": org["name"], "value": oid, "people_count": 1, "owner_id": 1, "active_flag": true}
		fields["org_name"] = org["name"]
	}
	for _, d := range pipedrivePersonFields {
		if v, given := body[d.Key]; given && len(d.Key) == 40 {
			fields[d.Key] = v // custom fields: Pipedrive ignores unknown keys
		}
	}
	if hasName {
		fields["name"] = name
		first, last, _ := strings.Cut(name, " ")
		fields["first_name"], fields["last_name"] = first, last
	}
	status := http.StatusOK
	if p == nil {
		if c.full() {
			pipedriveFail(w, http.StatusPaymentRequired, fmt.Sprintf("The company has reached its limit of %d records.", pipedriveMaxRecords))
			return
		}
		p = map[string]any{"id": c.id(), "email": []any{}, "phone": []any{}, "org_id": nil, "org_name": nil, "owner_id": map[string]any{"id": 1},
			"add_time": pipedriveNow(), "active_flag": true, "visible_to": "3"}
		c.persons[p["id"].(int64)] = p
		status = http.StatusCreated
	}
	for k, v := range fields {
		p[k] = v
	}
	p["update_time"] = pipedriveNow()
	pipedriveOK(w, status, p, map[string]any{"didMerge": false})
}

func pipedriveOrgSearch(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
	term, exact, ok := searchTerm(w, r)
	if !ok || c.flakyOnce(w, term) {
		return
	}
	items := []any{}
	for _, id := range slices.Sorted(maps.Keys(c.orgs)) {
		if o := c.orgs[id]; termMatches(term, exact, fmt.Sprint(o["name"])) {
			items = append(items, map[string]any{"result_score": 1, "item": map[string]any{"id": id, "type": "organization",
				"name": o["name"], "address": nil, "visible_to": 3, "owner": map[string]any{"id": 1}, "custom_fields": []any{}, "notes": []any{}}})
		}
	}
	searchAnswer(w, items)
}

func pipedriveCreateOrg(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
	body, ok := pipedriveDecode(w, r)
	if !ok {
		return
	}
	name, _ := body["name"].(string)
	switch {
	case strings.TrimSpace(name) == "":
		pipedriveFail(w, http.StatusBadRequest, "Name must be given.")
		return
	case c.full():
		pipedriveFail(w, http.StatusPaymentRequired, fmt.Sprintf("The company has reached its limit of %d records.", pipedriveMaxRecords))
		return
	}
	o := map[string]any{"id": c.id(), "name": name, "owner_id": map[string]any{"id": 1}, "people_count": 0, "active_flag": true,
		"add_time": pipedriveNow(), "update_time": pipedriveNow(), "visible_to": "3"}
	c.orgs[o["id"].(int64)] = o
	pipedriveOK(w, http.StatusCreated, o, nil)
}

func pipedriveLeadSearch(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
	term, exact, ok := searchTerm(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	items := []any{}
	for _, l := range c.leadsInOrder() {
		if !termMatches(term, exact, fmt.Sprint(l["title"])) ||
			q.Get("person_id") != "" && fmt.Sprint(l["person_id"]) != q.Get("person_id") ||
			q.Get("organization_id") != "" && fmt.Sprint(l["organization_id"]) != q.Get("organization_id") {
			continue
		}
		items = append(items, map[string]any{"result_score": 1, "item": map[string]any{"id": l["id"], "type": "lead", "title": l["title"],
			"owner": map[string]any{"id": 1}, "person": pipedriveRef(l["person_id"]), "organization": pipedriveRef(l["organization_id"]),
			"phones": []any{}, "emails": []any{}, "custom_fields": []any{}, "notes": []any{}, "value": nil, "currency": "EUR", "visible_to": 3, "is_archived": false}})
	}
	searchAnswer(w, items)
}

func pipedriveRef(id any) any {
	if id == nil {
		return nil
	}
	return map[string]any{"id": id}
}

func (c *pipedriveCompany) leadsInOrder() []map[string]any {
	out := make([]map[string]any, 0, len(c.leads))
	for _, l := range c.leads {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return int(a["_seq"].(int64) - b["_seq"].(int64)) })
	return out
}

func pipedriveCreateLead(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
	body, ok := pipedriveDecode(w, r)
	if !ok {
		return
	}
	title, _ := body["title"].(string)
	pid, hasP := pipedriveNum(body["person_id"])
	oid, hasO := pipedriveNum(body["organization_id"])
	switch {
	case strings.TrimSpace(title) == "":
		pipedriveFail(w, http.StatusBadRequest, "Validation failed: title: Required")
		return
	case !hasP && !hasO:
		pipedriveFail(w, http.StatusBadRequest, "A lead must be linked to a person or an organization.")
		return
	case hasP && c.persons[pid] == nil:
		pipedriveFail(w, http.StatusNotFound, "Person not found")
		return
	case hasO && c.orgs[oid] == nil:
		pipedriveFail(w, http.StatusNotFound, "Organization not found")
		return
	case c.flakyOnce(w, title):
		return
	case c.full():
		pipedriveFail(w, http.StatusPaymentRequired, fmt.Sprintf("The company has reached its limit of %d records.", pipedriveMaxRecords))
		return
	}
	seq := c.id()
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	l := map[string]any{"id": uuidOfSeed(fmt.Sprintf("pipedrive-lead:%s:%d", c.token, seq)), "_seq": seq, "title": title,
		"owner_id": 1, "creator_id": 1, "label_ids": []any{}, "person_id": nil, "organization_id": nil, "source_name": "API",
		"origin": "API", "is_archived": false, "was_seen": false, "value": nil, "expected_close_date": nil, "next_activity_id": nil,
		"add_time": now, "update_time": now, "visible_to": "3"}
	if hasP {
		l["person_id"] = pid
	}
	if hasO {
		l["organization_id"] = oid
	}
	c.leads[l["id"].(string)] = l
	pipedriveOK(w, http.StatusCreated, leadView(l), nil)
}

// leadView is a lead without the sandbox's ordering key.
func leadView(l map[string]any) map[string]any {
	out := make(map[string]any, len(l))
	for k, v := range l {
		if k != "_seq" {
			out[k] = v
		}
	}
	return out
}

var noteTargets = []string{"person_id", "lead_id", "deal_id", "org_id"}

func pipedriveListNotes(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
	q := r.URL.Query()
	out := []any{}
	for i := len(c.notes) - 1; i >= 0; i-- { // newest first
		n := c.notes[i]
		keep := true
		for _, k := range noteTargets {
			if v := q.Get(k); v != "" && fmt.Sprint(n[k]) != v {
				keep = false
			}
		}
		if keep && len(out) < 500 {
			out = append(out, n)
		}
	}
	pipedriveOK(w, http.StatusOK, out, map[string]any{"pagination": map[string]any{"start": 0, "limit": 500, "more_items_in_collection": false}})
}

func pipedriveCreateNote(w http.ResponseWriter, r *http.Request, c *pipedriveCompany) {
	body, ok := pipedriveDecode(w, r)
	if !ok {
		return
	}
	content, _ := body["content"].(string)
	if strings.TrimSpace(content) == "" {
		pipedriveFail(w, http.StatusBadRequest, "Note content is required.")
		return
	}
	n := map[string]any{"id": int64(0), "user_id": 1, "content": content, "active_flag": true, "add_time": pipedriveNow(), "update_time": pipedriveNow(),
		"person_id": nil, "lead_id": nil, "deal_id": nil, "org_id": nil}
	linked := false
	for _, k := range noteTargets {
		v, given := body[k]
		if !given || v == nil {
			continue
		}
		linked = true
		if k == "lead_id" {
			id, _ := v.(string)
			if c.leads[id] == nil {
				pipedriveFail(w, http.StatusNotFound, "Lead not found")
				return
			}
			n[k] = id
			continue
		}
		id, ok := pipedriveNum(v)
		exists := ok && (k == "person_id" && c.persons[id] != nil || k == "deal_id" && c.deals[id] || k == "org_id" && c.orgs[id] != nil)
		if !exists {
			pipedriveFail(w, http.StatusNotFound, strings.TrimSuffix(k, "_id")+" not found")
			return
		}
		n[k] = id
	}
	if !linked {
		pipedriveFail(w, http.StatusBadRequest, "No linked object specified: give deal_id, person_id, org_id or lead_id.")
		return
	}
	if c.full() {
		pipedriveFail(w, http.StatusPaymentRequired, fmt.Sprintf("The company has reached its limit of %d records.", pipedriveMaxRecords))
		return
	}
	n["id"] = c.id()
	c.notes = append(c.notes, n)
	pipedriveOK(w, http.StatusCreated, n, nil)
}

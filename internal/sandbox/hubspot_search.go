package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// HubSpot's CRM search API (v3), associations v4 and properties API.

// hubSpotFilter is one filter of a search's filter group.
type hubSpotFilter struct {
	PropertyName string `json:"propertyName"`
	Operator     string `json:"operator"`
	Value        any    `json:"value"`
	Values       []any  `json:"values"`
	HighValue    any    `json:"highValue"`
}

// Search bounds, as HubSpot documents them.
const (
	hubSpotMaxFilterGroups   = 5
	hubSpotMaxFiltersInGroup = 6
	hubSpotMaxFilters        = 18
	hubSpotMaxSearchLimit    = 200
)

func hubSpotText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// matches tells whether o passes f; associations.<type> filters match
// the ids o is associated with.
func (f hubSpotFilter) matches(o *hubSpotObject) bool {
	var values []string
	if to, ok := strings.CutPrefix(f.PropertyName, "associations."); ok {
		typ, _ := hubSpotObjectType(to)
		for id := range o.Assoc[typ] {
			values = append(values, id)
		}
	} else if v, ok := o.Props[f.PropertyName]; ok && v != "" {
		values = []string{v}
	}
	want := hubSpotText(f.Value)
	some := func(pred func(v string) bool) bool { return slices.ContainsFunc(values, pred) }
	switch f.Operator {
	case "EQ":
		return some(func(v string) bool { return strings.EqualFold(v, want) })
	case "NEQ":
		return !some(func(v string) bool { return strings.EqualFold(v, want) })
	case "HAS_PROPERTY":
		return len(values) > 0
	case "NOT_HAS_PROPERTY":
		return len(values) == 0
	case "CONTAINS_TOKEN":
		w := strings.ToLower(strings.Trim(want, "*"))
		return some(func(v string) bool { return strings.Contains(strings.ToLower(v), w) })
	case "NOT_CONTAINS_TOKEN":
		w := strings.ToLower(strings.Trim(want, "*"))
		return !some(func(v string) bool { return strings.Contains(strings.ToLower(v), w) })
	case "IN", "NOT_IN":
		in := some(func(v string) bool {
			return slices.ContainsFunc(f.Values, func(x any) bool { return strings.EqualFold(hubSpotText(x), v) })
		})
		return in == (f.Operator == "IN")
	case "LT", "LTE", "GT", "GTE", "BETWEEN":
		return some(func(v string) bool { return f.compare(v, want) })
	}
	return false
}

// compare applies an ordering operator: numerically when both sides are
// numbers, else as text (ISO 8601 datetimes order as text).
func (f hubSpotFilter) compare(v, want string) bool {
	cmp := func(a, b string) int {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 == nil && err2 == nil {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
		return strings.Compare(a, b)
	}
	switch f.Operator {
	case "LT":
		return cmp(v, want) < 0
	case "LTE":
		return cmp(v, want) <= 0
	case "GT":
		return cmp(v, want) > 0
	case "GTE":
		return cmp(v, want) >= 0
	}
	return cmp(v, want) >= 0 && cmp(v, hubSpotText(f.HighValue)) <= 0
}

// hubSpotOperator tells whether op is a documented filter operator.
func hubSpotOperator(op string) bool {
	switch op {
	case "EQ", "NEQ", "LT", "LTE", "GT", "GTE", "BETWEEN", "IN", "NOT_IN",
		"HAS_PROPERTY", "NOT_HAS_PROPERTY", "CONTAINS_TOKEN", "NOT_CONTAINS_TOKEN":
		return true
	}
	return false
}

// handleSearch is POST /crm/v3/objects/{type}/search: filter groups are
// ORed, the filters of a group ANDed.
func (c *hubSpotCRM) handleSearch(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(p *hubSpotPortal, typ string) {
		var in struct {
			FilterGroups []struct {
				Filters []hubSpotFilter `json:"filters"`
			} `json:"filterGroups"`
			Properties []string `json:"properties"`
			Limit      int      `json:"limit"`
			After      string   `json:"after"`
			Query      string   `json:"query"`
		}
		if !decodeHubSpotBody(w, r, &in) {
			return
		}
		total := 0
		for gi, g := range in.FilterGroups {
			total += len(g.Filters)
			for fi, f := range g.Filters {
				// Datetime filter values are Unix milliseconds (or ISO 8601):
				// compare them in the stored form.
				if d, ok := c.property(typ, f.PropertyName); ok && d.Type == "datetime" {
					if t, ok := hubSpotParseTime(hubSpotText(f.Value)); ok {
						in.FilterGroups[gi].Filters[fi].Value = hubSpotTime(t)
					}
				}
				_, known := c.property(typ, f.PropertyName)
				if to, ok := strings.CutPrefix(f.PropertyName, "associations."); ok {
					_, known = hubSpotObjectType(to)
				}
				switch {
				case !known:
					writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR",
						fmt.Sprintf("There was a problem with the request. Property %q does not exist on %s.", f.PropertyName, typ), nil)
					return
				case !hubSpotOperator(f.Operator):
					writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR",
						fmt.Sprintf("There was a problem with the request. Unknown operator %q.", f.Operator), nil)
					return
				}
				if f.Operator == "EQ" && p.flakyOnce(typ, hubSpotText(f.Value)) {
					writeHubSpotRateLimited(w, r, p.id)
					return
				}
			}
			if len(g.Filters) > hubSpotMaxFiltersInGroup {
				writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR",
					fmt.Sprintf("There was a problem with the request. A filter group may hold at most %d filters.", hubSpotMaxFiltersInGroup), nil)
				return
			}
		}
		if len(in.FilterGroups) > hubSpotMaxFilterGroups || total > hubSpotMaxFilters {
			writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR",
				fmt.Sprintf("There was a problem with the request. A search takes at most %d filter groups and %d filters.", hubSpotMaxFilterGroups, hubSpotMaxFilters), nil)
			return
		}
		limit := in.Limit
		if limit <= 0 {
			limit = 10
		}
		limit = min(limit, hubSpotMaxSearchLimit)
		offset, _ := strconv.Atoi(in.After)
		var hits []*hubSpotObject
		for _, id := range sortedIDs(p.objects) {
			o := p.objects[id]
			if o.Type == typ && hubSpotQueryMatches(o, in.Query) && (len(in.FilterGroups) == 0 || slices.ContainsFunc(in.FilterGroups, func(g struct {
				Filters []hubSpotFilter `json:"filters"`
			}) bool {
				for _, f := range g.Filters {
					if !f.matches(o) {
						return false
					}
				}
				return true
			})) {
				hits = append(hits, o)
			}
		}
		body := map[string]any{"total": len(hits)}
		results := []hubSpotRecord{}
		for i := max(offset, 0); i < len(hits) && len(results) < limit; i++ {
			results = append(results, hits[i].record(in.Properties, nil))
		}
		if end := max(offset, 0) + len(results); end < len(hits) {
			body["paging"] = map[string]any{"next": map[string]string{"after": strconv.Itoa(end)}}
		}
		body["results"] = results
		writeJSON(w, http.StatusOK, body)
	})
}

// hubSpotQueryMatches is the search's free-text query: a word of any
// property value.
func hubSpotQueryMatches(o *hubSpotObject, q string) bool {
	if q = strings.ToLower(strings.TrimSpace(q)); q == "" {
		return true
	}
	for _, v := range o.Props {
		if strings.Contains(strings.ToLower(v), q) {
			return true
		}
	}
	return false
}

// handleAssociateDefault is PUT /crm/v4/objects/{from}/{fromId}/
// associations/default/{to}/{toId}: the unlabeled association, both ways.
func (c *hubSpotCRM) handleAssociateDefault(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(p *hubSpotPortal, _ string) {
		from, ok1 := hubSpotObjectType(r.PathValue("from"))
		to, ok2 := hubSpotObjectType(r.PathValue("to"))
		if !ok1 || !ok2 || hubSpotAssociationType(from, to) == 0 {
			writeHubSpotError(w, r, http.StatusBadRequest, "VALIDATION_ERROR",
				fmt.Sprintf("No default association type exists between %s and %s.", r.PathValue("from"), r.PathValue("to")), nil)
			return
		}
		a, b := p.objects[r.PathValue("fromId")], p.objects[r.PathValue("toId")]
		for _, x := range []struct {
			o       *hubSpotObject
			typ, id string
		}{{a, from, r.PathValue("fromId")}, {b, to, r.PathValue("toId")}} {
			if x.o == nil || x.o.Type != x.typ {
				writeHubSpotError(w, r, http.StatusNotFound, "OBJECT_NOT_FOUND",
					fmt.Sprintf("No %s with ID %s exists.", hubSpotSingular(x.typ), x.id), nil)
				return
			}
		}
		now := hubSpotTime(c.now())
		types := associate(a, b)
		spec := func(x, y *hubSpotObject, id int) map[string]any {
			return map[string]any{"from": map[string]string{"id": x.ID}, "to": map[string]string{"id": y.ID},
				"associationSpec": map[string]any{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": id}}
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "COMPLETE", "startedAt": now, "completedAt": now,
			"results": []any{spec(a, b, types[0]), spec(b, a, types[1])}})
	})
}

// handleAssociations is GET /crm/v4/objects/{from}/{fromId}/associations/{to}.
func (c *hubSpotCRM) handleAssociations(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(p *hubSpotPortal, _ string) {
		from, ok1 := hubSpotObjectType(r.PathValue("from"))
		to, ok2 := hubSpotObjectType(r.PathValue("to"))
		o := p.objects[r.PathValue("fromId")]
		if !ok1 || !ok2 || o == nil || o.Type != from {
			writeHubSpotError(w, r, http.StatusNotFound, "OBJECT_NOT_FOUND", "resource not found", nil)
			return
		}
		results := []any{}
		for _, id := range sortedIDs(o.Assoc[to]) {
			n, _ := strconv.ParseInt(id, 10, 64)
			var types []any
			for _, t := range o.Assoc[to][id] {
				types = append(types, map[string]any{"category": "HUBSPOT_DEFINED", "typeId": t, "label": nil})
			}
			results = append(results, map[string]any{"toObjectId": n, "associationTypes": types})
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": results})
	})
}

// handleProperties is GET /crm/v3/properties/{type}.
func (c *hubSpotCRM) handleProperties(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(_ *hubSpotPortal, typ string) {
		writeJSON(w, http.StatusOK, map[string]any{"results": c.props[typ]})
	})
}

// handleProperty is GET /crm/v3/properties/{type}/{name}.
func (c *hubSpotCRM) handleProperty(w http.ResponseWriter, r *http.Request) {
	c.scope(w, r, func(_ *hubSpotPortal, typ string) {
		d, ok := c.property(typ, r.PathValue("name"))
		if !ok {
			writeHubSpotError(w, r, http.StatusNotFound, "OBJECT_NOT_FOUND",
				fmt.Sprintf("Unable to find property %s on object type %s", r.PathValue("name"), typ), nil)
			return
		}
		writeJSON(w, http.StatusOK, d)
	})
}

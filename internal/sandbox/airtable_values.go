package sandbox

import (
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
)

// cast checks a record's fields against the table's schema, converting
// what typecast allows; it answers Airtable's 422 and reports false on
// the first value it refuses.
func (t *atTable) cast(w http.ResponseWriter, in map[string]any, typecast bool) (map[string]any, bool) {
	out := make(map[string]any, len(in))
	for name, v := range in {
		f := t.field(name)
		if f == nil {
			atError(w, http.StatusUnprocessableEntity, "UNKNOWN_FIELD_NAME", fmt.Sprintf("Unknown field name: %q", name))
			return nil, false
		}
		if v == nil {
			out[f.Name] = nil
			continue
		}
		cv, ok := atCast(f, v, typecast)
		if !ok {
			if f.Type == "singleSelect" {
				atError(w, http.StatusUnprocessableEntity, "INVALID_MULTIPLE_CHOICE_OPTIONS", fmt.Sprintf("Insufficient permissions to create new select option \"%v\"", v))
			} else {
				atError(w, http.StatusUnprocessableEntity, "INVALID_VALUE_FOR_COLUMN", fmt.Sprintf("Field %q cannot accept the provided value", f.Name))
			}
			return nil, false
		}
		out[f.Name] = cv
	}
	return out, true
}

// atCast converts one value for a field; typecast lets text become a
// number and creates a select's missing option, as Airtable does.
func atCast(f *atField, v any, typecast bool) (any, bool) {
	s, isString := v.(string)
	if !isString && typecast {
		switch v.(type) {
		case float64, bool:
			s, isString = fmt.Sprint(v), true
		}
	}
	switch f.Type {
	case "singleLineText", "multilineText":
		return s, isString && len(s) <= 100_000
	case "email":
		a, err := mail.ParseAddress(s)
		return s, isString && err == nil && a.Address == s
	case "url":
		u, err := url.Parse(s)
		return s, isString && err == nil && u.Host != ""
	case "number":
		if n, ok := v.(float64); ok {
			return n, true
		}
		if !typecast || !isString {
			return nil, false
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return n, err == nil
	case "singleSelect":
		if !isString || s == "" {
			return nil, false
		}
		cs, _ := f.Options["choices"].([]map[string]string)
		for _, c := range cs {
			if c["name"] == s {
				return s, true
			}
		}
		if !typecast || len(cs) >= 100 {
			return nil, false
		}
		f.Options["choices"] = append(cs, map[string]string{"id": "sel" + fmt.Sprintf("%016x", hashString(13, f.ID+s))[:14], "name": s, "color": "grayLight2"})
		return s, true
	}
	return nil, false
}

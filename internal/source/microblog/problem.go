package microblog

import (
	"encoding/json"
	"strings"
)

// problemMessage extracts a readable message from an X error body: a problem object
// ({title, detail, type, status}), a list of them ({errors: [...]}) or the v1-style
// {errors: [{code, message}]} that 429s carry. Falls back to a snippet of the body.
func problemMessage(body []byte) string {
	var p struct {
		Problem
		Errors []Problem `json:"errors"`
	}
	if err := json.Unmarshal(body, &p); err == nil {
		var parts []string
		if s := firstNonEmpty(p.Detail, p.Title); s != "" {
			parts = append(parts, s)
		}
		for _, e := range p.Errors {
			if s := firstNonEmpty(e.Detail, e.Message, e.Title); s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "; ")
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

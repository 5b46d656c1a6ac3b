package console

import (
	"encoding/json"
	"html/template"
	"time"
)

// templateFuncs are the functions every page's template may call.
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"iso":  func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"when": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		// json is v as indented JSON, for a <pre> (an execution step's
		// input, a definition).
		"json": func(v any) string {
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return err.Error()
			}
			return string(b)
		},
		// dict builds a map for a template call with several values.
		"dict": func(kv ...any) map[string]any {
			m := make(map[string]any, len(kv)/2)
			for i := 0; i+1 < len(kv); i += 2 {
				if k, ok := kv[i].(string); ok {
					m[k] = kv[i+1]
				}
			}
			return m
		},
	}
}

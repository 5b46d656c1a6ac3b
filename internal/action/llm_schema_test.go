package action

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func mustJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestParseSchemaProblems(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"properties": {}}`, "must give a type"},
		{`"object"`, "must be a JSON Schema object"},
		{`{"type": "dict"}`, `type: "dict" is not one of object, array, string, number, integer, boolean, null`},
		{`{"type": ["string", "string"]}`, `type: names "string" twice`},
		{`{"type": []}`, "type: must name at least one type"},
		{`{"type": "object", "properties": {"a": {"type": "string", "pattern": "^a"}}}`, "properties.a.pattern: is not supported"},
		{`{"type": "object", "oneOf": []}`, "oneOf: is not supported"},
		{`{"type": "object", "$ref": "#/defs/x"}`, "$ref: is not supported"},
		{`{"type": "object", "required": ["a", 1]}`, "required: must be an array of property names"},
		{`{"type": "object", "required": ["a"], "additionalProperties": false}`, `required: "a" is not in properties while additionalProperties is false`},
		{`{"type": "object", "additionalProperties": "no"}`, "additionalProperties: must be a boolean or a schema"},
		{`{"type": "number", "minimum": 5, "maximum": 1}`, "minimum: is above maximum"},
		{`{"type": "integer", "minimum": 0.2, "maximum": 0.8}`, "minimum: no integer lies between minimum and maximum"},
		{`{"type": "string", "minLength": 3, "maxLength": 2}`, "minLength: is above maxLength"},
		{`{"type": "string", "minLength": 1.5}`, "minLength: must be a whole number ≥ 0"},
		{`{"type": "string", "minLength": 20000}`, "minLength: must be at most 10000"},
		{`{"type": "array", "minItems": 500}`, "minItems: must be at most 100"},
		{`{"type": "array", "minItems": 4, "maxItems": 2}`, "minItems: is above maxItems"},
		{`{"type": "string", "enum": []}`, "enum: must be a non-empty array"},
		{`{"type": "string", "enum": ["a", 2]}`, "enum.1: does not match the schema: $ must be string, got integer"},
		{`{"type": "array", "minItems": 100, "items": {"type": "array", "minItems": 100, "items": {"type": "string"}}}`, "the smallest answer it allows holds more than 10000 values"},
		{`{"type": "string", "format": 3}`, "format: must be a string"},
	} {
		_, problems := ParseSchema(mustJSON(t, tc.schema))
		if !strings.Contains(strings.Join(problems, " | "), tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.schema, problems, tc.want)
		}
	}
	deep := `{"type": "string"}`
	for range 20 {
		deep = `{"type": "array", "items": ` + deep + `}`
	}
	if _, problems := ParseSchema(mustJSON(t, deep)); len(problems) == 0 || !strings.Contains(problems[0], "nests deeper than 16") {
		t.Errorf("deep schema: %q", problems)
	}
}

func TestSchemaValidate(t *testing.T) {
	s, problems := ParseSchema(mustJSON(t, `{
	  "type": "object", "title": "Lead", "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "properties": {
	    "name": {"type": "string", "minLength": 2, "maxLength": 5},
	    "score": {"type": "number", "minimum": 0, "maximum": 1},
	    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
	    "owner": {"type": ["string", "null"]},
	    "meta": {"type": "object", "additionalProperties": {"type": "integer"}}
	  },
	  "required": ["name", "score"]
	}`))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for answer, want := range map[string]string{
		`{"name": "Ada", "score": 0.5, "tags": ["a"], "owner": null, "meta": {"x": 1}, "other": true}`: "",
		`{"name": "Ada", "score": 1}`:                        "",
		`{"name": "A", "score": 2}`:                          "$.name must be at least 2 characters long; $.score must be at most 1",
		`{"name": "Adaline", "score": -1}`:                   "$.name must be at most 5 characters long; $.score must be at least 0",
		`{"score": "high"}`:                                  `$ lacks required member "name"; $.score must be number, got string`,
		`{"name": "Ada", "score": 0, "tags": ["a", 1, "c"]}`: "$.tags must hold at most 2 items; $.tags[1] must be string, got integer",
		`{"name": "Ada", "score": 0, "meta": {"a b": 1.5}}`:  `$.meta["a b"] must be integer, got number`,
		`[1]`: "$ must be object, got array",
	} {
		got := strings.Join(s.Validate(mustJSON(t, answer)), "; ")
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", answer, got, want)
		}
	}
}

func TestParseAnswer(t *testing.T) {
	for text, want := range map[string]string{
		`{"a": 1}`:                      `{"a":1}`,
		" \n```json\n{\"a\": 1}\n```\n": `{"a":1}`,
		"```\n[1, 2]\n```":              `[1,2]`,
		"```{\"a\": 1}```":              `{"a":1}`,
		`"text"`:                        `"text"`,
	} {
		v, err := ParseAnswer(text)
		b, _ := json.Marshal(v)
		if err != nil || string(b) != want {
			t.Errorf("%q: %s %v, want %s", text, b, err, want)
		}
	}
	for _, bad := range []string{"", "The answer is {\"a\": 1}", `{"a": 1} and more`, `{"a": 1}{"b": 2}`, "```json\n{\"a\": \n```"} {
		if _, err := ParseAnswer(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzParseSchema: any JSON either parses into a schema that can judge
// any value without panicking, or is refused with problems.
func FuzzParseSchema(f *testing.F) {
	for _, s := range []string{
		`{"type": "object", "properties": {"a": {"type": "integer", "minimum": 1}}, "required": ["a"]}`,
		`{"type": ["string", "null"], "enum": ["x", null]}`,
		`{"type": "array", "items": {"type": "object", "additionalProperties": {"type": "number"}}, "minItems": 2}`,
		`{"type": "string", "minLength": 3, "maxLength": 4, "format": "email"}`,
		`{"type": 1}`, `[]`, `null`, `{"type": "object", "required": ["a"], "additionalProperties": false}`,
	} {
		f.Add([]byte(s), []byte(`{"a": 1, "b": [1, "x"]}`))
	}
	f.Fuzz(func(t *testing.T, schema, answer []byte) {
		var raw, v any
		if json.Unmarshal(schema, &raw) != nil || json.Unmarshal(answer, &v) != nil {
			return
		}
		s, problems := ParseSchema(raw)
		if (s == nil) == (len(problems) == 0) {
			t.Fatalf("schema %v with problems %q", s, problems)
		}
		if s == nil {
			return
		}
		if n := s.MinimalSize(); n < 1 || n > schemaMaxMinimal {
			t.Fatalf("minimal size %d", n)
		}
		got := s.Validate(v)
		if len(got) > schemaMaxProblems {
			t.Fatalf("%d problems listed", len(got))
		}
		if !reflect.DeepEqual(got, s.Validate(v)) {
			t.Fatal("validation is not repeatable")
		}
	})
}

// FuzzParseAnswer: a model's text either parses to a JSON value that
// survives a round trip, or is refused; nothing panics.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{"a": 1}`, "```json\n[1]\n```", "```", "``` \n", `"x"`, "{", "1 2", "```json\n{}```"} {
		f.Add(s)
	}
	s, _ := ParseSchema(map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "integer"}}, "required": []any{"a"}})
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ParseAnswer(text)
		if err != nil {
			return
		}
		_ = s.Validate(v)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%q parsed to %v that does not encode: %v", text, v, err)
		}
		again, err := ParseAnswer(string(b))
		if err != nil || !reflect.DeepEqual(again, v) {
			t.Fatalf("%q: round trip %v → %v (%v)", text, v, again, err)
		}
	})
}

// TestCatalogueOutputsInSubset: every action's output schema can be
// checked by OutputProblems, which strict test runs rely on.
func TestCatalogueOutputsInSubset(t *testing.T) {
	for _, spec := range NewCatalogue().List("") {
		raw, _ := json.Marshal(spec.Outputs)
		if _, problems := ParseSchema(mustJSON(t, string(raw))); len(problems) > 0 {
			t.Errorf("%s: %q", spec.Kind, problems)
		}
	}
}

func TestOutputProblems(t *testing.T) {
	spec, _ := NewCatalogue().Lookup(KindHTTPRequest)
	if got := OutputProblems(spec, map[string]any{"status": 200, "headers": map[string]any{"a": "b"}, "body": nil}); got != nil {
		t.Errorf("a real output: %q", got)
	}
	got := strings.Join(OutputProblems(spec, map[string]any{"status": "200", "headers": map[string]any{"a": 1}}), "; ")
	if want := `$ lacks required member "body"; $.headers.a must be string, got integer; $.status must be integer, got string`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	enrich, _ := NewCatalogue().Lookup(KindPersonEnrichment)
	if got := OutputProblems(enrich, map[string]any{"prospect": map[string]any{"job_title": nil, "follower_count": 12}, "experience": []any{}}); got != nil {
		t.Errorf("optional null members: %q", got)
	}
}

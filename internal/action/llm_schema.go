package action

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Schema is the subset of JSON Schema that generic_agent's output_schema
// may use: what structured-output models follow and what can be checked
// and generated without a general validator. Keywords outside the subset
// are refused when the definition is written, so a schema never promises
// more than the answer is checked for.
type Schema struct {
	// Types are the allowed JSON types ("" none given: any value).
	Types      []string
	Properties map[string]*Schema
	Required   []string
	// Additional is the schema of members not in Properties; nil allows
	// anything unless NoAdditional.
	Additional   *Schema
	NoAdditional bool
	Items        *Schema
	Enum         []any
	HasEnum      bool
	Minimum      *float64
	Maximum      *float64
	MinLength    *int
	MaxLength    *int
	MinItems     *int
	MaxItems     *int
	// Format is an annotation (email, date-time, uri, …): not checked,
	// but the sandbox writes values of that shape.
	Format string
}

// Limits of an output schema: an answer must stay small enough to store
// in a step's record.
const (
	schemaMaxDepth    = 16
	schemaMaxNodes    = 2000
	schemaMaxItems    = 100
	schemaMaxLength   = 10000
	schemaMaxMinimal  = 10000 // values the smallest conforming answer holds
	schemaMaxProblems = 20
)

var schemaTypes = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// schemaKeywords are the keywords of the subset; annotations are accepted
// and ignored.
var schemaKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true, "items": true,
	"enum": true, "minimum": true, "maximum": true, "minLength": true, "maxLength": true,
	"minItems": true, "maxItems": true, "format": true,
	"title": true, "description": true, "default": true, "examples": true,
	"$schema": true, "$id": true, "$comment": true,
}

// ParseSchema reads an output_schema. Its problems name the place in the
// schema ("properties.score.type: …"); the top level must give a type.
func ParseSchema(raw any) (*Schema, []string) {
	p := &schemaParser{}
	s := p.parse(raw, "", 0)
	if m, ok := raw.(map[string]any); ok {
		if _, ok := m["type"]; !ok {
			p.problem("", "must give a type")
		}
	}
	if len(p.problems) == 0 {
		if n := s.MinimalSize(); n > schemaMaxMinimal {
			p.problem("", "the smallest answer it allows holds more than %d values", schemaMaxMinimal)
		}
	}
	if len(p.problems) > 0 {
		return nil, p.problems
	}
	return s, nil
}

type schemaParser struct {
	problems []string
	nodes    int
}

func (p *schemaParser) problem(at, format string, args ...any) {
	if len(p.problems) >= schemaMaxProblems {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if at != "" {
		msg = at + ": " + msg
	}
	p.problems = append(p.problems, msg)
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func (p *schemaParser) parse(raw any, at string, depth int) *Schema {
	s := &Schema{}
	p.nodes++
	if p.nodes > schemaMaxNodes {
		if p.nodes == schemaMaxNodes+1 {
			p.problem(at, "the schema has more than %d subschemas", schemaMaxNodes)
		}
		return s
	}
	if depth > schemaMaxDepth {
		p.problem(at, "nests deeper than %d levels", schemaMaxDepth)
		return s
	}
	m, ok := raw.(map[string]any)
	if !ok {
		p.problem(at, "must be a JSON Schema object")
		return s
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !schemaKeywords[k] {
			p.problem(join(at, k), "is not supported (use type, properties, required, additionalProperties, items, enum, minimum, maximum, minLength, maxLength, minItems, maxItems, format)")
		}
	}
	switch t := m["type"].(type) {
	case nil:
		if _, given := m["type"]; given {
			p.problem(join(at, "type"), "must be a type name or a list of them")
		}
	case string:
		s.Types = []string{t}
	case []any:
		for _, x := range t {
			name, _ := x.(string)
			if slices.Contains(s.Types, name) {
				p.problem(join(at, "type"), "names %q twice", name)
			}
			s.Types = append(s.Types, name)
		}
		if len(t) == 0 {
			p.problem(join(at, "type"), "must name at least one type")
		}
	default:
		p.problem(join(at, "type"), "must be a type name or a list of them")
	}
	for _, t := range s.Types {
		if !slices.Contains(schemaTypes, t) {
			p.problem(join(at, "type"), "%q is not one of %s", t, strings.Join(schemaTypes, ", "))
		}
	}
	if f, ok := m["format"]; ok {
		if s.Format, ok = f.(string); !ok {
			p.problem(join(at, "format"), "must be a string")
		}
	}
	if props, ok := m["properties"]; ok {
		pm, ok := props.(map[string]any)
		if !ok {
			p.problem(join(at, "properties"), "must be an object of schemas")
		}
		if len(pm) > 0 {
			s.Properties = make(map[string]*Schema, len(pm))
		}
		for _, name := range sortedKeys(pm) {
			s.Properties[name] = p.parse(pm[name], join(at, "properties."+name), depth+1)
		}
	}
	if req, ok := m["required"]; ok {
		list, ok := req.([]any)
		if !ok {
			p.problem(join(at, "required"), "must be an array of property names")
		}
		for _, x := range list {
			name, ok := x.(string)
			switch {
			case !ok:
				p.problem(join(at, "required"), "must be an array of property names")
			case slices.Contains(s.Required, name):
				p.problem(join(at, "required"), "names %q twice", name)
			default:
				s.Required = append(s.Required, name)
			}
		}
	}
	switch ap := m["additionalProperties"].(type) {
	case nil:
		if _, given := m["additionalProperties"]; given {
			p.problem(join(at, "additionalProperties"), "must be a boolean or a schema")
		}
	case bool:
		s.NoAdditional = !ap
	case map[string]any:
		s.Additional = p.parse(ap, join(at, "additionalProperties"), depth+1)
	default:
		p.problem(join(at, "additionalProperties"), "must be a boolean or a schema")
	}
	if s.NoAdditional {
		for _, name := range s.Required {
			if _, ok := s.Properties[name]; !ok {
				p.problem(join(at, "required"), "%q is not in properties while additionalProperties is false", name)
			}
		}
	}
	if items, ok := m["items"]; ok {
		s.Items = p.parse(items, join(at, "items"), depth+1)
	}
	s.Minimum, s.Maximum = p.number(m, at, "minimum"), p.number(m, at, "maximum")
	s.MinLength, s.MaxLength = p.count(m, at, "minLength", schemaMaxLength), p.count(m, at, "maxLength", math.MaxInt32)
	s.MinItems, s.MaxItems = p.count(m, at, "minItems", schemaMaxItems), p.count(m, at, "maxItems", math.MaxInt32)
	if s.Minimum != nil && s.Maximum != nil && *s.Minimum > *s.Maximum {
		p.problem(join(at, "minimum"), "is above maximum")
	}
	if s.MinLength != nil && s.MaxLength != nil && *s.MinLength > *s.MaxLength {
		p.problem(join(at, "minLength"), "is above maxLength")
	}
	if s.MinItems != nil && s.MaxItems != nil && *s.MinItems > *s.MaxItems {
		p.problem(join(at, "minItems"), "is above maxItems")
	}
	if slices.Contains(s.Types, "integer") && s.Minimum != nil && s.Maximum != nil &&
		math.Ceil(*s.Minimum) > math.Floor(*s.Maximum) {
		p.problem(join(at, "minimum"), "no integer lies between minimum and maximum")
	}
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			p.problem(join(at, "enum"), "must be a non-empty array")
		}
		s.Enum, s.HasEnum = list, ok && len(list) > 0
		if len(p.problems) == 0 {
			// Every member must be a valid answer, so that picking one is.
			plain := *s
			plain.HasEnum = false
			for i, v := range list {
				if msgs := plain.Validate(v); len(msgs) > 0 {
					p.problem(join(at, "enum."+strconv.Itoa(i)), "does not match the schema: %s", msgs[0])
				}
			}
		}
	}
	return s
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (p *schemaParser) number(m map[string]any, at, key string) *float64 {
	v, ok := m[key]
	if !ok {
		return nil
	}
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		p.problem(join(at, key), "must be a number")
		return nil
	}
	return &f
}

func (p *schemaParser) count(m map[string]any, at, key string, limit int) *int {
	v, ok := m[key]
	if !ok {
		return nil
	}
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) {
		p.problem(join(at, key), "must be a whole number ≥ 0")
		return nil
	}
	if f > float64(limit) {
		p.problem(join(at, key), "must be at most %d", limit)
		return nil
	}
	n := int(f)
	return &n
}

// MinimalSize counts the values of the smallest answer the schema allows
// (saturating), so that a schema cannot demand an enormous answer.
func (s *Schema) MinimalSize() int {
	if s.HasEnum || len(s.Types) == 0 {
		return 1
	}
	best := math.MaxInt32
	for _, t := range s.Types {
		n := 1
		switch t {
		case "object":
			for _, name := range s.Required {
				sub := s.Properties[name]
				if sub == nil {
					sub = s.Additional
				}
				if sub == nil {
					n = satAdd(n, 1)
				} else {
					n = satAdd(n, sub.MinimalSize())
				}
			}
		case "array":
			if s.MinItems != nil && *s.MinItems > 0 {
				each := 1
				if s.Items != nil {
					each = s.Items.MinimalSize()
				}
				n = satAdd(n, satMul(*s.MinItems, each))
			}
		}
		best = min(best, n)
	}
	return best
}

func satAdd(a, b int) int { return min(a+b, math.MaxInt32) }
func satMul(a, b int) int {
	if a != 0 && b > math.MaxInt32/a {
		return math.MaxInt32
	}
	return a * b
}

// Validate lists how v (a value decoded by encoding/json) breaks the
// schema, each with its place in the answer ($.items[2].score); nil when
// it matches.
func (s *Schema) Validate(v any) []string {
	var out []string
	s.validate(v, "$", &out, false)
	return out
}

// OutputProblems lists how an action's output (a mock's, or an
// executor's) breaks the catalogue's output schema, which is written in
// the same subset. The catalogue does not declare nullability, so an
// optional member may be null. The output is read as JSON, as stored.
func OutputProblems(spec Spec, out any) []string {
	var schema, value any
	raw, err := json.Marshal(spec.Outputs)
	if err != nil || json.Unmarshal(raw, &schema) != nil {
		return nil
	}
	s, problems := ParseSchema(schema)
	if len(problems) > 0 {
		return nil // a catalogue entry outside the subset (a unit test keeps them in)
	}
	raw, err = json.Marshal(out)
	if err != nil || json.Unmarshal(raw, &value) != nil {
		return []string{"$ is not JSON"}
	}
	var msgs []string
	s.validate(value, "$", &msgs, true)
	return msgs
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return JSONTypeName(v)
}

// validate appends v's problems; optionalNull lets members that are not
// required be null.
func (s *Schema) validate(v any, at string, out *[]string, optionalNull bool) {
	add := func(format string, args ...any) {
		if len(*out) < schemaMaxProblems {
			*out = append(*out, at+" "+fmt.Sprintf(format, args...))
		}
	}
	t := jsonType(v)
	if len(s.Types) > 0 && !slices.Contains(s.Types, t) && !(t == "integer" && slices.Contains(s.Types, "number")) {
		add("must be %s, got %s", strings.Join(s.Types, " or "), t)
		return
	}
	if s.HasEnum && !slices.ContainsFunc(s.Enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		add("must be one of %s", enumList(s.Enum))
		return
	}
	switch x := v.(type) {
	case float64:
		if s.Minimum != nil && x < *s.Minimum {
			add("must be at least %v", *s.Minimum)
		}
		if s.Maximum != nil && x > *s.Maximum {
			add("must be at most %v", *s.Maximum)
		}
	case string:
		n := len([]rune(x))
		if s.MinLength != nil && n < *s.MinLength {
			add("must be at least %d characters long", *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			add("must be at most %d characters long", *s.MaxLength)
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			add("must hold at least %d items", *s.MinItems)
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			add("must hold at most %d items", *s.MaxItems)
		}
		if s.Items != nil {
			for i, e := range x {
				s.Items.validate(e, at+"["+strconv.Itoa(i)+"]", out, optionalNull)
			}
		}
	case map[string]any:
		for _, name := range s.Required {
			if _, ok := x[name]; !ok {
				add("lacks required member %q", name)
			}
		}
		for _, k := range sortedKeys(x) {
			sub, ok := s.Properties[k]
			switch {
			case ok:
			case s.NoAdditional:
				add("has member %q that the schema does not allow", k)
				continue
			case s.Additional != nil:
				sub = s.Additional
			default:
				continue
			}
			if optionalNull && x[k] == nil && !slices.Contains(s.Required, k) {
				continue
			}
			sub.validate(x[k], memberPath(at, k), out, optionalNull)
		}
	}
}

func memberPath(at, k string) string {
	if k != "" && !strings.ContainsFunc(k, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		return at + "." + k
	}
	return at + "[" + strconv.Quote(k) + "]"
}

func enumList(enum []any) string {
	parts := make([]string, 0, len(enum))
	for _, e := range enum {
		b, _ := json.Marshal(e)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ", ")
}

package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// jsonFormats are huma's formats with a JSON decoder of our own
// (decodeJSON); huma's default map is shared, so it is copied.
func jsonFormats() map[string]huma.Format {
	f := huma.DefaultJSONFormat
	f.Unmarshal = decodeJSON
	formats := make(map[string]huma.Format, len(huma.DefaultFormats))
	for k, v := range huma.DefaultFormats {
		formats[k] = v
	}
	formats["application/json"], formats["json"] = f, f
	return formats
}

// decodeJSON is huma's JSON unmarshal for request bodies, both when it
// reads a body to validate it and when it fills the handler's input. A
// whole number written 10.0 or 1e1 is read as 10 (integralNumbers): the
// spec's fields are "number", and clients that keep them as floats send
// them so. A value that does not fit its Go field is reported at its JSON
// pointer in the API's words, never Go's ("cannot unmarshal number 1e25
// into Go struct field Action.workflow.actions.timeout_ms of type int64").
func decodeJSON(data []byte, v any) error {
	data = integralNumbers(data)
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		ptr, ok := pointerAt(data, te.Offset)
		if !ok {
			ptr = fieldPointer(te.Field)
		}
		return &bodyTypeError{Pointer: ptr, Message: typeMessage(te)}
	}
	return err
}

// bodyTypeError is a body value of the wrong type (or out of range) for
// its field. huma keeps only the text of an unmarshal error, so the text
// carries the pointer, in a form parseBodyTypeError reads back and that
// still reads well if it is ever shown as it is.
type bodyTypeError struct {
	Pointer string
	Message string
}

func (e *bodyTypeError) Error() string { return fmt.Sprintf("%s (at %q)", e.Message, e.Pointer) }

var bodyTypeErrorRE = regexp.MustCompile(`^(must [^"]*) \(at ("(?:[^"\\]|\\.)*")\)$`)

// parseBodyTypeError reads a bodyTypeError's text back into a detail.
func parseBodyTypeError(msg string) (Detail, bool) {
	m := bodyTypeErrorRE.FindStringSubmatch(msg)
	if m == nil {
		return Detail{}, false
	}
	ptr, err := strconv.Unquote(m[2])
	if err != nil {
		return Detail{}, false
	}
	return Detail{Field: pointerField(ptr), Pointer: ptr, Message: m[1]}, true
}

// typeMessage says what the field takes, in JSON's terms.
func typeMessage(te *json.UnmarshalTypeError) string {
	t := te.Type
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "must be a valid value"
	}
	number := strings.HasPrefix(te.Value, "number")
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if number && wholeNumber(te.Value) {
			bits := t.Bits()
			return fmt.Sprintf("must be an integer from %d to %d", int64(-1)<<(bits-1), int64(1)<<(bits-1)-1)
		}
		return "must be an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if number && wholeNumber(te.Value) {
			return fmt.Sprintf("must be an integer from 0 to %d", uint64(math.MaxUint64)>>(64-t.Bits()))
		}
		return "must be an integer"
	case reflect.Float32, reflect.Float64:
		if number {
			return fmt.Sprintf("must be a number between -%g and %g", maxFloat(t), maxFloat(t))
		}
		return "must be a number"
	case reflect.String:
		return "must be a string"
	case reflect.Bool:
		return "must be a boolean"
	case reflect.Slice, reflect.Array:
		return "must be an array"
	case reflect.Map, reflect.Struct:
		return "must be an object"
	}
	return "must be a valid value"
}

func maxFloat(t reflect.Type) float64 {
	if t.Kind() == reflect.Float32 {
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// wholeNumber says whether the "number …" of a type error is a whole
// number: one too large for its field, since integralNumbers wrote every
// other whole number as an integer the decoder takes.
func wholeNumber(value string) bool {
	d, ok := parseDecimal(strings.TrimPrefix(value, "number "))
	return ok && d.whole()
}

// fieldPointer turns the dotted field path of a type error into a JSON
// pointer, for when the value cannot be found by its offset (array
// indexes are then missing).
func fieldPointer(field string) string {
	if field == "" {
		return ""
	}
	var b strings.Builder
	for tok := range strings.SplitSeq(field, ".") {
		b.WriteString("/" + pointerToken(tok))
	}
	return b.String()
}

// pointerAt finds the JSON pointer of the value a decoding error's offset
// falls in: Go reports a literal at its end (or the byte after it) and an
// array or object just after its opening bracket. data is valid JSON (Go
// checks that before it decodes); ok is false if nothing is found.
func pointerAt(data []byte, offset int64) (ptr string, ok bool) {
	l := locator{data: data, off: int(offset), depth: -1}
	l.value(l.space(0), "", 0)
	return l.best, l.depth >= 0
}

// locator walks a valid JSON document for pointerAt, keeping the deepest
// value that holds the offset.
type locator struct {
	data  []byte
	off   int
	best  string
	depth int
}

func (l *locator) space(i int) int {
	for i < len(l.data) && strings.IndexByte(" \t\r\n", l.data[i]) >= 0 {
		i++
	}
	return i
}

// value walks the value at data[i] (whose pointer is ptr) and returns the
// index after it.
func (l *locator) value(i int, ptr string, depth int) int {
	if i >= len(l.data) {
		return i
	}
	var end int
	switch l.data[i] {
	case '{', '[':
		end = l.container(i, ptr, depth)
		if i < l.off && l.off <= end && depth > l.depth {
			l.best, l.depth = ptr, depth
		}
		return end
	case '"':
		end = stringEnd(l.data, i)
	default:
		end = i
		for end < len(l.data) && strings.IndexByte(",]} \t\r\n", l.data[end]) < 0 {
			end++
		}
	}
	if i < l.off && l.off <= end+1 && depth >= l.depth {
		l.best, l.depth = ptr, depth
	}
	return end
}

// container walks an object or an array; its members come first, so a
// member that holds the offset wins over the container (it is deeper).
func (l *locator) container(i int, ptr string, depth int) int {
	obj := l.data[i] == '{'
	i = l.space(i + 1)
	for n := 0; i < len(l.data); n++ {
		if c := l.data[i]; c == '}' || c == ']' {
			return i + 1
		}
		member := ptr + "/" + strconv.Itoa(n)
		if obj {
			keyEnd := stringEnd(l.data, i)
			var key string
			_ = json.Unmarshal(l.data[i:keyEnd], &key)
			member = ptr + "/" + pointerToken(key)
			i = l.space(keyEnd)
			i = l.space(i + 1) // the colon
		}
		i = l.space(l.value(i, member, depth+1))
		if i < len(l.data) && l.data[i] == ',' {
			i = l.space(i + 1)
		}
	}
	return i
}

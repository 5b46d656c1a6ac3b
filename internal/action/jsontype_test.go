package action

import "testing"

func TestJSONTypeName(t *testing.T) {
	var nilPtr *int
	for _, c := range []struct {
		v    any
		want string
	}{
		{nil, "null"}, {nilPtr, "null"}, {true, "boolean"}, {3, "number"}, {int64(3), "number"}, {2.5, "number"},
		{"x", "string"}, {[]any{1}, "array"}, {[]string{"a"}, "array"}, {map[string]any{}, "object"},
		{map[string]int{}, "object"}, {struct{}{}, "object"}, {func() {}, "value"},
	} {
		if got := JSONTypeName(c.v); got != c.want {
			t.Errorf("JSONTypeName(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

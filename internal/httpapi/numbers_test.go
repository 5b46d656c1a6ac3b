package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/store"
)

func TestIntegralNumbers(t *testing.T) {
	cases := []struct{ in, want string }{
		{`10.0`, `10`},
		{`1e1`, `10`},
		{`1.0E+1`, `10`},
		{`1E1`, `10`},
		{`-0.0`, `-0`},
		{`0.000e7`, `0`},
		{`-10.00`, `-10`},
		{`100e-2`, `1`},
		{`1.5e1`, `15`},
		{`2.50e2`, `250`},
		{`0.5e1`, `5`},
		{`10.5`, `10.5`},
		{`1e-1`, `1e-1`},
		{`0.1`, `0.1`},
		{`10`, `10`},
		{`-0`, `-0`},
		// Beyond 2^53 every digit is kept (a float64 would make it ...992).
		{`9007199254740993.0`, `9007199254740993`},
		{`1.8446744073709551615e19`, `18446744073709551615`},
		// Longer than any Go integer: left for the decoder to refuse.
		{`1e19`, `10000000000000000000`},
		{`1e20`, `1e20`},
		{`1e999999999999999999`, `1e999999999999999999`},
		{`0e999999999999999999`, `0`},
		{`1e-999999999999999999`, `1e-999999999999999999`},
		{`{"max_results": 10.0, "keywords": ["10.0", "a\"1.0"], "n": [1.0, 2.5, 3e0]}`,
			`{"max_results": 10, "keywords": ["10.0", "a\"1.0"], "n": [1, 2.5, 3]}`},
		{`{"a\\": 2.0}`, `{"a\\": 2}`},
		// Not JSON: left exactly as sent, for the decoder to refuse.
		{`[1.0.0]`, `[1.0.0]`},
		{`{"a": 1.0`, `{"a": 1.0`},
		{`[01.0]`, `[01.0]`},
		{`"10.0`, `"10.0`},
	}
	for _, c := range cases {
		if got := string(integralNumbers([]byte(c.in))); got != c.want {
			t.Errorf("integralNumbers(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// Nothing to change: the same bytes, not a copy.
	in := []byte(`{"a": 1, "b": 2.5}`)
	if out := integralNumbers(in); &out[0] != &in[0] {
		t.Errorf("an unchanged document was copied")
	}
}

// FuzzIntegralNumbers checks that integralNumbers never changes what a
// document means: a document that is not JSON is left as it is; a JSON
// document decodes to the same values before and after (every number
// exactly the same decimal, every float64 the same bits, or both refused
// alike), and a whole number that fits an integer field is written as an
// integer.
func FuzzIntegralNumbers(f *testing.F) {
	for _, s := range []string{`10.0`, `{"a": [1e1, -0.0, 10.5, "1.0"]}`, `1.0E+1`, `[9007199254740993.0, 1e400]`,
		`{"a\"b": 0.0e-5}`, `[1.0.0]`, `1e-999999999999999999`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := integralNumbers(bytes.Clone(in))
		if !json.Valid(in) {
			if !bytes.Equal(in, out) {
				t.Fatalf("%q is not JSON but was changed to %q", in, out)
			}
			return
		}
		var before, after any
		if err := decodeNumbers(in, &before); err != nil {
			t.Fatalf("valid %q: %v", in, err)
		}
		if err := decodeNumbers(out, &after); err != nil {
			t.Fatalf("%q became %q, which does not decode: %v", in, out, err)
		}
		sameNumbers(t, before, after)
		var fb, fa any
		eb, ea := json.Unmarshal(in, &fb), json.Unmarshal(out, &fa)
		if (eb == nil) != (ea == nil) {
			t.Fatalf("%q decodes with %v, %q with %v", in, eb, out, ea)
		}
		if eb == nil {
			sameFloats(t, fb, fa)
		}
	})
}

func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// sameNumbers compares two documents decoded with UseNumber.
func sameNumbers(t *testing.T, a, b any) {
	t.Helper()
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			t.Fatalf("%v became %v", a, b)
		}
		for k, v := range a {
			sameNumbers(t, v, bm[k])
		}
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			t.Fatalf("%v became %v", a, b)
		}
		for i := range a {
			sameNumbers(t, a[i], bs[i])
		}
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			t.Fatalf("%v became %v", a, b)
		}
		if a == bn {
			return
		}
		// Only numbers integralNumbers rewrites differ: whole, at most 20
		// digits, written as an integer.
		if strings.ContainsAny(string(bn), ".eE") || len(strings.TrimPrefix(string(bn), "-")) > maxIntegerDigits {
			t.Fatalf("%s became %s, not an integer literal", a, bn)
		}
		if strings.HasPrefix(string(a), "-") != strings.HasPrefix(string(bn), "-") {
			t.Fatalf("%s became %s: the sign changed", a, bn)
		}
		ra, oka := new(big.Rat).SetString(string(a))
		rb, okb := new(big.Rat).SetString(string(bn))
		if !oka || !okb || ra.Cmp(rb) != 0 {
			t.Fatalf("%s became %s, another value", a, bn)
		}
	default:
		if a != b {
			t.Fatalf("%v became %v", a, b)
		}
	}
}

// sameFloats compares two documents decoded into float64s, bit for bit
// (so -0 stays -0).
func sameFloats(t *testing.T, a, b any) {
	t.Helper()
	switch a := a.(type) {
	case map[string]any:
		for k, v := range a {
			sameFloats(t, v, b.(map[string]any)[k])
		}
	case []any:
		for i := range a {
			sameFloats(t, a[i], b.([]any)[i])
		}
	case float64:
		if math.Float64bits(a) != math.Float64bits(b.(float64)) {
			t.Fatalf("float %v became %v", a, b)
		}
	}
}

func TestIntegralNumbersBeyondAnyInteger(t *testing.T) {
	// The decimal of a huge exponent is never written out.
	in := []byte(`[1e99999999, 1.0e999999999999999]`)
	if out := integralNumbers(in); !bytes.Equal(out, in) {
		t.Fatalf("%s became %s", in, out)
	}
}

func TestPointerAt(t *testing.T) {
	type target struct {
		A []struct {
			N int `json:"n"`
		} `json:"a"`
		B  map[string]int8 `json:"b/c"`
		S  string          `json:"s"`
		L  []int           `json:"l"`
		O  struct{}        `json:"o"`
		F  float64         `json:"f"`
		Fr any             `json:"fr"`
	}
	cases := []struct{ body, ptr string }{
		{`{"a": [{"n": 1}, {"n": 2.5}]}`, "/a/1/n"},
		{`{"a":[{"n":1},{"n":"x"}]}`, "/a/1/n"},
		{`{"b/c": {"x~y": 300}}`, "/b~1c/x~0y"},
		{`{"s": [1, 2]}`, "/s"},
		{`{"s": {"k": 1}}`, "/s"},
		{`{"l": [1, 2, 3.5, 4]}`, "/l/2"},
		{`{"l": [1 , 2 , true , 4]}`, "/l/2"},
		{`{"o": [[1]]}`, "/o"},
		{`{"f": "1"}`, "/f"},
		{`{"fr": [0, 1e400, 2]}`, "/fr/1"},
		{`{"fr": {"x": 1e400}}`, "/fr/x"},
		{`[1]`, ""},
	}
	for _, c := range cases {
		var v target
		err := json.Unmarshal([]byte(c.body), &v)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v, want a type error", c.body, err)
		}
		if got, ok := pointerAt([]byte(c.body), te.Offset); !ok || got != c.ptr {
			t.Errorf("%s: pointerAt = %q, %v, want %q", c.body, got, ok, c.ptr)
		}
	}
}

type numbersBody struct {
	Count  int              `json:"count,omitempty" minimum:"1" maximum:"1000"`
	Big    int64            `json:"big,omitempty"`
	Small  *int8            `json:"small,omitempty"`
	Unsign uint16           `json:"unsign,omitempty"`
	IDs    []int            `json:"ids,omitempty"`
	Items  []numbersItem    `json:"items,omitempty"`
	Free   map[string]any   `json:"free,omitempty"`
	Ints   map[string]int64 `json:"ints,omitempty"`
	Ratio  float64          `json:"ratio,omitempty"`
}

type numbersItem struct {
	N     *int64 `json:"n,omitempty"`
	Retry struct {
		Max int `json:"max"`
	} `json:"retry,omitempty"`
}

// newNumbersServer is a server with one route whose body holds integers of
// every shape; it answers with what it decoded.
func newNumbersServer(t *testing.T) (*Server, string) {
	t.Helper()
	s, st := newProbeServer(t, store.SQLite)
	huma.Register(s.api, route(http.MethodPost, "/v1/numbers", "numbers", "Test", "numbers", anyKey),
		func(ctx context.Context, in *struct{ Body numbersBody }) (*Reply[numbersBody], error) {
			return reply("ok", in.Body), nil
		})
	return s, newKey(t, st, auth.PlanCustom, auth.PermAll)
}

// goTypeRE matches what Go's decoder says of its types and fields.
var goTypeRE = regexp.MustCompile(`Go (struct|value)|of type|\b(u?int(8|16|32|64)?|float(32|64))\b|interface \{\}|map\[|httpapi\.|numbersBody`)

func TestIntegralNumbersThroughTheAPI(t *testing.T) {
	s, key := newNumbersServer(t)
	post := func(body string) (int, []byte) {
		req := httptest.NewRequest(http.MethodPost, "/v1/numbers", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-api-key", key)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes()
	}

	code, raw := post(`{"count": 10.0, "big": 9.007199254740993e15, "small": -1.28e2, "unsign": 6.5535e4,
		"ids": [1.0, 2e0, 30E-1], "items": [{"n": 1e1, "retry": {"max": 3.0}}], "free": {"x": 1.0, "y": 2.5},
		"ints": {"k": 4.0}, "ratio": 1.0}`)
	if code != 200 {
		t.Fatalf("whole numbers written as floats: %d %s", code, raw)
	}
	var got Envelope[numbersBody]
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	d := got.Data
	if d.Count != 10 || d.Big != 9007199254740993 || d.Small == nil || *d.Small != -128 || d.Unsign != 65535 ||
		len(d.IDs) != 3 || d.IDs[2] != 3 || d.Items[0].N == nil || *d.Items[0].N != 10 || d.Items[0].Retry.Max != 3 ||
		d.Free["x"] != 1.0 || d.Free["y"] != 2.5 || d.Ints["k"] != 4 || d.Ratio != 1 {
		t.Fatalf("decoded %+v", d)
	}

	cases := []struct {
		body, field, message string
	}{
		{`{"count": 10.5}`, "body.count", "must be an integer"},
		{`{"count": "10"}`, "body.count", "must be an integer"},
		{`{"big": 9223372036854775808}`, "body.big", "must be an integer from -9223372036854775808 to 9223372036854775807"},
		{`{"big": 1e30}`, "body.big", "must be an integer from -9223372036854775808 to 9223372036854775807"},
		{`{"small": 128.0}`, "body.small", "must be an integer from -128 to 127"},
		{`{"unsign": 65536.0}`, "body.unsign", "must be an integer from 0 to 65535"},
		{`{"ids": [1, 2.5]}`, "body.ids[1]", "must be an integer"},
		{`{"ids": [1, 1e25]}`, "body.ids[1]", "must be an integer from -9223372036854775808 to 9223372036854775807"},
		{`{"items": [{}, {"n": 0.5}]}`, "body.items[1].n", "must be an integer"},
		{`{"items": [{"retry": {"max": 1e19}}]}`, "body.items[0].retry.max", "must be an integer from -9223372036854775808 to 9223372036854775807"},
		{`{"ints": {"a.b": 1.5}}`, "body.ints.a.b", "must be an integer"},
		{`{"ints": {"a.b": 1e25}}`, "body.ints.a.b", "must be an integer from -9223372036854775808 to 9223372036854775807"},
		{`{"free": {"x": 1e400}}`, "body.free.x", "must be a number between -1.7976931348623157e+308 and 1.7976931348623157e+308"},
		{`{"ratio": 1e400}`, "body.ratio", "must be a number between -1.7976931348623157e+308 and 1.7976931348623157e+308"},
	}
	for _, c := range cases {
		code, raw := post(c.body)
		var eb errorBody
		_ = json.Unmarshal(raw, &eb)
		if code != 400 || eb.Error.Code != CodeValidation || len(eb.Error.Details.Fields) != 1 ||
			eb.Error.Details.Fields[0].Field != c.field || eb.Error.Details.Fields[0].Message != c.message {
			t.Errorf("%s: %d %s, want one detail at %s: %s", c.body, code, raw, c.field, c.message)
		}
		if goTypeRE.Match(raw) {
			t.Errorf("%s: the answer names a Go type: %s", c.body, raw)
		}
	}
	// The pointer is exact where the field path cannot be.
	_, raw = post(`{"ints": {"a.b": 1e25}}`)
	if !bytes.Contains(raw, []byte(`"pointer":"/ints/a.b"`)) {
		t.Errorf("pointer of a member with a dot: %s", raw)
	}
}

package source

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDropNULEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`{"text": "plain"}`:                       `{"text": "plain"}`,
		`{"text": "a\u0000b\u0000"}`:              `{"text": "ab"}`,
		`{"text": "\\u0000 is how JSON says it"}`: `{"text": "\\u0000 is how JSON says it"}`,
		`{"text": "\\\u0000"}`:                    `{"text": "\\"}`,
		`{"te\u0000xt": ["\u0000", "\n\u0001"]}`:  `{"text": ["", "\n\u0001"]}`,
		`"\u00001"`:                               `"1"`,
	} {
		got := string(dropNULEscapes([]byte(in)))
		if got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: %s is not JSON", in, got)
		}
	}
}

// TestUpstreamBodyWithoutNUL: what a connector decodes from an upstream
// answer holds no NUL, whatever the upstream sent.
func TestUpstreamBodyWithoutNUL(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"data": [{"text": "hello\u0000 world"}]}`))
	}))
	defer s.Close()
	resp, err := NewRetrier("test", s.Client(), nil, nil).Do(context.Background(), func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Data []struct{ Text string } `json:"data"`
	}
	if err := json.Unmarshal(resp.Body, &out); err != nil || len(out.Data) != 1 || out.Data[0].Text != "hello world" {
		t.Fatalf("decoded %+v, %v", out, err)
	}
}

// FuzzDropNULEscapes: valid JSON stays valid, and holds no NUL once
// decoded.
func FuzzDropNULEscapes(f *testing.F) {
	for _, s := range []string{`{"a": "x\u0000"}`, `["\\u0000", "\\\u0000"]`, `"\u0000\u0000"`, `{"\u0000": 1}`, `"\\\\u0000"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		out := dropNULEscapes(in)
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%s became %s: %v", in, out, err)
		}
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				if strings.ContainsRune(v, 0) {
					t.Fatalf("%s became %s, still with NUL", in, out)
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			case map[string]any:
				for k, e := range v {
					walk(k)
					walk(e)
				}
			}
		}
		walk(v)
	})
}

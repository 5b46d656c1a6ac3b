package harvestapi

import (
	"encoding/json"
	"testing"
)

// TestStrReadsAsTheDecoderWould: the unescaped fast path gives what encoding/json gives.
func TestStrReadsAsTheDecoderWould(t *testing.T) {
	for _, raw := range []string{`"plain"`, `"héllo wörld"`, `"tab\tand \"quotes\""`, `"\u00e9"`, `""`, "\"bad \xff utf8\"", `12`, `null`} {
		var got struct{ S str }
		if err := json.Unmarshal([]byte(`{"S":`+raw+`}`), &got); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var want string
		if raw != "null" && raw != "12" {
			if err := json.Unmarshal([]byte(raw), &want); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
		} else if raw == "12" {
			want = "12"
		}
		if string(got.S) != want {
			t.Errorf("%s: str %q, encoding/json %q", raw, got.S, want)
		}
	}
}

package mapping

import (
	"strings"
	"testing"
)

func TestHits(t *testing.T) {
	for _, tc := range []struct {
		text     string
		keywords []string
		want     int
	}{
		{"RevOps is the new #revops. revops!", []string{"revops"}, 3},
		{"revopsy and prerevops do not count", []string{"revops"}, 0},
		{"Sales ops and sales-ops and SALES OPS", []string{"sales ops"}, 2},
		{"CRM, crm; and AI", []string{"crm", "ai"}, 3},
		{"#GTM motion", []string{"#gtm"}, 1},
		{"gtm motion", []string{"#gtm"}, 0},
		{"café crème", []string{"café"}, 1},
		{"", []string{"x"}, 0},
	} {
		if got := Hits(tc.text, tc.keywords); got != tc.want {
			t.Errorf("Hits(%q, %q) = %d, want %d", tc.text, tc.keywords, got, tc.want)
		}
	}
}

func TestParseRange(t *testing.T) {
	for in, want := range map[string][2]int64{"1000-5000": {1000, 5000}, "10000+": {10000, -1}, "1,000-2,000": {1000, 2000}, " 0-0 ": {0, 0}} {
		r, err := ParseRange(in)
		if err != nil || r.Min != want[0] || (want[1] < 0) != (r.Max == nil) || (r.Max != nil && *r.Max != want[1]) {
			t.Errorf("ParseRange(%q) = %+v, %v", in, r, err)
		}
	}
	for _, in := range []string{"", "abc", "5000-1000", "-5", "1000", "1000-", "+", "1e3+", "99999999999999999999+"} {
		if _, err := ParseRange(in); err == nil {
			t.Errorf("ParseRange(%q) accepted", in)
		}
	}
}

func TestCountryCode(t *testing.T) {
	for in, want := range map[string]string{"US": "US", "us": "US", "United States": "US", "germany": "DE", "UK": "GB", " France ": "FR"} {
		if got, ok := CountryCode(in); !ok || got != want {
			t.Errorf("CountryCode(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"Narnia", "", "XX", "USA!"} {
		if got, ok := CountryCode(in); ok {
			t.Errorf("CountryCode(%q) = %q", in, got)
		}
	}
}

func FuzzParsers(f *testing.F) {
	for _, s := range []string{"1000-5000", "10000+", "Germany", "#revops", "a-b-c"} {
		f.Add(s, "revops")
	}
	f.Fuzz(func(t *testing.T, s, kw string) {
		if r, err := ParseRange(s); err == nil && r.Max != nil && *r.Max < r.Min {
			t.Fatalf("ParseRange(%q) = %+v", s, r)
		}
		CountryCode(s)
		if Hits(s, []string{kw}) < 0 {
			t.Fatal("negative hits")
		}
	})
}

// A keyword is bounded by its characters (not bytes) and its words as
// Hits cuts them.
func TestKeywordProblem(t *testing.T) {
	for keyword, ok := range map[string]bool{
		"revops":                                      true,
		strings.Repeat("é", MaxKeywordLength):         true,
		strings.Repeat("é", MaxKeywordLength+1):       false,
		strings.Repeat("a ", MaxKeywordWords-1) + "a": true,
		strings.Repeat("a-", MaxKeywordWords) + "a":   false,
		strings.Repeat("#", MaxKeywordLength):         true,
	} {
		if got := KeywordProblem(keyword); (got == "") != ok {
			t.Errorf("KeywordProblem(%q) = %q, want ok %v", keyword, got, ok)
		}
	}
}

package mapping

import (
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// countries maps lower-case ISO 3166-1 alpha-2 codes and English country
// names to the upper-case code, built once from x/text's CLDR tables.
var countries = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	names := display.English.Regions()
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			r, err := language.ParseRegion(code)
			if err != nil || !r.IsCountry() || r.Canonicalize().String() != code {
				continue
			}
			m[strings.ToLower(code)] = code
			// The first code of a name wins: FR, not FX (Metropolitan France).
			if n := strings.ToLower(names.Name(r)); n != "" && m[n] == "" {
				m[n] = code
			}
		}
	}
	// Names people write that CLDR spells otherwise.
	for name, code := range map[string]string{"usa": "US", "united states of america": "US", "uk": "GB",
		"great britain": "GB", "england": "GB", "south korea": "KR", "russia": "RU", "czech republic": "CZ",
		"the netherlands": "NL", "holland": "NL", "uae": "AE", "vietnam": "VN", "ivory coast": "CI"} {
		m[name] = code
	}
	return m
})

// CountryCode reads an ISO 3166-1 alpha-2 code or an English country name,
// case-insensitively; ok is false when it is neither.
func CountryCode(s string) (string, bool) {
	code, ok := countries()[strings.ToLower(strings.TrimSpace(s))]
	return code, ok
}

// CountryName is the English name of an ISO 3166-1 alpha-2 code; the code
// itself when unknown.
func CountryName(code string) string {
	r, err := language.ParseRegion(code)
	if err != nil {
		return code
	}
	if n := display.English.Regions().Name(r); n != "" {
		return n
	}
	return code
}

package sandbox

import "testing"

func TestParseA1(t *testing.T) {
	for in, want := range map[string]a1Range{
		"'Sheet 1'!A1:C":  {Sheet: "Sheet 1", HasSheet: true, Col1: 1, Row1: 1, Col2: 3},
		"Sheet1!1:1":      {Sheet: "Sheet1", HasSheet: true, Row1: 1, Row2: 1},
		"Sheet1!B:B":      {Sheet: "Sheet1", HasSheet: true, Col1: 2, Col2: 2},
		"'It''s'!$A$7":    {Sheet: "It's", HasSheet: true, Col1: 1, Row1: 7, Col2: 1, Row2: 7},
		"'a!b'":           {Sheet: "a!b", HasSheet: true},
		"Leads":           {Sheet: "Leads", HasSheet: true},
		"B2:A1":           {Col1: 1, Row1: 1, Col2: 2, Row2: 2},
		"'Sheet 1'!AA10":  {Sheet: "Sheet 1", HasSheet: true, Col1: 27, Row1: 10, Col2: 27, Row2: 10},
		"Sheet1!A5:D5":    {Sheet: "Sheet1", HasSheet: true, Col1: 1, Row1: 5, Col2: 4, Row2: 5},
		"'Sheet 1'!A1:ZZ": {Sheet: "Sheet 1", HasSheet: true, Col1: 1, Row1: 1, Col2: 702},
	} {
		got, err := parseA1(in)
		if err != nil || got != want {
			t.Errorf("parseA1(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "'", "''", "'x'A1", "!A1", "Sheet1!", "Sheet1!A0", "Sheet1!A:1", "Sheet1!AAAA1", "S!1:A", "x!A1:B2:C3"} {
		if r, err := parseA1(in); err == nil {
			t.Errorf("parseA1(%q) = %+v, want an error", in, r)
		}
	}
}

func FuzzParseA1(f *testing.F) {
	for _, s := range []string{"'Sheet 1'!A1:C", "Sheet1!1:1", "A:A", "'It''s'!$B$2", "x!A1:B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseA1(s)
		if err != nil {
			return
		}
		if r.Col1 < 0 || r.Col1 > a1MaxCol || r.Col2 > a1MaxCol || r.Row1 < 0 || r.Row1 > a1MaxRow || r.Row2 > a1MaxRow ||
			r.Col2 != 0 && r.Col2 < r.Col1 || r.Row2 != 0 && r.Row2 < r.Row1 {
			t.Fatalf("parseA1(%q) = %+v", s, r)
		}
		if r.HasSheet && r.Sheet == "" {
			t.Fatalf("parseA1(%q) names an empty sheet", s)
		}
		// The range written back parses to the same bounds.
		if r.HasSheet && r.Col1 > 0 && r.Row1 > 0 && r.Col2 > 0 && r.Row2 > 0 {
			again, err := parseA1(quoteTitle(r.Sheet) + "!" + colLetters(r.Col1) + itoa(r.Row1) + ":" + colLetters(r.Col2) + itoa(r.Row2))
			if err != nil || again != r {
				t.Fatalf("parseA1(%q) = %+v, round trip %+v, %v", s, r, again, err)
			}
		}
	})
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

package sandbox

import (
	"errors"
	"strings"
)

// a1Range is a parsed A1 range of the Sheets API: 'Sheet 1'!A1:C, Sheet1!1:1,
// A:A, B2. Columns and rows are 1-based; 0 means open (a whole column's
// rows, a whole row's columns, or no end).
type a1Range struct {
	Sheet      string // "" when the range names no sheet (the first one)
	HasSheet   bool
	Col1, Row1 int
	Col2, Row2 int
}

// A1 bounds: the sandbox's grids are at most this big.
const (
	a1MaxCol = 18278 // ZZZ
	a1MaxRow = 10_000_000
)

var errA1 = errors.New("Unable to parse range")

// parseA1 reads an A1 range as the Sheets API takes it.
func parseA1(s string) (a1Range, error) {
	var r a1Range
	if s == "" || len(s) > 300 {
		return r, errA1
	}
	rest := s
	if strings.HasPrefix(s, "'") {
		// A quoted title: '' stands for one quote.
		var b strings.Builder
		i := 1
		for ; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(s[i])
		}
		if i >= len(s) || b.Len() == 0 {
			return r, errA1
		}
		r.Sheet, r.HasSheet = b.String(), true
		rest = s[i+1:]
		if rest == "" {
			return r, nil
		}
		if rest[0] != '!' {
			return r, errA1
		}
		rest = rest[1:]
	} else if i := strings.LastIndexByte(s, '!'); i >= 0 {
		r.Sheet, r.HasSheet = s[:i], true
		if r.Sheet == "" || strings.ContainsAny(r.Sheet, "'!") {
			return r, errA1
		}
		rest = s[i+1:]
	} else if _, err := parseCells(s); err != nil {
		// A bare word that is not a range is a sheet's title.
		if strings.ContainsAny(s, "'!:") {
			return r, errA1
		}
		r.Sheet, r.HasSheet = s, true
		return r, nil
	}
	cells, err := parseCells(rest)
	if err != nil {
		return r, err
	}
	r.Col1, r.Row1, r.Col2, r.Row2 = cells.Col1, cells.Row1, cells.Col2, cells.Row2
	return r, nil
}

// parseCells reads the cells part of a range: B2, A1:C, A:B, 1:3.
func parseCells(rest string) (a1Range, error) {
	var r a1Range
	if rest == "" {
		return r, errA1
	}
	a, b, two := strings.Cut(rest, ":")
	var err error
	if r.Col1, r.Row1, err = parseCell(a); err != nil {
		return r, err
	}
	if !two {
		if r.Col1 == 0 || r.Row1 == 0 {
			return r, errA1
		}
		r.Col2, r.Row2 = r.Col1, r.Row1
		return r, nil
	}
	if r.Col2, r.Row2, err = parseCell(b); err != nil {
		return r, err
	}
	// A1:C, A1:C9, A:C, A:C9 and 1:3 are ranges; A:1, 1:A, A1:3 are not.
	switch {
	case r.Col1 == 0 && (r.Col2 != 0 || r.Row2 == 0), // a row range ends on a row
		r.Col1 != 0 && r.Col2 == 0: // a column's range ends on a column
		return r, errA1
	}
	if r.Col2 != 0 && r.Col2 < r.Col1 {
		r.Col1, r.Col2 = r.Col2, r.Col1
	}
	if r.Row2 != 0 && r.Row2 < r.Row1 {
		r.Row1, r.Row2 = r.Row2, r.Row1
	}
	return r, nil
}

// parseCell reads "B12", "B", "12" or "$B$12": column and row (0 when absent).
func parseCell(s string) (col, row int, err error) {
	i := 0
	if i < len(s) && s[i] == '$' {
		i++
	}
	for ; i < len(s); i++ {
		c := s[i] | 0x20 // lower case
		if c < 'a' || c > 'z' {
			break
		}
		col = col*26 + int(c-'a'+1)
		if col > a1MaxCol {
			return 0, 0, errA1
		}
	}
	if i < len(s) && s[i] == '$' && col > 0 {
		i++
	}
	digits := 0
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, 0, errA1
		}
		row = row*10 + int(s[i]-'0')
		digits++
		if row > a1MaxRow {
			return 0, 0, errA1
		}
	}
	if col == 0 && digits == 0 || digits > 0 && row == 0 {
		return 0, 0, errA1
	}
	return col, row, nil
}

// colLetters is the A1 letters of a 1-based column.
func colLetters(c int) string {
	var b []byte
	for ; c > 0; c = (c - 1) / 26 {
		b = append([]byte{byte('A' + (c-1)%26)}, b...)
	}
	return string(b)
}

// quoteTitle is a sheet's title as an A1 range writes it.
func quoteTitle(t string) string { return "'" + strings.ReplaceAll(t, "'", "''") + "'" }

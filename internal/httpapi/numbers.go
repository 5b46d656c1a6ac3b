package httpapi

import (
	"encoding/json"
	"strings"
)

// maxIntegerDigits is the length of the longest integer any Go integer
// field holds (uint64's 18446744073709551615). A longer integral number is
// left as it was written: an integer field refuses it either way, a float
// reads it the same either way, and writing 1e999999 out in full would
// let a small body grow without bound.
const maxIntegerDigits = 20

// integralNumbers rewrites every number of a JSON document whose value is
// a whole number but which is written with a fraction or an exponent
// (10.0, 1e1, 1.0E+1, -0.0) as the integer literal of the same value
// (10, 10, 10, -0), so that Go's decoder puts it in an integer field as it
// would 10. It works on the digits, never through float64, so an integer
// beyond 2^53 keeps every digit. Fractional numbers (10.5), everything
// else of the document, and a document that is not valid JSON are left
// as they are; data itself is returned when nothing changes.
func integralNumbers(data []byte) []byte {
	var (
		out  []byte
		last int
	)
	for i := 0; i < len(data); {
		switch c := data[i]; {
		case c == '"':
			i = stringEnd(data, i)
		case c == '-' || isDigit(c):
			j := i + 1
			for j < len(data) && strings.IndexByte("0123456789.eE+-", data[j]) >= 0 {
				j++
			}
			if lit, ok := integerLiteral(data[i:j]); ok {
				out = append(append(out, data[last:i]...), lit...)
				last = j
			}
			i = j
		default:
			i++
		}
	}
	// The scan assumes valid JSON; what it would rewrite in anything else
	// is left for the decoder to refuse as it was sent.
	if out == nil || !json.Valid(data) {
		return data
	}
	return append(out, data[last:]...)
}

// stringEnd is the index after the string that starts at data[i] (a
// quote), or len(data) when it is not closed.
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// integerLiteral returns the integer literal of a JSON number written
// with a fraction or an exponent whose value is whole and at most
// maxIntegerDigits long; ok is false for anything else (an integer
// literal already, a fractional value, a longer one, or text that is not
// a JSON number).
func integerLiteral(num []byte) (lit []byte, ok bool) {
	d, ok := parseDecimal(string(num))
	if !ok || !d.marked || !d.whole() {
		return nil, false
	}
	sign := ""
	if d.neg {
		sign = "-"
	}
	if d.digits == "" {
		return []byte(sign + "0"), true
	}
	if int64(len(d.digits))+d.exp > maxIntegerDigits {
		return nil, false
	}
	return []byte(sign + d.digits + strings.Repeat("0", int(d.exp))), true
}

// decimal is the value of a JSON number: digits × 10^exp, with the sign.
type decimal struct {
	neg bool
	// digits are the significant digits, without leading or trailing
	// zeros: "" is zero.
	digits string
	exp    int64
	// marked says the number was written with a fraction or an exponent.
	marked bool
}

// whole says whether the value is an integer.
func (d decimal) whole() bool { return d.digits == "" || d.exp >= 0 }

// hugeExponent stands for an exponent of more than 15 digits, more than
// any document's length: what matters of it is its sign.
const hugeExponent = 1 << 50

// parseDecimal reads a JSON number exactly; ok is false when num is not
// one.
func parseDecimal(num string) (d decimal, ok bool) {
	s := num
	d.neg = strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intEnd := digitsEnd(s, 0)
	if intEnd == 0 || (s[0] == '0' && intEnd > 1) {
		return decimal{}, false
	}
	mant, rest := s[:intEnd], s[intEnd:]
	fracLen := 0
	if strings.HasPrefix(rest, ".") {
		end := digitsEnd(rest, 1)
		if end == 1 {
			return decimal{}, false
		}
		mant, fracLen, rest, d.marked = mant+rest[1:end], end-1, rest[end:], true
	}
	if rest != "" {
		if rest[0] != 'e' && rest[0] != 'E' {
			return decimal{}, false
		}
		rest = rest[1:]
		expNeg := strings.HasPrefix(rest, "-")
		if expNeg || strings.HasPrefix(rest, "+") {
			rest = rest[1:]
		}
		if rest == "" || digitsEnd(rest, 0) != len(rest) {
			return decimal{}, false
		}
		d.marked = true
		if digits := strings.TrimLeft(rest, "0"); len(digits) > 15 {
			d.exp = hugeExponent
		} else {
			for _, c := range digits {
				d.exp = d.exp*10 + int64(c-'0')
			}
		}
		if expNeg {
			d.exp = -d.exp
		}
	}
	mant = strings.TrimLeft(mant, "0")
	d.digits = strings.TrimRight(mant, "0")
	d.exp += int64(len(mant)-len(d.digits)) - int64(fracLen)
	if d.digits == "" {
		d.exp = 0
	}
	return d, true
}

// digitsEnd is the index of the first byte at or after i of s that is not
// a digit.
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

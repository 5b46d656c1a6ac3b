// Package mapping answers social mapping ("who engaged with posts about X,
// and which of them work where I sell?") and creator discovery ("who posts
// about X?") over the posts, people and engagements that topics collect.
package mapping

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Range is a follower-count range: Min and up to Max (nil: no upper bound).
type Range struct {
	Min int64
	Max *int64
}

// ParseRange reads "MIN-MAX" or "MIN+" (digits, optional thousands commas).
func ParseRange(s string) (Range, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutSuffix(s, "+"); ok {
		n, err := count(rest)
		if err != nil {
			return Range{}, err
		}
		return Range{Min: n}, nil
	}
	lo, hi, ok := strings.Cut(s, "-")
	if !ok {
		return Range{}, errors.New(`must be MIN-MAX or MIN+, e.g. "1000-5000" or "10000+"`)
	}
	a, err := count(lo)
	if err != nil {
		return Range{}, err
	}
	b, err := count(hi)
	if err != nil {
		return Range{}, err
	}
	if b < a {
		return Range{}, fmt.Errorf("the maximum %d is below the minimum %d", b, a)
	}
	return Range{Min: a, Max: &b}, nil
}

func count(s string) (int64, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	if s == "" {
		return 0, errors.New(`must be MIN-MAX or MIN+, e.g. "1000-5000" or "10000+"`)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a whole number of followers", s)
	}
	return n, nil
}

// Contains reports whether n is in the range.
func (r Range) Contains(n int64) bool {
	return n >= r.Min && (r.Max == nil || n <= *r.Max)
}

// Hits counts how often the keywords occur in text, case-insensitively, as
// whole words or whole phrases; a hashtag counts as its word ("#revops"
// matches "revops"), and a keyword that is itself a hashtag matches only
// the hashtag.
func Hits(text string, keywords []string) int {
	lt := strings.ToLower(text)
	n := 0
	for _, k := range keywords {
		n += occurrences(lt, strings.ToLower(strings.TrimSpace(k)))
	}
	return n
}

func occurrences(s, term string) int {
	if term == "" {
		return 0
	}
	n := 0
	for i := 0; i <= len(s)-len(term); {
		j := strings.Index(s[i:], term)
		if j < 0 {
			break
		}
		a, b := i+j, i+j+len(term)
		if boundaryBefore(s, a) && boundaryAfter(s, b) {
			n++
			i = b
			continue
		}
		i = a + 1
	}
	return n
}

// boundaryBefore: the match starts the text or follows a non-word rune
// ('#' included, so hashtags count as words).
func boundaryBefore(s string, a int) bool {
	if a == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:a])
	return !isWord(r)
}

func boundaryAfter(s string, b int) bool {
	if b == len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[b:])
	return !isWord(r)
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

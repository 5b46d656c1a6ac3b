// Package mapping answers social mapping ("who engaged with posts about X,
// and which of them work where I sell?") and creator discovery ("who posts
// about X?") over the posts, people and engagements that topics collect.
//
// It holds the queries, filters and keyword rules (this file, index.go,
// postings.go) and the Engine that answers them (engine.go and the files
// it names), which reads the pool through the Pool it declares (pool.go);
// the store implements Pool in SQL on both database engines.
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
// the hashtag. A keyword without a letter, digit or '_' ("#", "--")
// matches nothing: the full-text indexes hold words.
func Hits(text string, keywords []string) int {
	lt := strings.ToLower(text)
	n := 0
	for _, k := range keywords {
		if k := strings.ToLower(strings.TrimSpace(k)); HasWord(k) {
			n += occurrences(lt, k)
		}
	}
	return n
}

// Words are the words of text as Hits cuts them, lower-cased. A text
// mentions a keyword only when it has each of the keyword's words: an
// occurrence starts and ends at word boundaries, and whatever else the
// keyword holds is not a word character.
func Words(text string) []string {
	lt := strings.ToLower(text)
	spans := words(lt)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = lt[sp.a:sp.b]
	}
	return out
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

// Filters narrow the people a query returns; every list is OR'ed within
// itself, the lists are AND'ed, and an _excludes list removes matches.
type Filters struct {
	JobTitles          []string // case-insensitive substrings of the current title
	JobTitlesExcludes  []string
	DomainIncludes     []string // a domain matches itself and its subdomains
	DomainExcludes     []string
	CompanySizes       []string // the spec's buckets
	CompanySizesExcl   []string
	Industries         []string // case-insensitive, whole value
	IndustriesExcludes []string
	Countries          []string // ISO 3166-1 alpha-2, upper case
	CountriesExcludes  []string
	Followers          []Range
}

// Query is a social mapping or creator query.
type Query struct {
	Keywords []string
	Days     int
	// Strength is how many keyword hits a post needs; 0 also admits posts a
	// topic linked for one of the keywords.
	Strength int
	Filters  Filters
	Page     int
	PageSize int
}

// Bounds of what a query asks: what a process keeps of a query's keywords
// (the posts each matched) and the work of matching them grow with their
// number, length and words, and a body of a megabyte could otherwise ask
// about ten keywords of 50,000 characters each.
const (
	// MaxKeywords is how many keywords one query holds, as a saved
	// search's keywords.
	MaxKeywords = 10
	// MaxKeywordLength is the most characters of a keyword, as a pronet
	// keyword search's (the searches that collect the pool).
	MaxKeywordLength = 100
	// MaxKeywordWords is the most words of a keyword (as Hits cuts them):
	// a phrase is matched by its words' positions, each word's list read.
	MaxKeywordWords = 10
)

// KeywordProblem says why a query may not ask about keyword (trimmed, not
// empty), or "" when it may.
func KeywordProblem(keyword string) string {
	if n := utf8.RuneCountInString(keyword); n > MaxKeywordLength {
		return fmt.Sprintf("has %d characters; at most %d are allowed", n, MaxKeywordLength)
	}
	if n := len(Words(keyword)); n > MaxKeywordWords {
		return fmt.Sprintf("has %d words; at most %d are allowed", n, MaxKeywordWords)
	}
	return ""
}

// MinHits is the number of keyword occurrences a post needs.
func (q Query) MinHits() int { return max(1, q.Strength) }

// Person is who a result is about.
type Person struct {
	URN           string
	FirstName     string
	LastName      string
	FullName      string
	PronetURL     string
	Avatar        string
	Location      string // as shown: the country's English name
	Country       string // ISO 3166-1 alpha-2
	Company       string
	CompanyDomain string
	CompanySize   string
	CompanyLogo   string
	Industry      string
	JobTitle      string
	Followers     *int64
}

// Match reports whether the person passes the filters.
func (f Filters) Match(p Person) bool {
	title, industry := strings.ToLower(p.JobTitle), strings.ToLower(p.Industry)
	switch {
	case len(f.JobTitles) > 0 && !anyContains(title, f.JobTitles),
		anyContains(title, f.JobTitlesExcludes),
		len(f.DomainIncludes) > 0 && !anyDomain(p.CompanyDomain, f.DomainIncludes),
		anyDomain(p.CompanyDomain, f.DomainExcludes),
		len(f.CompanySizes) > 0 && !anyEqual(p.CompanySize, f.CompanySizes),
		anyEqual(p.CompanySize, f.CompanySizesExcl),
		len(f.Industries) > 0 && !anyEqual(industry, f.Industries),
		anyEqual(industry, f.IndustriesExcludes),
		len(f.Countries) > 0 && !anyEqual(p.Country, f.Countries),
		anyEqual(p.Country, f.CountriesExcludes):
		return false
	}
	if len(f.Followers) == 0 {
		return true
	}
	if p.Followers == nil {
		return false
	}
	for _, r := range f.Followers {
		if r.Contains(*p.Followers) {
			return true
		}
	}
	return false
}

func anyContains(s string, subs []string) bool {
	for _, sub := range subs {
		if s != "" && strings.Contains(s, strings.ToLower(sub)) {
			return true
		}
	}
	return false
}

func anyEqual(s string, vals []string) bool {
	for _, v := range vals {
		if s != "" && strings.EqualFold(s, v) {
			return true
		}
	}
	return false
}

func anyDomain(d string, domains []string) bool {
	d = strings.ToLower(d)
	for _, want := range domains {
		w := DomainValue(want)
		if d != "" && (d == w || strings.HasSuffix(d, "."+w)) {
			return true
		}
	}
	return false
}

// Empty reports whether the filters let everyone through.
func (f Filters) Empty() bool {
	return len(f.JobTitles) == 0 && len(f.JobTitlesExcludes) == 0 && len(f.DomainIncludes) == 0 &&
		len(f.DomainExcludes) == 0 && len(f.CompanySizes) == 0 && len(f.CompanySizesExcl) == 0 &&
		len(f.Industries) == 0 && len(f.IndustriesExcludes) == 0 && len(f.Countries) == 0 &&
		len(f.CountriesExcludes) == 0 && len(f.Followers) == 0
}

// DomainValue is how a company_domain filter value is compared: trimmed,
// without "www.", in lower case.
func DomainValue(want string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(want), "www."))
}

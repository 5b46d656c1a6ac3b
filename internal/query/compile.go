package query

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Compile builds the X query string for s. Clauses come in a fixed order (OR keywords, AND
// keywords, exclusions, user and other standalone operators, then lang:, is:, has:), keeping the
// order of list items and dropping blank and repeated ones, so the same body always gives the
// same string. It returns ErrNoStandalone when nothing standalone is left, and *LengthError when
// the query is longer than maxLen characters (maxLen <= 0: no limit).
func Compile(s Spec, maxLen int) (Compiled, error) {
	sortOrder, typeFilter, err := searchType(s.SearchType)
	if err != nil {
		return Compiled{}, err
	}
	mediaFilter, err := mediaOperator(s.HasMedia)
	if err != nil {
		return Compiled{}, err
	}

	var parts []string
	standalone := false
	if kw := uniqueFormatted(s.Keywords, formatKeyword); len(kw) > 0 {
		parts = append(parts, orGroup(kw))
		standalone = true
	}
	if kw := uniqueFormatted(s.KeywordsAnd, formatKeyword); len(kw) > 0 {
		parts = append(parts, kw...)
		standalone = true
	}
	for _, k := range uniqueFormatted(s.KeywordsNot, formatKeyword) {
		parts = append(parts, "-"+k)
	}
	if users := uniqueFormatted(trimUsers(s.FromUsers), fromOperator); len(users) > 0 {
		parts = append(parts, orGroup(users))
		standalone = true
	}
	for _, op := range []struct{ name, value string }{
		{"to", trimUser(s.ToUser)},
		{"url", strings.TrimSpace(s.URLContains)},
		{"retweets_of", trimUser(s.RetweetsOf)},
		{"conversation_id", strings.TrimSpace(s.ConversationID)},
		{"list", strings.TrimSpace(s.ListID)},
		{"context", strings.TrimSpace(s.ContextAnnotation)},
		{"place_country", strings.TrimSpace(s.PlaceCountry)},
	} {
		if op.value != "" {
			parts = append(parts, formatOperator(op.name, op.value))
			standalone = true
		}
	}
	if lang := strings.TrimSpace(s.Language); lang != "" {
		parts = append(parts, formatOperator("lang", lang))
	}
	if s.VerifiedOnly {
		parts = append(parts, "is:verified")
	}
	if s.HasLinks {
		parts = append(parts, "has:links")
	}
	if mediaFilter != "" {
		parts = append(parts, mediaFilter)
	}
	if typeFilter != "" && typeFilter != mediaFilter {
		parts = append(parts, typeFilter)
	}
	if s.ExcludeRetweets {
		parts = append(parts, "-is:retweet")
	}
	if s.ExcludeReplies {
		parts = append(parts, "-is:reply")
	}
	if !standalone {
		return Compiled{}, fmt.Errorf("query: compile: %w", ErrNoStandalone)
	}
	q := strings.Join(parts, " ")
	if n := utf8.RuneCountInString(q); maxLen > 0 && n > maxLen {
		return Compiled{}, &LengthError{Limit: maxLen, Length: n}
	}
	return Compiled{Query: q, SortOrder: sortOrder}, nil
}

// searchType maps search_type to X's sort_order and the media filter the type implies.
func searchType(t string) (sortOrder, filter string, err error) {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "", "latest":
		return SortRecency, "", nil
	case "top":
		return SortRelevancy, "", nil
	case "videos":
		return SortRecency, "has:videos", nil
	case "photos":
		return SortRecency, "has:images", nil
	}
	return "", "", fmt.Errorf("query: compile: unknown search type %q", t)
}

func mediaOperator(m string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(m)) {
	case "":
		return "", nil
	case "any":
		return "has:media", nil
	case "images":
		return "has:images", nil
	case "video", "videos":
		return "has:videos", nil
	}
	return "", fmt.Errorf("query: compile: unknown has_media %q", m)
}

// uniqueFormatted formats each non-blank item and drops repeats (X ignores case, so do we).
func uniqueFormatted(items []string, format func(string) string) []string {
	var out []string
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		f := format(it)
		dup := false
		for _, o := range out {
			if strings.EqualFold(o, f) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}

func orGroup(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return "(" + strings.Join(items, " OR ") + ")"
}

// formatKeyword writes a keyword as X needs it: #tag, @user and $CASH as they are, a plain word
// bare, anything with spaces, punctuation or symbols as a quoted phrase.
func formatKeyword(k string) string {
	if isEntity(k) || isPlainWord(k) {
		return k
	}
	var b strings.Builder
	writeQuoted(&b, k)
	return b.String()
}

func isEntity(k string) bool {
	if len(k) < 2 || (k[0] != '#' && k[0] != '@' && k[0] != '$') {
		return false
	}
	rest := k[1:]
	if k[0] == '$' && !startsWithLetter(rest) {
		return false
	}
	for _, r := range rest {
		if !entityChar(r) {
			return false
		}
	}
	return true
}

// isPlainWord reports whether k is one X token that is safe unquoted ("OR" is the operator).
func isPlainWord(k string) bool {
	if k == "" || k == "OR" {
		return false
	}
	for _, r := range k {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.Is(unicode.Mn, r)) {
			return false
		}
	}
	return true
}

func trimUsers(users []string) []string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = trimUser(u)
	}
	return out
}

func fromOperator(u string) string { return formatOperator("from", u) }

func trimUser(u string) string { return strings.TrimPrefix(strings.TrimSpace(u), "@") }

func formatOperator(name, value string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte(':')
	writeOperatorValue(&b, value)
	return b.String()
}

package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns the canonical X query string of e; Parse(e.String()) gives an equal tree.
// Canonical form: single spaces, upper-case OR, lower-case operator names, an OR group inside an
// AND and an AND group inside an OR in parentheses, operator values quoted only when they hold
// characters other than letters, digits, '_', '.' and '-'.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	if e == nil {
		return
	}
	switch e.Kind {
	case KindAnd:
		for i, c := range e.Children {
			if i > 0 {
				b.WriteByte(' ')
			}
			c.writeGrouped(b, c.Kind == KindOr)
		}
	case KindOr:
		for i, c := range e.Children {
			if i > 0 {
				b.WriteString(" OR ")
			}
			c.writeGrouped(b, c.Kind == KindAnd)
		}
	case KindNot:
		b.WriteByte('-')
		if len(e.Children) > 0 {
			c := e.Children[0]
			c.writeGrouped(b, c.Kind == KindAnd || c.Kind == KindOr || c.Kind == KindNot)
		}
	case KindTerm:
		if isBareTerm(e.Value) {
			b.WriteString(e.Value)
		} else {
			// Only hand-built trees get here; a phrase is the nearest X can express.
			writeQuoted(b, e.Value)
		}
	case KindPhrase:
		writeQuoted(b, e.Value)
	case KindHashtag:
		b.WriteByte('#')
		b.WriteString(e.Value)
	case KindMention:
		b.WriteByte('@')
		b.WriteString(e.Value)
	case KindCashtag:
		b.WriteByte('$')
		b.WriteString(e.Value)
	case KindOperator:
		b.WriteString(e.Op)
		b.WriteByte(':')
		writeOperatorValue(b, e.Value)
	}
}

func (e *Expr) writeGrouped(b *strings.Builder, group bool) {
	if !group {
		e.write(b)
		return
	}
	b.WriteByte('(')
	e.write(b)
	b.WriteByte(')')
}

// writeQuoted writes s as a double-quoted phrase, escaping '"' and '\'.
func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	seg := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteString(s[seg:i])
			b.WriteByte('\\')
			seg = i
		}
	}
	b.WriteString(s[seg:])
	b.WriteByte('"')
}

func writeOperatorValue(b *strings.Builder, v string) {
	if isBareValue(v) {
		b.WriteString(v)
		return
	}
	writeQuoted(b, v)
}

// isBareValue reports whether an operator value can be written without quotes. X asks for quotes
// around values with punctuation (url:"https://…"), so only plain values stay bare.
func isBareValue(v string) bool {
	if v == "" {
		return false
	}
	for _, r := range v {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '-') || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// isBareTerm reports whether s reads back as the keyword s when written unquoted.
func isBareTerm(s string) bool {
	if s == "" || s == "OR" || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || r == '(' || r == ')' || r == '"' {
			return false
		}
	}
	k, _, _ := classifyWord(s)
	return k == KindTerm
}

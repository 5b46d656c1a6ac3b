package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind int

const (
	tokEOF tokKind = iota
	tokLParen
	tokRParen
	tokNeg
	tokOr
	tokWord
	tokPhrase
)

type token struct {
	kind       tokKind
	start, end int    // byte offsets in the query
	text       string // word text, or phrase text with escapes resolved
}

// lexer splits an X query into tokens. A '-' is negation only at the start of a token; inside a
// word (coca-cola) it is part of the word.
type lexer struct {
	src string
	pos int
}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		r, n := utf8.DecodeRuneInString(l.src[l.pos:])
		if !unicode.IsSpace(r) {
			break
		}
		l.pos += n
	}
	start := l.pos
	if start >= len(l.src) {
		return token{kind: tokEOF, start: start, end: start}, nil
	}
	switch l.src[start] {
	case '(':
		l.pos++
		return token{kind: tokLParen, start: start, end: l.pos}, nil
	case ')':
		l.pos++
		return token{kind: tokRParen, start: start, end: l.pos}, nil
	case '"':
		return l.phrase()
	case '-':
		l.pos++
		if l.pos >= len(l.src) {
			return token{}, &SyntaxError{Pos: start, Msg: "'-' must be directly followed by a term"}
		}
		r, _ := utf8.DecodeRuneInString(l.src[l.pos:])
		switch {
		case unicode.IsSpace(r) || r == ')':
			return token{}, &SyntaxError{Pos: start, Msg: "'-' must be directly followed by a term"}
		case r == '-':
			return token{}, &SyntaxError{Pos: start, Msg: "double negation"}
		}
		return token{kind: tokNeg, start: start, end: l.pos}, nil
	}
	for l.pos < len(l.src) {
		r, n := utf8.DecodeRuneInString(l.src[l.pos:])
		if unicode.IsSpace(r) || r == '(' || r == ')' || r == '"' {
			break
		}
		l.pos += n
	}
	w := l.src[start:l.pos]
	if w == "OR" {
		return token{kind: tokOr, start: start, end: l.pos}, nil
	}
	return token{kind: tokWord, start: start, end: l.pos, text: w}, nil
}

// phrase reads a double-quoted string; \" and \\ are escapes, any other backslash is literal.
func (l *lexer) phrase() (token, error) {
	start := l.pos
	l.pos++ // opening quote
	var b strings.Builder
	seg := l.pos
	for l.pos < len(l.src) {
		switch l.src[l.pos] {
		case '"':
			b.WriteString(l.src[seg:l.pos])
			l.pos++
			return token{kind: tokPhrase, start: start, end: l.pos, text: b.String()}, nil
		case '\\':
			if l.pos+1 < len(l.src) && (l.src[l.pos+1] == '"' || l.src[l.pos+1] == '\\') {
				b.WriteString(l.src[seg:l.pos])
				b.WriteByte(l.src[l.pos+1])
				l.pos += 2
				seg = l.pos
				continue
			}
		}
		l.pos++
	}
	return token{}, &SyntaxError{Pos: start, Msg: "unterminated quoted phrase"}
}

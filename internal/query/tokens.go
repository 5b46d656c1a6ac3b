package query

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// appendTokens appends the X tokens of s to dst in the form " tok1 tok2 … " so that a token
// sequence is found with one bytes.Contains on token boundaries. Like X, it splits on
// punctuation, symbols and separators, treats each emoji (or other symbol) as a token of its
// own, ignores case and drops diacritics (Diacrítica matches Diacritica).
func appendTokens(dst []byte, s string) []byte {
	dst = append(dst, ' ')
	inTok := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_':
				dst = append(dst, c)
				inTok = true
			case c >= 'A' && c <= 'Z':
				dst = append(dst, c+('a'-'A'))
				inTok = true
			default:
				dst, inTok = endToken(dst, inTok)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r):
			// Diacritics, variation selectors and joiners belong to the rune before them.
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Nl, r):
			dst = appendFolded(dst, r)
			inTok = true
		case unicode.Is(unicode.So, r):
			dst, _ = endToken(dst, inTok)
			dst = utf8.AppendRune(dst, r)
			dst = append(dst, ' ')
			inTok = false
		default:
			dst, inTok = endToken(dst, inTok)
		}
	}
	dst, _ = endToken(dst, inTok)
	return dst
}

// appendFolded appends r in lower case without diacritics: the base of its canonical
// decomposition (é = e + U+0301 → e).
func appendFolded(dst []byte, r rune) []byte {
	var tmp [utf8.UTFMax]byte
	if d := norm.NFD.Properties(tmp[:utf8.EncodeRune(tmp[:], r)]).Decomposition(); len(d) > 0 {
		if base, _ := utf8.DecodeRune(d); !unicode.Is(unicode.Mn, base) {
			r = base
		}
	}
	return utf8.AppendRune(dst, unicode.ToLower(r))
}

func endToken(dst []byte, inTok bool) ([]byte, bool) {
	if inTok {
		dst = append(dst, ' ')
	}
	return dst, false
}

// entityChar reports whether r may continue a hashtag, mention or cashtag.
func entityChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.Is(unicode.Mn, r)
}

// extractEntities returns the words that follow sigil ('#', '@' or '$') at the start of a word
// in text: the entities X would recognise when the post carries none of its own.
func extractEntities(text string, sigil byte) []string {
	var out []string
	prevWord := false
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == rune(sigil) && !prevWord {
			j := i + n
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if !entityChar(r2) {
					break
				}
				j += n2
			}
			v := text[i+n : j]
			if v != "" && (sigil != '$' || startsWithLetter(v)) {
				out = append(out, v)
			}
			if j > i+n {
				i = j
				prevWord = true
				continue
			}
		}
		prevWord = entityChar(r)
		i += n
	}
	return out
}

func startsWithLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

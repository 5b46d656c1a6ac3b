package mapping

import (
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The keyword index: what a post's text says, in a form both engines' own
// full-text indexes (SQLite FTS5, PostgreSQL tsvector + GIN) store and
// match verbatim, computed once when the post is stored, so that a query
// finds the posts that mention its keywords, and how often, without
// reading any text. The text is cut exactly as Hits cuts it: lower-cased
// by strings.ToLower, words are maximal runs of letters, digits and '_'.
//
// Every lexeme is ASCII letters, digits and '_' (so neither engine folds,
// splits or stems it):
//
//	w<t>     the word t (once per occurrence, at its position)
//	h<t>     the word t as a hashtag: right after a '#' that starts the
//	         text or follows a character that is not a word character
//	<n>w<t>  (n = 2…MaxStrength) the word occurs at least n times
//	<n>h<t>  the hashtag occurs at least n times
//	p<t>_<u> the words t and u occur one space apart (t ≠ u): for SQLite,
//	         a two-word phrase is one lexeme to look up instead of two
//	         position lists to compare; PostgreSQL's tsvector leaves it out
//	         (TSVector says why) and compares positions
//	<n>p<t>_<u>  (n = 2…MaxStrength) that phrase occurs at least n times
//
// where <t> is the word itself when it is ASCII lower-case letters and
// digits, else "_" and the hex of its UTF-8 bytes. A word whose <t> would
// be longer than maxBody is the lexeme "w_" (no <t> is "_" alone) with no
// hashtag or count lexemes: both engines limit a lexeme's length, and a
// keyword with such a word is matched on the text. Words are numbered from
// 1 in text order; the number skips one when the characters between two
// words are not exactly one space, so that consecutive numbers mean "one
// space apart", which is how a phrase keyword is written.

// MaxStrength is the most keyword mentions a query may ask for; the index
// records counts up to it.
const MaxStrength = 5

// Lexeme is one word of a post at its position (from 1).
type Lexeme struct {
	Text string
	Pos  int
}

// PostTerms is what the keyword index holds for one post.
type PostTerms struct {
	// Words in text order, each with its position.
	Words []Lexeme
	// Others are the hashtag and count lexemes; they have no position.
	Others []string
}

func isWordByte(b byte) bool {
	return b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// maxBody is the longest lexeme body <t>: far below PostgreSQL's 2,047
// bytes a lexeme, and longer than any word a keyword is likely to hold.
const maxBody = 200

// longBody is the body of every word longer than maxBody.
const longBody = "_"

// encode makes a word (lower-cased, letters, digits and '_') a lexeme body.
func encode(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			if 1+2*len(w) > maxBody {
				return longBody
			}
			return "_" + hex.EncodeToString([]byte(w))
		}
	}
	if len(w) > maxBody {
		return longBody
	}
	return w
}

// span is a word of a lower-cased text: its bytes [a, b).
type span struct{ a, b int }

// words cuts lower-cased text into words, as occurrences decides word
// boundaries.
func words(lt string) []span {
	var out []span
	start := -1
	for i := 0; i < len(lt); {
		var r rune
		n := 1
		if c := lt[i]; c < utf8.RuneSelf {
			if isWordByte(c) {
				r = rune(c)
			} else {
				r = ' '
			}
		} else {
			r, n = utf8.DecodeRuneInString(lt[i:])
		}
		if isWord(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, span{start, i})
			start = -1
		}
		i += n
	}
	if start >= 0 {
		out = append(out, span{start, len(lt)})
	}
	return out
}

// IndexText is the keyword index of a post's text.
func IndexText(text string) PostTerms {
	lt := strings.ToLower(text)
	ws := words(lt)
	terms := PostTerms{Words: make([]Lexeme, 0, len(ws))}
	wordCount := make(map[string]int, len(ws))
	var tagCount, pairCount map[string]int
	var order []string // lexemes in first-seen order, for a stable output
	pos, prev := 0, ""
	for i, w := range ws {
		// One more position, two when the words are not one space apart.
		spaced := i > 0 && lt[ws[i-1].b:w.a] == " "
		switch {
		case i == 0:
			pos = 1
		case spaced:
			pos++
		default:
			pos += 2
		}
		body := encode(lt[w.a:w.b])
		lex := "w" + body
		terms.Words = append(terms.Words, Lexeme{Text: lex, Pos: pos})
		if body == longBody {
			prev = ""
			continue // stands for any long word: nothing to count
		}
		if pair := PairLexeme(prev, body); spaced && pair != "" {
			if pairCount == nil {
				pairCount = map[string]int{}
			}
			if pairCount[pair] == 0 {
				order = append(order, pair)
			}
			pairCount[pair]++
		}
		prev = body
		if wordCount[lex] == 0 {
			order = append(order, lex)
		}
		wordCount[lex]++
		if isTag(lt, w.a) {
			if tagCount == nil {
				tagCount = map[string]int{}
			}
			tag := "h" + body
			if tagCount[tag] == 0 {
				order = append(order, tag)
			}
			tagCount[tag]++
		}
	}
	for _, lex := range order {
		n := wordCount[lex]
		switch lex[0] {
		case 'h':
			n = tagCount[lex]
			terms.Others = append(terms.Others, lex)
		case 'p':
			n = pairCount[lex]
			terms.Others = append(terms.Others, lex)
		}
		for level := 2; level <= min(n, MaxStrength); level++ {
			terms.Others = append(terms.Others, LevelLexeme(lex, level))
		}
	}
	return terms
}

// isTag reports whether the word at a follows a '#' that starts the text
// or follows a non-word character: where a keyword "#word" matches.
func isTag(lt string, a int) bool {
	if a == 0 || lt[a-1] != '#' {
		return false
	}
	return boundaryBefore(lt, a-1)
}

// PairLexeme is the lexeme of two words one space apart (bodies a then b),
// counted like a word; "" when they are the same word, whose occurrences as
// a phrase may overlap ("ha ha ha" holds "ha ha" once, as Hits counts,
// and two pairs), or either is missing.
func PairLexeme(a, b string) string {
	if a == "" || b == "" || a == b {
		return ""
	}
	// Unambiguous: a body holds '_' only as its first byte.
	return "p" + a + "_" + b
}

// LevelLexeme is the lexeme saying that lex occurs at least level times.
func LevelLexeme(lex string, level int) string {
	if level <= 1 {
		return lex
	}
	return strconv.Itoa(level) + lex
}

// FTSText is the post's terms as SQLite FTS5 text: the words in order, a
// filler "_" where positions skip, then the other lexemes after a filler.
func (t PostTerms) FTSText() string {
	var sb strings.Builder
	for i, w := range t.Words {
		if i > 0 {
			if w.Pos > t.Words[i-1].Pos+1 {
				sb.WriteString(" _ ")
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(w.Text)
	}
	if len(t.Others) > 0 {
		if sb.Len() > 0 {
			sb.WriteString(" _ ")
		}
		sb.WriteString(strings.Join(t.Others, " "))
	}
	return sb.String()
}

// PostgreSQL's tsvector keeps positions up to 16383, at most 256 of them
// per lexeme, and under 1 MiB of lexemes.
const (
	tsMaxPos          = 16383
	tsMaxPosPerLexeme = 256
	tsMaxLexemeBytes  = 1<<20 - 1
)

// TSVector is the post's terms as a PostgreSQL tsvector literal (lexemes
// quoted, taken verbatim). ok is false when the text is too long for a
// tsvector to keep every position; the post is then matched on its text.
//
// It leaves out the two-word phrases (IsPhraseLexeme): nearly every pair
// of words in a text is a distinct lexeme, and on the reference pool they
// made the GIN index 4.3 times as large (1.8 GB) and its build 16 minutes,
// to spare the recheck of the few posts holding both words but not the
// phrase; the index scan and the heap visit per matching post, which cost
// more, stay.
func (t PostTerms) TSVector() (string, bool) {
	positions := map[string][]int{}
	var order []string
	size := 0
	for _, w := range t.Words {
		if w.Pos > tsMaxPos {
			return "", false
		}
		if positions[w.Text] == nil {
			order = append(order, w.Text)
			size += len(w.Text)
		}
		positions[w.Text] = append(positions[w.Text], w.Pos)
		if len(positions[w.Text]) > tsMaxPosPerLexeme {
			return "", false
		}
	}
	others := slices.DeleteFunc(slices.Clone(t.Others), IsPhraseLexeme)
	for _, lex := range others {
		size += len(lex)
	}
	if size > tsMaxLexemeBytes {
		return "", false
	}
	var sb strings.Builder
	for _, lex := range order {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString("'" + lex + "':")
		for i, p := range positions[lex] {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Itoa(p))
		}
	}
	for _, lex := range others {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString("'" + lex + "'")
	}
	return sb.String(), true
}

// IsPhraseLexeme reports whether lex says that a two-word phrase occurs
// (level 1 of a pair lexeme).
func IsPhraseLexeme(lex string) bool { return strings.HasPrefix(lex, "p") }

// KeywordKind says what the index knows of a keyword.
type KeywordKind int

const (
	// KeywordNone: the keyword has no word character; it matches nothing
	// (the API refuses such keywords).
	KeywordNone KeywordKind = iota
	// KeywordCounted: one word or one hashtag; the index holds how often
	// it occurs (up to MaxStrength), exactly.
	KeywordCounted
	// KeywordPhrase: words one space apart; the index says exactly
	// whether the post mentions it, and for two different words how often
	// (Pair).
	KeywordPhrase
	// KeywordLoose: any other keyword ("product-led", "c++", "#gtm
	// tools"); the index finds every post that may mention it, and the
	// text decides.
	KeywordLoose
)

// Keyword is a query keyword as the index sees it.
type Keyword struct {
	Kind KeywordKind
	// Lexemes to look for: the counted lexeme, or the phrase's words.
	Lexemes []string
	// Gaps[i] is how many positions the word i is after the word i-1
	// (Gaps[0] is 0): 1 for one space, 2 for anything else.
	Gaps []int
	// Pair, for a phrase of two different words, is the lexeme whose
	// levels (LevelLexeme, 1…MaxStrength) count its occurrences exactly;
	// PostgreSQL's tsvector holds levels 2 and up only.
	Pair string
}

// PlanKeyword is how the index finds posts that mention k, a keyword as
// the query gives it (Hits trims and lower-cases it the same way).
func PlanKeyword(k string) Keyword {
	kw := strings.ToLower(strings.TrimSpace(k))
	ws := words(kw)
	if len(ws) == 0 {
		return Keyword{Kind: KeywordNone}
	}
	out := Keyword{Kind: KeywordPhrase, Gaps: make([]int, len(ws))}
	lead, trail := kw[:ws[0].a], kw[ws[len(ws)-1].b:]
	for i, w := range ws {
		out.Lexemes = append(out.Lexemes, "w"+encode(kw[w.a:w.b]))
		if i > 0 {
			out.Gaps[i] = 1
			if kw[ws[i-1].b:w.a] != " " {
				out.Gaps[i] = 2
				out.Kind = KeywordLoose
			}
		}
	}
	switch {
	case slices.Contains(out.Lexemes, "w"+longBody):
		out.Kind = KeywordLoose // the index only knows where long words are
	case len(ws) == 1 && trail == "" && lead == "":
		out.Kind = KeywordCounted
	case len(ws) == 1 && trail == "" && lead == "#":
		out.Kind, out.Lexemes = KeywordCounted, []string{"h" + encode(kw[ws[0].a:ws[0].b])}
	case lead != "" || trail != "":
		out.Kind = KeywordLoose
	case out.Kind == KeywordPhrase && len(ws) == 2:
		out.Pair = PairLexeme(out.Lexemes[0][1:], out.Lexemes[1][1:])
	}
	return out
}

// HasWord reports whether the keyword has a letter, a digit or '_': one
// without matches nothing.
func HasWord(k string) bool {
	return strings.IndexFunc(k, isWord) >= 0
}

// FoldTitle is how a job title is compared: lower-cased (job_titles match
// case-insensitive substrings).
func FoldTitle(s string) string { return strings.ToLower(s) }

// FoldKey maps s so that FoldKey(a) == FoldKey(b) exactly when
// strings.EqualFold(a, b): each rune becomes the smallest rune of its
// Unicode simple case folding orbit.
func FoldKey(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		low := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			low = min(low, f)
		}
		sb.WriteRune(low)
	}
	return sb.String()
}

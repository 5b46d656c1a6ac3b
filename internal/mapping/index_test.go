package mapping

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// indexSays is what a query learns from the index of text about keyword k:
// for a counted keyword, how often it occurs (up to MaxStrength); for a
// phrase, 1 when it occurs; for a loose keyword, 1 when the post may
// mention it (a candidate).
func indexSays(t PostTerms, k Keyword) int {
	has := func(lex string) bool {
		return slices.Contains(t.Others, lex) || slices.ContainsFunc(t.Words, func(w Lexeme) bool { return w.Text == lex })
	}
	switch k.Kind {
	case KeywordCounted:
		n := 0
		for level := 1; level <= MaxStrength && has(LevelLexeme(k.Lexemes[0], level)); level++ {
			n = level
		}
		return n
	case KeywordPhrase, KeywordLoose:
		if k.Pair != "" {
			n := 0
			for level := 1; level <= MaxStrength && has(LevelLexeme(k.Pair, level)); level++ {
				n = level
			}
			return n
		}
		for i := range t.Words {
			if t.Words[i].Text != k.Lexemes[0] {
				continue
			}
			at, j := i, 1
			for ; j < len(k.Lexemes); j++ {
				next := slices.IndexFunc(t.Words[at+1:], func(w Lexeme) bool { return w.Pos >= t.Words[at].Pos+k.Gaps[j] })
				if next < 0 {
					break
				}
				at += 1 + next
				if t.Words[at].Pos != t.Words[i].Pos+sum(k.Gaps[:j+1]) || t.Words[at].Text != k.Lexemes[j] {
					break
				}
			}
			if j == len(k.Lexemes) {
				return 1
			}
		}
	}
	return 0
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// checkIndex compares what the index says with Hits, the definition.
func checkIndex(t *testing.T, text, keyword string) {
	t.Helper()
	terms := IndexText(text)
	k := PlanKeyword(keyword)
	hits := Hits(text, []string{keyword})
	says := indexSays(terms, k)
	switch k.Kind {
	case KeywordNone:
		if HasWord(strings.ToLower(strings.TrimSpace(keyword))) || hits != 0 {
			t.Fatalf("%q: no word, but HasWord or %d hits", keyword, hits)
		}
	case KeywordCounted:
		if says != min(hits, MaxStrength) {
			t.Fatalf("text %q, keyword %q: index counts %d, Hits %d", text, keyword, says, hits)
		}
	case KeywordPhrase:
		if k.Pair != "" && says != min(hits, MaxStrength) || (says > 0) != (hits > 0) {
			t.Fatalf("text %q, phrase %q: index says %d, Hits %d", text, keyword, says, hits)
		}
	case KeywordLoose:
		if hits > 0 && says == 0 {
			t.Fatalf("text %q, keyword %q: Hits %d but not a candidate", text, keyword, hits)
		}
	}
	checkPostings(t, text, terms, k)
	for _, lex := range append(slices.Collect(func(yield func(string) bool) {
		for _, w := range terms.Words {
			if !yield(w.Text) {
				return
			}
		}
	}), terms.Others...) {
		if lex == "" || strings.IndexFunc(lex, func(r rune) bool { return !(r == '_' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') }) >= 0 {
			t.Fatalf("text %q: lexeme %q is not [a-z0-9_]+", text, lex)
		}
		if len(lex) > maxBody+2 {
			t.Fatalf("text %q: lexeme %q is longer than %d bytes", text, lex, maxBody+2)
		}
	}
	fts := strings.Fields(terms.FTSText())
	if want := len(terms.Words) + len(terms.Others); len(fts) < want {
		t.Fatalf("FTS text %q has %d tokens, want at least %d", terms.FTSText(), len(fts), want)
	}
}

// Words longer than a lexeme may be: one of ASCII and one of 2-byte runes.
var (
	long        = strings.Repeat("ab", maxBody/2+1)
	longUnicode = strings.Repeat("é", maxBody/4+1)
)

func TestIndexCases(t *testing.T) {
	texts := []string{
		"RevOps is eating the world. #revops teams need pipeline hygiene.",
		"revops revops revops: our playbook",
		"revopsy unrevops rev-ops; pipeline and hygiene",
		"Pipeline hygiene for revenue teams; #RevOps",
		"a#revops ##revops #revops#revops # revops",
		"sales  ops, sales ops sales\nops sales-ops sales_ops",
		"sales ops sales ops. Sales Ops #sales ops sales ops sales ops sales ops ha ha ha ha ha",
		"İstanbul İSTANBUL i̇stanbul Straße STRASSE ǅemal ǆemal café CAFÉ",
		"product led growth, product-led growth, product - led growth",
		"c++ c++x .net .NET x.net #gtm tools #GTM",
		"\xff\xfe revops \xffrevops",
		"",
		"#",
		long + " " + long + " #" + long + " x " + strings.ToUpper(long) + "y " + longUnicode + " revops",
	}
	keywords := []string{"revops", "REVOPS", "#revops", "#RevOps", "pipeline hygiene", "sales ops", "sales_ops", "sales-ops",
		"revops revops", "ha ha", "ops sales", "istanbul", "i̇stanbul", "İstanbul", "straße", "ǅemal", "café", "product led growth", "product-led growth",
		"c++", ".net", "#gtm tools", "#gtm", "##revops", "#", "revops.", " revops ", "\ufffdrevops",
		long, "#" + long, long + " x", long + "y", long[1:], longUnicode, "x " + longUnicode + " revops"}
	for _, text := range texts {
		for _, k := range keywords {
			checkIndex(t, text, k)
		}
	}
}

// TestIndexRandom: random texts and keywords over an alphabet made of what
// decides word boundaries and case.
func TestIndexRandom(t *testing.T) {
	pieces := []string{"a", "b", "ab", "ba", "A", "B", " ", " ", "  ", "#", "-", "_", ".", "\n", "é", "É", "İ", "ǅ", "ß", "1", "😀", "\xff",
		long, longUnicode}
	r := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) string {
		var sb strings.Builder
		for range n {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		return sb.String()
	}
	for range 20000 {
		checkIndex(t, gen(r.IntN(30)), gen(1+r.IntN(5)))
	}
}

// A text that mentions a keyword has each of its words (Words): the
// keyword matches kept in memory skip the texts without them.
func TestWordsOfMentions(t *testing.T) {
	pieces := []string{"a", "b", "ab", "ba", "A", "B", " ", " ", "  ", "#", "-", "_", ".", "\n", "é", "É", "İ", "ǅ", "ß", "1", "😀", "\xff",
		long, longUnicode}
	r := rand.New(rand.NewPCG(3, 4))
	gen := func(n int) string {
		var sb strings.Builder
		for range n {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		return sb.String()
	}
	mentioned := 0
	for range 50000 {
		text, keyword := gen(r.IntN(30)), gen(1+r.IntN(5))
		if !utf8.ValidString(keyword) || Hits(text, []string{keyword}) == 0 {
			continue
		}
		mentioned++
		has := Words(text)
		for _, w := range Words(keyword) {
			if !slices.Contains(has, w) {
				t.Fatalf("%q mentions %q but has not its word %q (it has %q)", text, keyword, w, has)
			}
		}
	}
	if mentioned < 1000 {
		t.Fatalf("only %d texts mentioned their keyword", mentioned)
	}
}

func FuzzIndexText(f *testing.F) {
	f.Add("RevOps is eating the world. #revops teams", "#revops")
	f.Add("sales ops, sales  ops", "sales ops")
	f.Add("İstanbul ǅemal", "i̇stanbul")
	f.Fuzz(func(t *testing.T, text, keyword string) {
		if !utf8.ValidString(keyword) {
			return // keywords come from JSON
		}
		checkIndex(t, text, keyword)
	})
}

func TestTSVector(t *testing.T) {
	terms := IndexText("Sales ops, sales ops #Sales")
	got, ok := terms.TSVector()
	if want := "'wsales':1,4,7 'wops':2,5 '2wsales' '3wsales' '2psales_ops' '2wops' 'hsales'"; !ok || got != want {
		t.Fatalf("got %q, %v; want %q", got, ok, want)
	}
	if got := terms.FTSText(); got != "wsales wops _ wsales wops _ wsales _ 2wsales 3wsales psales_ops 2psales_ops 2wops hsales" {
		t.Fatalf("FTS text %q", got)
	}
	if _, ok := IndexText(strings.Repeat("x ", tsMaxPosPerLexeme+1)).TSVector(); ok {
		t.Fatal("a word 257 times fits a tsvector")
	}
}

func TestFoldKey(t *testing.T) {
	vals := []string{"", "a", "A", "k", "K", "\u212a", "s", "S", "ſ", "ß", "ẞ", "İ", "i", "ı", "I", "ǅ", "ǆ", "Ǆ", "Σ", "σ", "ς",
		"software development", "SOFTWARE DEVELOPMENT", "Ärzte", "ärzte", "\xff", "\ufffd"}
	for _, a := range vals {
		for _, b := range vals {
			if (FoldKey(a) == FoldKey(b)) != strings.EqualFold(a, b) {
				t.Errorf("FoldKey(%q) = %q, FoldKey(%q) = %q; EqualFold %v", a, FoldKey(a), b, FoldKey(b), strings.EqualFold(a, b))
			}
		}
	}
}

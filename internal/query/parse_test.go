package query

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func term(v string) *Expr           { return &Expr{Kind: KindTerm, Value: v} }
func phrase(v string) *Expr         { return &Expr{Kind: KindPhrase, Value: v} }
func and(c ...*Expr) *Expr          { return &Expr{Kind: KindAnd, Children: c} }
func or(c ...*Expr) *Expr           { return &Expr{Kind: KindOr, Children: c} }
func not(c *Expr) *Expr             { return &Expr{Kind: KindNot, Children: []*Expr{c}} }
func op(o, v string) *Expr          { return &Expr{Kind: KindOperator, Op: o, Value: v} }
func entity(k Kind, v string) *Expr { return &Expr{Kind: k, Value: v} }

func TestParse(t *testing.T) {
	tests := []struct {
		query     string
		want      *Expr
		canonical string
	}{
		{"cat", term("cat"), "cat"},
		{"snow day #NoSchool", and(term("snow"), term("day"), entity(KindHashtag, "NoSchool")), "snow day #NoSchool"},
		// X: AND is evaluated before OR.
		{"apple OR iphone ipad", or(term("apple"), and(term("iphone"), term("ipad"))), "apple OR (iphone ipad)"},
		{"ipad iphone OR android", or(and(term("ipad"), term("iphone")), term("android")), "(ipad iphone) OR android"},
		{"(apple OR iphone) ipad", and(or(term("apple"), term("iphone")), term("ipad")), "(apple OR iphone) ipad"},
		{"grumpy OR cat OR #meme", or(term("grumpy"), term("cat"), entity(KindHashtag, "meme")), "grumpy OR cat OR #meme"},
		{"a OR (b OR c)", or(term("a"), term("b"), term("c")), "a OR b OR c"},
		{"a (b c)", and(term("a"), term("b"), term("c")), "a b c"},
		{"((a))", term("a"), "a"},
		{"lower or is a keyword", and(term("lower"), term("or"), term("is"), term("a"), term("keyword")), "lower or is a keyword"},
		{`"X data" has:mentions (has:media OR has:links)`,
			and(phrase("X data"), op("has", "mentions"), or(op("has", "media"), op("has", "links"))),
			`"X data" has:mentions (has:media OR has:links)`},
		{`"say \"hi\"" x`, and(phrase(`say "hi"`), term("x")), `"say \"hi\"" x`},
		{`"back\slash"`, phrase(`back\slash`), `"back\\slash"`},
		{"cat #meme -grumpy", and(term("cat"), entity(KindHashtag, "meme"), not(term("grumpy"))), "cat #meme -grumpy"},
		{`x -"recent search"`, and(term("x"), not(phrase("recent search"))), `x -"recent search"`},
		{"skiing -(snow OR day)", and(term("skiing"), not(or(term("snow"), term("day")))), "skiing -(snow OR day)"},
		{"x -is:retweet -from:bot", and(term("x"), not(op("is", "retweet")), not(op("from", "bot"))), "x -is:retweet -from:bot"},
		{"coca-cola", term("coca-cola"), "coca-cola"},
		{"(@XDevelopers OR @API) -@X", and(or(entity(KindMention, "XDevelopers"), entity(KindMention, "API")), not(entity(KindMention, "X"))),
			"(@XDevelopers OR @API) -@X"},
		{"$twtr OR $5", or(entity(KindCashtag, "twtr"), term("$5")), "$twtr OR $5"},
		{`url:"https://developer.twitter.com" from:XDevelopers`,
			and(op("url", "https://developer.twitter.com"), op("from", "XDevelopers")),
			`url:"https://developer.twitter.com" from:XDevelopers`},
		{`url:"github.com"`, op("url", "github.com"), "url:github.com"},
		{"url:a/b", op("url", "a/b"), `url:"a/b"`},
		{"FROM:Bob x HAS:Links", and(op("from", "Bob"), term("x"), op("has", "links")), "from:Bob x has:links"},
		{"#x has:video_link", and(entity(KindHashtag, "x"), op("has", "videos")), "#x has:videos"},
		{"x -is:nullcast", and(term("x"), not(op("is", "nullcast"))), "x -is:nullcast"},
		{"context:65.852262932607926273 lang:ja list:123 place_country:GB conversation_id:1 retweets_of:a to:b",
			and(op("context", "65.852262932607926273"), op("lang", "ja"), op("list", "123"), op("place_country", "GB"),
				op("conversation_id", "1"), op("retweets_of", "a"), op("to", "b")),
			"context:65.852262932607926273 lang:ja list:123 place_country:GB conversation_id:1 retweets_of:a to:b"},
		{"10:30 meeting", and(term("10:30"), term("meeting")), "10:30 meeting"},
		{"😃 OR 😡", or(term("😃"), term("😡")), "😃 OR 😡"},
		{"  spaced\tout\n", and(term("spaced"), term("out")), "spaced out"},
		{`a"b"`, and(term("a"), phrase("b")), `a "b"`},
		{"-(-a) b", and(not(not(term("a"))), term("b")), "-(-a) b"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := Parse(tt.query)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse tree = %s, want %s", dump(got), dump(tt.want))
			}
			if !got.Equal(tt.want) {
				t.Errorf("Equal disagrees with DeepEqual")
			}
			if s := got.String(); s != tt.canonical {
				t.Errorf("String = %q, want %q", s, tt.canonical)
			}
			again, err := Parse(got.String())
			if err != nil || !again.Equal(got) {
				t.Errorf("Parse(String()) = %v, %v", again, err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		query string
		pos   int
		msg   string
	}{
		{"", 0, "empty query"},
		{"   ", 0, "empty query"},
		{"a OR", 2, "OR must stand"},
		{"OR a", 0, "OR must stand"},
		{"a OR OR b", 2, "OR must stand"},
		{"(a", 0, "missing ')'"},
		{"a)", 1, "unmatched ')'"},
		{"()", 0, "empty group"},
		{"a ()", 2, "empty group"},
		{`"open`, 0, "unterminated"},
		{`a ""`, 2, "empty quoted phrase"},
		{"a - b", 2, "'-' must be directly followed"},
		{"a -", 2, "'-' must be directly followed"},
		{"--a", 0, "double negation"},
		{"a -OR b", 3, "'-' must be directly followed"},
		{"a foo:bar", 2, "unknown operator foo:"},
		{"a http://x.com", 2, "unknown operator http:"},
		{"a is:cool", 2, "unknown operator is:cool"},
		{"a has:", 2, "needs a value"},
		{"a from:", 2, "needs a value"},
		{`a from:""`, 2, "needs a value"},
		{"a is:nullcast", 2, "must be negated"},
		{"list:1 list:2", 7, "only one list:"},
		// Conjunction-required operators and negations cannot stand alone.
		{"has:media", 0, "standalone"},
		{"has:links OR is:retweet", 0, "standalone"},
		{"cat OR has:links", 0, "standalone"},
		{"-from:x", 0, "standalone"},
		{"-cat lang:en", 0, "standalone"},
		{"a (b", 2, "missing ')'"},
		{strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300), 200, "nested too deeply"},
		{strings.Repeat("-(a ", 60) + "b" + strings.Repeat(")", 60), 0, "nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			e, err := Parse(tt.query)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, %v; want *SyntaxError", tt.query, e, err)
			}
			if se.Pos != tt.pos || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("SyntaxError = %d %q, want %d containing %q", se.Pos, se.Msg, tt.pos, tt.msg)
			}
		})
	}
}

func TestStringOfHandBuiltTrees(t *testing.T) {
	// Values that cannot be written bare are quoted so that the string still parses.
	e := and(term("two words"), op("from", "a b"), term("x"))
	if got, want := e.String(), `"two words" from:"a b" x`; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if _, err := Parse(e.String()); err != nil {
		t.Errorf("Parse(String()): %v", err)
	}
}

func dump(e *Expr) string {
	if e == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString(e.Kind.String())
	if e.Op != "" {
		b.WriteString(" " + e.Op + ":")
	}
	if e.Value != "" {
		b.WriteString(" " + e.Value)
	}
	if len(e.Children) > 0 {
		b.WriteString("[")
		for i, c := range e.Children {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(dump(c))
		}
		b.WriteString("]")
	}
	return b.String()
}

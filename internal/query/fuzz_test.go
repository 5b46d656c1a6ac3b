package query

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"cat", "apple OR iphone ipad", "(apple OR iphone) ipad", `"X data" has:mentions (has:media OR has:links)`,
		`url:"https://developer.twitter.com" -is:retweet`, "skiing -(snow OR day)", `"say \"hi\"" \\`,
		"#a @b $C $5 -#d", "from:a OR to:b lang:en", "-(-a) b", "a -is:nullcast", "10:30 meeting",
		"😃 OR 😡", "coca-cola", `a"b"c`, "list:1 list:2", "((a))", "a OR", "--a", "\xff\xfe", "is:\"reply\" x",
		"context:1.2 conversation_id:3 place_country:GB retweets_of:x has:video_link",
	} {
		f.Add(seed)
	}
	post := Post{Text: "I like coca-cola #go @x $TSLA 😃", AuthorUsername: "a", Lang: "en", URLs: []string{"https://x.com/a"}}
	f.Fuzz(func(t *testing.T, q string) {
		e, err := Parse(q)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %v is not a *SyntaxError", q, err)
			}
			if se.Pos < 0 || se.Pos > len(q) {
				t.Fatalf("Parse(%q) error position %d out of range", q, se.Pos)
			}
			return
		}
		e.Match(post)
		s := e.String()
		e2, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but Parse(String() = %q): %v", q, s, err)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("Parse(%q) and Parse(%q) differ", q, s)
		}
		if s2 := e2.String(); s2 != s {
			t.Fatalf("String not stable: %q then %q", s, s2)
		}
	})
}

func FuzzCompileRoundTrip(f *testing.F) {
	f.Add("golang|rust lang|#go", "jobs", "spam|\"quoted\"", "alice|@bob", "support", "https://github.com", "en", "65.1", uint16(0xffff))
	f.Add("", "", "x", "", "", "", "", "", uint16(0))
	f.Add("OR|c++|🚀", "a:b", "-x", "a b", "@", "x y", "zh-CN", `1"2`, uint16(0x1234))
	f.Add("\\", "é", "\xff", "", "", "", "", "", uint16(7))
	f.Fuzz(func(t *testing.T, kw, kwAnd, kwNot, users, to, url, lang, ctx string, flags uint16) {
		s := Spec{
			Keywords:          split(kw),
			KeywordsAnd:       split(kwAnd),
			KeywordsNot:       split(kwNot),
			FromUsers:         split(users),
			ToUser:            to,
			URLContains:       url,
			Language:          lang,
			ContextAnnotation: ctx,
			ExcludeRetweets:   flags&1 != 0,
			ExcludeReplies:    flags&2 != 0,
			VerifiedOnly:      flags&4 != 0,
			HasLinks:          flags&8 != 0,
			HasMedia:          []string{"", "any", "images", "video"}[flags>>4&3],
			SearchType:        []string{"", "Top", "Latest", "Videos", "Photos"}[int(flags>>6&7)%5],
		}
		if flags&0x200 != 0 {
			s.ListID, s.PlaceCountry, s.RetweetsOf, s.ConversationID = ctx, lang, to, url
		}
		c, err := Compile(s, 0)
		if errors.Is(err, ErrNoStandalone) {
			return
		}
		if err != nil {
			t.Fatalf("Compile(%+v): %v", s, err)
		}
		e, err := Parse(c.Query)
		if err != nil {
			t.Fatalf("Compile(%+v) = %q, which does not parse: %v", s, c.Query, err)
		}
		str := e.String()
		e2, err := Parse(str)
		if err != nil {
			t.Fatalf("Parse(String() = %q): %v", str, err)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("Parse(%q) and Parse(%q) differ", c.Query, str)
		}
		if e2.String() != str {
			t.Fatalf("String not stable for %q", c.Query)
		}
	})
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "|")
}

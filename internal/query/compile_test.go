package query

import (
	"errors"
	"strings"
	"testing"
)

func TestCompile(t *testing.T) {
	tests := []struct {
		name      string
		spec      Spec
		wantQuery string
		wantSort  string
	}{
		{"single OR keyword has no parentheses", Spec{Keywords: []string{"golang"}}, "golang", "recency"},
		{"OR keywords grouped", Spec{Keywords: []string{"golang", "rust"}}, "(golang OR rust)", "recency"},
		{"phrase for spaces", Spec{Keywords: []string{"machine learning"}}, `"machine learning"`, "recency"},
		{"phrase for punctuation", Spec{Keywords: []string{"coca-cola", "c++"}}, `("coca-cola" OR "c++")`, "recency"},
		{"inner quotes escaped", Spec{Keywords: []string{`say "hi"`}}, `"say \"hi\""`, "recency"},
		{"entities kept", Spec{Keywords: []string{"#golang", "@golang", "$TSLA"}}, "(#golang OR @golang OR $TSLA)", "recency"},
		{"OR as keyword is quoted", Spec{Keywords: []string{"OR"}}, `"OR"`, "recency"},
		{"emoji is quoted", Spec{Keywords: []string{"🚀"}}, `"🚀"`, "recency"},
		{"AND keywords", Spec{KeywordsAnd: []string{"remote", "senior engineer"}}, `remote "senior engineer"`, "recency"},
		{"exclusions", Spec{Keywords: []string{"go"}, KeywordsNot: []string{"pokemon", "game over", "#spam"}},
			`go -pokemon -"game over" -#spam`, "recency"},
		{"blank and repeated items dropped", Spec{Keywords: []string{"go", " ", "Go", "rust"}}, "(go OR rust)", "recency"},
		{"one from user", Spec{FromUsers: []string{"@XDevelopers"}}, "from:XDevelopers", "recency"},
		{"several from users", Spec{FromUsers: []string{"a", "@b"}}, "(from:a OR from:b)", "recency"},
		{"to user", Spec{ToUser: "@support"}, "to:support", "recency"},
		{"url quoted when needed", Spec{URLContains: "https://github.com/trawl"}, `url:"https://github.com/trawl"`, "recency"},
		{"plain url bare", Spec{URLContains: "github.com"}, "url:github.com", "recency"},
		{"retweets_of", Spec{RetweetsOf: "@nasa"}, "retweets_of:nasa", "recency"},
		{"conversation_id", Spec{ConversationID: "1334987486343299072"}, "conversation_id:1334987486343299072", "recency"},
		{"list", Spec{ListID: "123"}, "list:123", "recency"},
		{"context", Spec{ContextAnnotation: "65.852262932607926273"}, "context:65.852262932607926273", "recency"},
		{"place_country", Spec{PlaceCountry: "GB"}, "place_country:GB", "recency"},
		{"language", Spec{Keywords: []string{"hello"}, Language: "en"}, "hello lang:en", "recency"},
		{"flags", Spec{Keywords: []string{"x"}, VerifiedOnly: true, HasLinks: true, ExcludeRetweets: true, ExcludeReplies: true},
			"x is:verified has:links -is:retweet -is:reply", "recency"},
		{"has_media any", Spec{Keywords: []string{"x"}, HasMedia: "any"}, "x has:media", "recency"},
		{"has_media images", Spec{Keywords: []string{"x"}, HasMedia: "images"}, "x has:images", "recency"},
		{"has_media video", Spec{Keywords: []string{"x"}, HasMedia: "video"}, "x has:videos", "recency"},
		{"Top sorts by relevancy", Spec{Keywords: []string{"x"}, SearchType: "Top"}, "x", "relevancy"},
		{"Latest sorts by recency", Spec{Keywords: []string{"x"}, SearchType: "Latest"}, "x", "recency"},
		{"lower-case type accepted", Spec{Keywords: []string{"x"}, SearchType: "top"}, "x", "relevancy"},
		{"Videos adds has:videos", Spec{Keywords: []string{"x"}, SearchType: "Videos"}, "x has:videos", "recency"},
		{"Photos adds has:images", Spec{Keywords: []string{"x"}, SearchType: "Photos"}, "x has:images", "recency"},
		{"Photos with has_media images once", Spec{Keywords: []string{"x"}, SearchType: "Photos", HasMedia: "images"}, "x has:images", "recency"},
		{"everything in fixed order", Spec{
			Keywords: []string{"golang", "rust lang"}, KeywordsAnd: []string{"jobs"}, KeywordsNot: []string{"spam"},
			FromUsers: []string{"a", "b"}, ToUser: "c", URLContains: "x.com", RetweetsOf: "d", ConversationID: "1",
			ListID: "2", ContextAnnotation: "3.4", PlaceCountry: "US", Language: "en", VerifiedOnly: true,
			HasLinks: true, HasMedia: "any", SearchType: "Top", ExcludeRetweets: true, ExcludeReplies: true,
		}, `(golang OR "rust lang") jobs -spam (from:a OR from:b) to:c url:x.com retweets_of:d conversation_id:1 ` +
			`list:2 context:3.4 place_country:US lang:en is:verified has:links has:media -is:retweet -is:reply`, "relevancy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Compile(tt.spec, MaxLenRecent)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if got.Query != tt.wantQuery || got.SortOrder != tt.wantSort {
				t.Errorf("Compile = %q, %q; want %q, %q", got.Query, got.SortOrder, tt.wantQuery, tt.wantSort)
			}
			// Whatever we send must be a query X (and our sandbox) accepts.
			if _, err := Parse(got.Query); err != nil {
				t.Errorf("Parse(%q): %v", got.Query, err)
			}
		})
	}
}

func TestCompileIsDeterministic(t *testing.T) {
	s := Spec{Keywords: []string{"b", "a"}, FromUsers: []string{"z", "y"}, HasLinks: true}
	first, err := Compile(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, _ := Compile(s, 0)
		if again != first {
			t.Fatalf("Compile gave %q then %q", first.Query, again.Query)
		}
	}
}

func TestCompileTooLong(t *testing.T) {
	var kw []string
	for i := range 10 {
		kw = append(kw, strings.Repeat(string(rune('a'+i)), 60))
	}
	_, err := Compile(Spec{Keywords: kw}, MaxLenRecent)
	var le *LengthError
	if !errors.As(err, &le) {
		t.Fatalf("Compile error = %v, want *LengthError", err)
	}
	if le.Limit != 512 || le.Length <= 512 {
		t.Errorf("LengthError = %+v", le)
	}
	if !strings.Contains(le.Error(), "512") {
		t.Errorf("message %q does not name the limit", le.Error())
	}
	if _, err := Compile(Spec{Keywords: kw}, MaxLenFullArchive); err != nil {
		t.Errorf("full-archive limit: %v", err)
	}
}

func TestCompileCountsCharactersNotBytes(t *testing.T) {
	_, err := Compile(Spec{Keywords: []string{strings.Repeat("é", 10)}}, 10)
	if err != nil {
		t.Errorf("10 characters within a limit of 10: %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want error
	}{
		{"empty", Spec{}, ErrNoStandalone},
		{"only exclusions", Spec{KeywordsNot: []string{"spam"}}, ErrNoStandalone},
		{"only conjunction operators", Spec{Language: "en", HasLinks: true, SearchType: "Videos"}, ErrNoStandalone},
		{"blank keywords", Spec{Keywords: []string{" "}}, ErrNoStandalone},
		{"bare @ user", Spec{FromUsers: []string{"@", " "}, ToUser: "@"}, ErrNoStandalone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Compile(tt.spec, 0); !errors.Is(err, tt.want) {
				t.Errorf("Compile error = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := Compile(Spec{Keywords: []string{"x"}, SearchType: "Newest"}, 0); err == nil {
		t.Error("unknown search type accepted")
	}
	if _, err := Compile(Spec{Keywords: []string{"x"}, HasMedia: "gifs"}, 0); err == nil {
		t.Error("unknown has_media accepted")
	}
}

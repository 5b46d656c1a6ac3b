package query

import "testing"

func TestMatch(t *testing.T) {
	base := Post{
		Text:           "I like Coca-Cola and the Diacrítica café! #GoLang rocks, thanks @XDevelopers $TSLA 🚀🔥",
		Lang:           "en",
		AuthorUsername: "Gopher",
		URLs:           []string{"https://developer.twitter.com/en/docs"},
		ListIDs:        []string{"123"},
		ContextAnnotations: []string{
			"65.852262932607926273",
		},
		ConversationID: "42",
		PlaceCountry:   "GB",
	}
	reply := Post{Text: "agreed", AuthorUsername: "b", IsReply: true, InReplyToUsername: "Gopher", ConversationID: "42"}
	retweet := Post{Text: "RT @nasa: launch today", IsRetweet: true, RetweetOfUsername: "NASA"}
	media := Post{Text: "look at this", HasImages: true, AuthorVerified: true, IsQuote: true}
	video := Post{Text: "watch this", HasVideos: true}
	withEntities := Post{Text: "no sigils in text", Hashtags: []string{"Go"}, Mentions: []string{"rob"}}

	tests := []struct {
		query string
		post  Post
		want  bool
	}{
		{"like", base, true},
		{"LIKE", base, true},
		{"lik", base, false}, // whole tokens only
		{"cola", base, true}, // coca-cola splits into coca, cola
		{`"coca cola"`, base, true},
		{`"coca-cola"`, base, true},
		{`"cola coca"`, base, false},
		{`"like coca"`, base, true},
		{`"i like the"`, base, false},
		{"diacritica", base, true}, // diacritics are ignored
		{"Diacrítica", base, true},
		{"cafe", base, true},
		{"🚀", base, true},
		{"🔥 🚀", base, true},
		{"😡", base, false},
		{"#golang", base, true},
		{"#go", base, false}, // hashtags are an exact match
		{"@xdevelopers", base, true},
		{"@X", base, false},
		{"$tsla", base, true},
		{"$fb", base, false},
		{"like -cola", base, false},
		{"like -pepsi", base, true},
		{"pepsi OR cola", base, true},
		{"pepsi OR sprite", base, false},
		{"pepsi OR like cola", base, true},    // pepsi OR (like cola)
		{"pepsi OR like sprite", base, false}, // pepsi OR (like sprite)
		{"(pepsi OR like) sprite", base, false},
		{"like -(pepsi OR sprite)", base, true},
		{"like -(pepsi OR cola)", base, false},
		{"from:gopher", base, true},
		{"from:other", base, false},
		{"like lang:en", base, true},
		{"like lang:fr", base, false},
		{"to:gopher", reply, true},
		{"to:gopher", base, false},
		{"agreed is:reply", reply, true},
		{"like is:reply", base, false},
		{"like -is:reply", base, true},
		{"launch is:retweet", retweet, true},
		{"retweets_of:nasa", retweet, true},
		{"retweets_of:esa", retweet, false},
		{"like -is:retweet", base, true},
		{"launch -is:retweet", retweet, false},
		{"look is:verified is:quote", media, true},
		{"like is:verified", base, false},
		{`url:"https://developer.twitter.com"`, base, true},
		{"url:developer.twitter.com", base, true},
		{`url:"/en/docs"`, base, true},
		{"url:example.com", base, false},
		{"like has:links", base, true},
		{"look has:links", media, true}, // native media count as links
		{"watch has:links", video, true},
		{"agreed has:links", reply, false},
		{"look has:media", media, true},
		{"watch has:media", video, true},
		{"like has:media", base, false},
		{"look has:images", media, true},
		{"watch has:images", video, false},
		{"watch has:videos", video, true},
		{"look has:videos", media, false},
		{"like has:hashtags has:mentions has:cashtags", base, true},
		{"agreed has:hashtags", reply, false},
		{"sigils has:hashtags", withEntities, true},
		{"#go @rob", withEntities, true},
		{"list:123", base, true},
		{"list:9", base, false},
		{"context:65.852262932607926273", base, true},
		{"context:66.852262932607926273", base, false},
		{"conversation_id:42", reply, true},
		{"place_country:gb", base, true},
		{"place_country:US", base, false},
		{"like has:geo", base, true},
		{"like -is:nullcast", base, true},
		{`"!"`, base, true}, // a phrase without tokens falls back to a substring match
		{`"?"`, base, false},
		{"(like OR pepsi) (from:nobody OR #golang) -is:retweet lang:en", base, true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			e, err := Parse(tt.query)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := e.Match(tt.post); got != tt.want {
				t.Errorf("Match(%q) = %v, want %v", tt.post.Text, got, tt.want)
			}
		})
	}
}

func TestMatchCompiledSearch(t *testing.T) {
	c, err := Compile(Spec{
		Keywords:        []string{"golang", "rust lang"},
		KeywordsNot:     []string{"job offer"},
		FromUsers:       []string{"@alice", "bob"},
		Language:        "en",
		ExcludeRetweets: true,
	}, MaxLenRecent)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Parse(c.Query)
	if err != nil {
		t.Fatal(err)
	}
	posts := []struct {
		p    Post
		want bool
	}{
		{Post{Text: "Learning Rust-lang today", AuthorUsername: "Alice", Lang: "en"}, true},
		{Post{Text: "golang job offer inside", AuthorUsername: "bob", Lang: "en"}, false},
		{Post{Text: "golang is fun", AuthorUsername: "carol", Lang: "en"}, false},
		{Post{Text: "golang is fun", AuthorUsername: "bob", Lang: "de"}, false},
		{Post{Text: "golang is fun", AuthorUsername: "bob", Lang: "en", IsRetweet: true}, false},
	}
	for _, tt := range posts {
		if got := e.Match(tt.p); got != tt.want {
			t.Errorf("%q matches %+v: %v, want %v", c.Query, tt.p, got, tt.want)
		}
	}
}

func TestExtractEntities(t *testing.T) {
	got := extractEntities("#a b#c #dé_1, #, $5 $AB x@y @z", '#')
	want := []string{"a", "dé_1"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("hashtags = %q, want %q", got, want)
	}
	if got := extractEntities("$5 $AB", '$'); len(got) != 1 || got[0] != "AB" {
		t.Errorf("cashtags = %q", got)
	}
	if got := extractEntities("x@y @z", '@'); len(got) != 1 || got[0] != "z" {
		t.Errorf("mentions = %q", got)
	}
}

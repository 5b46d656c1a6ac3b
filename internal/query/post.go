package query

// Post is what the matcher looks at.
type Post struct {
	Text               string
	Lang               string // BCP47 code, e.g. "en"
	AuthorUsername     string // without @
	AuthorVerified     bool
	InReplyToUsername  string // "" when not a reply
	IsReply, IsRetweet bool
	IsQuote            bool
	RetweetOfUsername  string
	ConversationID     string
	URLs               []string // expanded URLs in the post
	HasImages          bool     // has:media = either
	HasVideos          bool
	Hashtags, Mentions []string // without # / @; nil means "take them from Text"
	PlaceCountry       string   // ISO alpha-2
	ListIDs            []string // lists the author belongs to (list: operator)
	ContextAnnotations []string // "domain_id.entity_id" pairs (context: operator)
}

package query

import (
	"errors"
	"fmt"
)

// Spec is the query-relevant part of a saved-search body (already validated by the HTTP layer).
type Spec struct {
	Keywords, KeywordsAnd, KeywordsNot []string
	SearchType                         string // "Top", "Latest", "Videos", "Photos" or "" (canonical spelling)
	Language                           string // microblog_language, e.g. "en"
	ExcludeRetweets, ExcludeReplies    bool
	VerifiedOnly, HasLinks             bool
	HasMedia                           string // "", "any", "images", "video"
	FromUsers                          []string
	ToUser, URLContains, RetweetsOf    string
	ConversationID, ListID             string
	ContextAnnotation, PlaceCountry    string
}

// Compiled is what the connector sends.
type Compiled struct {
	Query     string // the X query string
	SortOrder string // "recency" or "relevancy"
}

// Sort orders of X API v2 search (the sort_order parameter).
const (
	SortRecency   = "recency"
	SortRelevancy = "relevancy"
)

// Query length limits of X API v2 search for self-serve access, in characters.
const (
	MaxLenRecent      = 512
	MaxLenFullArchive = 1024
)

// ErrNoStandalone is returned by Compile when the spec has no keyword and no standalone
// operator: X rejects such a query (exclusions, lang:, is: and has: cannot stand alone).
var ErrNoStandalone = errors.New("query: needs at least one keyword or standalone operator " +
	"(from_users, to_user, url_contains, place_country, retweets_of, conversation_id, list_id, context_annotation)")

// LengthError reports a compiled query longer than the endpoint allows.
type LengthError struct {
	Limit  int // characters allowed
	Length int // characters in the compiled query
}

func (e *LengthError) Error() string {
	return fmt.Sprintf("query: compiled query is %d characters long, over the limit of %d", e.Length, e.Limit)
}

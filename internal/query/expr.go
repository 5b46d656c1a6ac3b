package query

import "fmt"

// Kind is the kind of an expression node.
type Kind int

// Expression node kinds.
const (
	KindAnd      Kind = iota // every one of Children matches (space between clauses)
	KindOr                   // any of Children matches
	KindNot                  // Children[0] does not match ('-' prefix)
	KindTerm                 // Value: a keyword, matched on token boundaries
	KindPhrase               // Value: an exact phrase, without quotes or escapes
	KindHashtag              // Value: hashtag without '#'
	KindMention              // Value: username without '@'
	KindCashtag              // Value: cashtag without '$'
	KindOperator             // Op (e.g. "from", "is", "has") and Value (e.g. "retweet")
)

func (k Kind) String() string {
	switch k {
	case KindAnd:
		return "And"
	case KindOr:
		return "Or"
	case KindNot:
		return "Not"
	case KindTerm:
		return "Term"
	case KindPhrase:
		return "Phrase"
	case KindHashtag:
		return "Hashtag"
	case KindMention:
		return "Mention"
	case KindCashtag:
		return "Cashtag"
	case KindOperator:
		return "Operator"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Expr is a node of a parsed X query. Trees from Parse are normalised: nested AND and OR nodes
// are flattened and single-clause groups are unwrapped, so equal queries give equal trees
// (reflect.DeepEqual or Equal).
type Expr struct {
	Kind     Kind
	Op       string // operator name, lower case, without the colon (KindOperator)
	Value    string // term, phrase text, entity without its sigil, or operator value
	Children []*Expr
}

// Equal reports whether e and o are the same tree.
func (e *Expr) Equal(o *Expr) bool {
	if e == nil || o == nil {
		return e == o
	}
	if e.Kind != o.Kind || e.Op != o.Op || e.Value != o.Value || len(e.Children) != len(o.Children) {
		return false
	}
	for i := range e.Children {
		if !e.Children[i].Equal(o.Children[i]) {
			return false
		}
	}
	return true
}

// SyntaxError is a parse error at byte offset Pos of the query.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("query: syntax error at offset %d: %s", e.Pos, e.Msg)
}

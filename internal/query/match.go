package query

import (
	"bytes"
	"strings"
)

// Match reports whether p matches e under X's semantics: keywords and phrases match whole
// tokens of the text regardless of case and diacritics; #, @ and $ match the post's entities
// exactly (case-insensitive); operators match the post's fields.
func (e *Expr) Match(p Post) bool {
	m := matcher{post: p}
	m.scratch = m.buf[:0]
	return m.match(e)
}

// matcher evaluates one post and caches what several clauses need (the tokenised text).
type matcher struct {
	post     Post
	text     []byte // " tok tok " form of post.Text; nil until needed
	lower    string // lower-cased text, for needles without any token
	lowered  bool
	scratch  []byte
	scratch2 []byte
	buf      [64]byte // backs scratch for typical needles
}

func (m *matcher) match(e *Expr) bool {
	if e == nil {
		return false
	}
	p := &m.post
	switch e.Kind {
	case KindAnd:
		for _, c := range e.Children {
			if !m.match(c) {
				return false
			}
		}
		return true
	case KindOr:
		for _, c := range e.Children {
			if m.match(c) {
				return true
			}
		}
		return false
	case KindNot:
		return len(e.Children) == 1 && !m.match(e.Children[0])
	case KindTerm, KindPhrase:
		return m.matchText(e.Value)
	case KindHashtag:
		return containsFold(m.entities(p.Hashtags, '#'), e.Value)
	case KindMention:
		return containsFold(m.entities(p.Mentions, '@'), e.Value)
	case KindCashtag:
		return containsFold(extractEntities(p.Text, '$'), e.Value)
	case KindOperator:
		return m.matchOperator(e.Op, e.Value)
	}
	return false
}

func (m *matcher) matchOperator(op, v string) bool {
	p := &m.post
	switch op {
	case "from":
		return strings.EqualFold(p.AuthorUsername, v)
	case "to":
		return p.InReplyToUsername != "" && strings.EqualFold(p.InReplyToUsername, v)
	case "retweets_of":
		return p.IsRetweet && strings.EqualFold(p.RetweetOfUsername, v)
	case "url":
		return m.matchURL(v)
	case "conversation_id":
		return p.ConversationID == v
	case "list":
		return contains(p.ListIDs, v)
	case "context":
		return contains(p.ContextAnnotations, v)
	case "place_country":
		return strings.EqualFold(p.PlaceCountry, v)
	case "lang":
		return strings.EqualFold(p.Lang, v)
	case "is":
		switch v {
		case "retweet":
			return p.IsRetweet
		case "reply":
			return p.IsReply
		case "quote":
			return p.IsQuote
		case "verified":
			return p.AuthorVerified
		case "nullcast":
			return false // no post here is an ads-only promotion
		}
	case "has":
		switch v {
		case "links":
			// X: "contain links and media in the Post body"; native media carry a link too.
			return len(p.URLs) > 0 || p.HasImages || p.HasVideos
		case "media":
			return p.HasImages || p.HasVideos
		case "images":
			return p.HasImages
		case "videos":
			return p.HasVideos
		case "hashtags":
			return len(m.entities(p.Hashtags, '#')) > 0
		case "mentions":
			return len(m.entities(p.Mentions, '@')) > 0
		case "cashtags":
			return len(extractEntities(p.Text, '$')) > 0
		case "geo":
			return p.PlaceCountry != ""
		}
	}
	return false
}

// matchText reports whether the tokens of needle occur, in order and adjacent, among the
// tokens of the post text.
func (m *matcher) matchText(needle string) bool {
	m.scratch = appendTokens(m.scratch[:0], needle)
	if len(m.scratch) <= 1 {
		return m.containsRaw(needle)
	}
	if m.text == nil {
		m.text = appendTokens(make([]byte, 0, len(m.post.Text)+2), m.post.Text)
	}
	return bytes.Contains(m.text, m.scratch)
}

// containsRaw handles needles made only of punctuation ("?", "!!!"), which have no tokens.
func (m *matcher) containsRaw(needle string) bool {
	if needle == "" {
		return false
	}
	if !m.lowered {
		m.lower, m.lowered = strings.ToLower(m.post.Text), true
	}
	return strings.Contains(m.lower, strings.ToLower(needle))
}

// matchURL is X's tokenised match of url: against each expanded URL.
func (m *matcher) matchURL(v string) bool {
	m.scratch = appendTokens(m.scratch[:0], v)
	for _, u := range m.post.URLs {
		if len(m.scratch) <= 1 {
			if v != "" && strings.Contains(strings.ToLower(u), strings.ToLower(v)) {
				return true
			}
			continue
		}
		m.scratch2 = appendTokens(m.scratch2[:0], u)
		if bytes.Contains(m.scratch2, m.scratch) {
			return true
		}
	}
	return false
}

// entities returns the post's own entities, or those found in its text when it has none listed.
func (m *matcher) entities(own []string, sigil byte) []string {
	if own != nil {
		return own
	}
	return extractEntities(m.post.Text, sigil)
}

func containsFold(list []string, v string) bool {
	for _, s := range list {
		if strings.EqualFold(s, v) {
			return true
		}
	}
	return false
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

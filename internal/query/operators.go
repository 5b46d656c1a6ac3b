package query

// Operator classes follow X's "Build a query" page: standalone operators may form a query on
// their own; conjunction-required ones (lang:, is:, has:) need a standalone clause beside them.

// valueOperator reports whether name (lower case, without the colon) is a known operator that
// takes a free value, and whether it is standalone.
func valueOperator(name string) (standalone, ok bool) {
	switch name {
	case "from", "to", "url", "retweets_of", "conversation_id", "list", "context", "place_country":
		return true, true
	case "lang":
		return false, true
	}
	return false, false
}

// flagValue returns the canonical value of an is:/has: operator; X's aliases (has:video_link,
// has:media_link) map to their canonical names.
func flagValue(op, v string) (string, bool) {
	switch op {
	case "is":
		switch v {
		case "retweet", "reply", "quote", "verified", "nullcast":
			return v, true
		}
	case "has":
		switch v {
		case "links", "media", "images", "videos", "hashtags", "mentions", "cashtags", "geo":
			return v, true
		case "video_link":
			return "videos", true
		case "media_link":
			return "media", true
		}
	}
	return "", false
}

// isFlagOperator reports whether op takes one of a fixed set of values (is:, has:).
func isFlagOperator(op string) bool { return op == "is" || op == "has" }

// anchored reports whether every way e can match needs a positive standalone clause, which is
// what X requires of a whole query ("has:links OR is:retweet" and "-from:x" are rejected).
func anchored(e *Expr) bool {
	if e == nil {
		return false
	}
	switch e.Kind {
	case KindTerm, KindPhrase, KindHashtag, KindMention, KindCashtag:
		return true
	case KindOperator:
		standalone, _ := valueOperator(e.Op)
		return standalone
	case KindAnd:
		for _, c := range e.Children {
			if anchored(c) {
				return true
			}
		}
		return false
	case KindOr:
		for _, c := range e.Children {
			if !anchored(c) {
				return false
			}
		}
		return len(e.Children) > 0
	}
	return false
}

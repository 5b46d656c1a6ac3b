package sandbox

import (
	"net/http"
	"strings"
)

// pronetShape is how a fault prefix bends an otherwise good pronet answer, so that connectors
// can be tried on the vendor input they must survive (see doc.go).
type pronetShape int

const (
	shapeNormal pronetShape = iota
	// shapeMalformed: a list's first item is replaced by a value of the wrong type; a single
	// object gets its id member as an object.
	shapeMalformed
	// shapeSparse: every optional field is left out; ids, names, URLs and dates remain.
	shapeSparse
)

// malformedItem is what a broken list item looks like: a proxy's HTML page where an object
// should be.
const malformedItem = "<html>"

// pronetIdent reads the prefixes checkIdent does not know: throttled- gets a 429 without
// Retry-After (written here, ok false), malformed- and sparse- name the same thing as the rest
// of the identifier, rendered in that shape.
func pronetIdent(w http.ResponseWriter, id string) (rest string, shape pronetShape, ok bool) {
	if hasFaultPrefix(id, "throttled") {
		pronetThrottled(w)
		return "", shapeNormal, false
	}
	if r, found := cutFaultPrefix(id, "malformed"); found {
		return r, shapeMalformed, true
	}
	if r, found := cutFaultPrefix(id, "sparse"); found {
		return r, shapeSparse, true
	}
	return id, shapeNormal, true
}

func pronetThrottled(w http.ResponseWriter) {
	pronetError(w, http.StatusTooManyRequests, "Too many requests")
}

func hasFaultPrefix(id, word string) bool {
	_, ok := cutFaultPrefix(id, word)
	return ok
}

// cutFaultPrefix removes word- (or word_) from the start of id, in any case.
func cutFaultPrefix(id, word string) (string, bool) {
	if len(id) <= len(word) || !strings.EqualFold(id[:len(word)], word) {
		return id, false
	}
	if c := id[len(word)]; c != '-' && c != '_' {
		return id, false
	}
	return id[len(word)+1:], true
}

// pronetKeywordFaults applies the new prefixes to the words of a search's keywords: a
// throttled- word answers 429 without Retry-After (ok false); malformed- and sparse- words are
// searched for without their prefix and shape the answer.
func pronetKeywordFaults(w http.ResponseWriter, kw string) (rest string, shape pronetShape, ok bool) {
	var sb strings.Builder
	for i := 0; i < len(kw); {
		if i > 0 && !wordStart(kw[i-1]) {
			sb.WriteByte(kw[i])
			i++
			continue
		}
		word := kw[i:]
		switch {
		case hasFaultPrefix(word, "throttled"):
			pronetThrottled(w)
			return "", shapeNormal, false
		case hasFaultPrefix(word, "malformed"):
			shape, i = shapeMalformed, i+len("malformed-")
		case hasFaultPrefix(word, "sparse"):
			shape, i = shapeSparse, i+len("sparse-")
		default:
			sb.WriteByte(kw[i])
			i++
		}
	}
	return sb.String(), shape, true
}

// wordStart reports whether a word can begin after c: after a space, a quote or a parenthesis.
func wordStart(c byte) bool { return c == ' ' || c == '"' || c == '(' || c == '\t' }

// shapeList applies shape to a rendered list of records; sparse drops each record's optional
// fields with strip.
func shapeList(items []any, shape pronetShape, strip func(map[string]any) map[string]any) []any {
	switch shape {
	case shapeMalformed:
		if len(items) > 0 {
			items[0] = malformedItem
		}
	case shapeSparse:
		for i, it := range items {
			if m, ok := it.(map[string]any); ok {
				items[i] = strip(m)
			}
		}
	}
	return items
}

// shapeObject applies shape to one rendered record whose identifier member is idKey.
func shapeObject(rec map[string]any, shape pronetShape, idKey string, strip func(map[string]any) map[string]any) map[string]any {
	switch shape {
	case shapeMalformed:
		rec[idKey] = map[string]any{}
	case shapeSparse:
		rec = strip(rec)
	}
	return rec
}

// keep copies the named members of m.
func keep(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// sparsePost leaves a post record its ids, names, URLs, text and date string: no counts, no
// relative age, no ms timestamp, no pictures, headline or attachments.
func sparsePost(m map[string]any) map[string]any {
	out := keep(m, "text", "entityType", "postUrl", "postedDate", "urn", "company")
	if a, ok := m["author"].(map[string]any); ok {
		out["author"] = keep(a, "id", "firstName", "lastName", "username", "url", "urn")
	}
	return out
}

// sparseComment leaves a comment (and its replies) ids, text, author names and date string.
func sparseComment(m map[string]any) map[string]any {
	out := keep(m, "threadUrn", "urn", "createdAtString", "permalink", "text")
	if a, ok := m["author"].(map[string]any); ok {
		out["author"] = keep(a, "name", "urn", "id", "username", "pronetUrl")
	}
	if rs, ok := m["replies"].([]any); ok {
		out["replies"] = shapeList(rs, shapeSparse, sparseComment)
	}
	return out
}

// sparseReactor leaves a reactor no headline and no picture.
func sparseReactor(m map[string]any) map[string]any {
	return keep(m, "urn", "username", "fullName", "profileUrl", "reactionType")
}

// sparseProfile leaves a profile its ids, names and positions (company, title, dates).
func sparseProfile(m map[string]any) map[string]any {
	out := keep(m, "id", "urn", "username", "firstName", "lastName")
	if ps, ok := m["position"].([]any); ok {
		kept := make([]any, 0, len(ps))
		for _, p := range ps {
			if pm, ok := p.(map[string]any); ok {
				kept = append(kept, keep(pm, "companyName", "companyUsername", "title", "start", "end"))
			}
		}
		out["position"] = kept
	}
	return out
}

// hasInvalidKeyPrefix reports whether key is the sandbox's wrong key: one starting with "invalid".
func hasInvalidKeyPrefix(key string) bool {
	return len(key) >= 7 && strings.EqualFold(key[:7], "invalid")
}

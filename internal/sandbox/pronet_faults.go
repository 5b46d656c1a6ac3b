package sandbox

import (
	"net/http"
	"strings"
)

// pronetShape is how a fault prefix bends an otherwise good pronet answer, so that connectors
// can be tried on the vendor input they must survive (see doc.go).
type pronetShape int

const (
	pronetShapeNormal pronetShape = iota
	// pronetShapeMalformed: a list's first item is replaced by a value of the wrong type; a single
	// object gets its id member as an object.
	pronetShapeMalformed
	// pronetShapeSparse: every optional field is left out; ids, names, URLs and dates remain.
	pronetShapeSparse
)

// pronetMalformedItem is what a broken list item looks like: a proxy's HTML page where an object
// should be.
const pronetMalformedItem = "<html>"

// pronetIdent reads the prefixes checkIdent does not know: throttled- gets a 429 without
// Retry-After (written here, ok false), malformed- and sparse- name the same thing as the rest
// of the identifier, rendered in that shape.
func pronetIdent(w http.ResponseWriter, id string) (rest string, shape pronetShape, ok bool) {
	if pronetHasPrefix(id, "throttled") {
		pronetThrottled(w)
		return "", pronetShapeNormal, false
	}
	if r, found := pronetCutPrefix(id, "malformed"); found {
		return r, pronetShapeMalformed, true
	}
	if r, found := pronetCutPrefix(id, "sparse"); found {
		return r, pronetShapeSparse, true
	}
	return id, pronetShapeNormal, true
}

func pronetThrottled(w http.ResponseWriter) {
	pronetError(w, http.StatusTooManyRequests, "Too many requests")
}

func pronetHasPrefix(id, word string) bool {
	_, ok := pronetCutPrefix(id, word)
	return ok
}

// pronetCutPrefix removes word- (or word_) from the start of id, in any case.
func pronetCutPrefix(id, word string) (string, bool) {
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
		if i > 0 && !pronetWordStart(kw[i-1]) {
			sb.WriteByte(kw[i])
			i++
			continue
		}
		word := kw[i:]
		switch {
		case pronetHasPrefix(word, "throttled"):
			pronetThrottled(w)
			return "", pronetShapeNormal, false
		case pronetHasPrefix(word, "malformed"):
			shape, i = pronetShapeMalformed, i+len("malformed-")
		case pronetHasPrefix(word, "sparse"):
			shape, i = pronetShapeSparse, i+len("sparse-")
		default:
			sb.WriteByte(kw[i])
			i++
		}
	}
	return sb.String(), shape, true
}

// pronetWordStart reports whether a word can begin after c: after a space, a quote or a parenthesis.
func pronetWordStart(c byte) bool { return c == ' ' || c == '"' || c == '(' || c == '\t' }

// pronetShapeList applies shape to a rendered list of records; sparse drops each record's optional
// fields with strip.
func pronetShapeList(items []any, shape pronetShape, strip func(map[string]any) map[string]any) []any {
	switch shape {
	case pronetShapeMalformed:
		if len(items) > 0 {
			items[0] = pronetMalformedItem
		}
	case pronetShapeSparse:
		for i, it := range items {
			if m, ok := it.(map[string]any); ok {
				items[i] = strip(m)
			}
		}
	}
	return items
}

// pronetShapeObject applies shape to one rendered record whose identifier member is idKey.
func pronetShapeObject(rec map[string]any, shape pronetShape, idKey string, strip func(map[string]any) map[string]any) map[string]any {
	switch shape {
	case pronetShapeMalformed:
		rec[idKey] = map[string]any{}
	case pronetShapeSparse:
		rec = strip(rec)
	}
	return rec
}

// pronetKeep copies the named members of m.
func pronetKeep(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// pronetSparsePost leaves a post record its ids, names, URLs, text and date string: no counts, no
// relative age, no ms timestamp, no pictures, headline or attachments.
func pronetSparsePost(m map[string]any) map[string]any {
	out := pronetKeep(m, "text", "entityType", "postUrl", "postedDate", "urn", "company")
	if a, ok := m["author"].(map[string]any); ok {
		out["author"] = pronetKeep(a, "id", "firstName", "lastName", "username", "url", "urn")
	}
	return out
}

// pronetSparseComment leaves a comment (and its replies) ids, text, author names and date string.
func pronetSparseComment(m map[string]any) map[string]any {
	out := pronetKeep(m, "threadUrn", "urn", "createdAtString", "permalink", "text")
	if a, ok := m["author"].(map[string]any); ok {
		out["author"] = pronetKeep(a, "name", "urn", "id", "username", "pronetUrl")
	}
	if rs, ok := m["replies"].([]any); ok {
		out["replies"] = pronetShapeList(rs, pronetShapeSparse, pronetSparseComment)
	}
	return out
}

// pronetSparseReactor leaves a reactor no headline and no picture.
func pronetSparseReactor(m map[string]any) map[string]any {
	return pronetKeep(m, "urn", "username", "fullName", "profileUrl", "reactionType")
}

// pronetSparseProfile leaves a profile its ids, names and positions (company, title, dates).
func pronetSparseProfile(m map[string]any) map[string]any {
	out := pronetKeep(m, "id", "urn", "username", "firstName", "lastName")
	if ps, ok := m["position"].([]any); ok {
		kept := make([]any, 0, len(ps))
		for _, p := range ps {
			if pm, ok := p.(map[string]any); ok {
				kept = append(kept, pronetKeep(pm, "companyName", "companyUsername", "title", "start", "end"))
			}
		}
		out["position"] = kept
	}
	return out
}

// pronetInvalidKey reports whether key is the sandbox's wrong key: one starting with "invalid".
func pronetInvalidKey(key string) bool {
	return len(key) >= 7 && strings.EqualFold(key[:7], "invalid")
}

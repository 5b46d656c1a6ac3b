package source

import "bytes"

// dropNULEscapes removes the \u0000 escapes from the strings of a JSON
// body. PostgreSQL keeps no NUL in text and refuses \u0000 in jsonb, so an
// upstream post or profile that carried one would fail to store on every
// retry; a platform's text has no NUL worth keeping. A backslash that is
// escaped itself (\\u0000 is the text "\u0000") is kept.
func dropNULEscapes(body []byte) []byte {
	const nul = `\u0000`
	if !bytes.Contains(body, []byte(nul)) {
		return body
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			out = append(out, body[i])
			continue
		}
		if bytes.HasPrefix(body[i:], []byte(nul)) {
			i += len(nul) - 1
			continue
		}
		// Any other escape is copied whole, so the byte after it is never
		// read as the start of one.
		out = append(out, body[i:min(i+2, len(body))]...)
		i++
	}
	return out
}

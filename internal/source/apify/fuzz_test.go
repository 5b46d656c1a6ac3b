package apify

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/trawlhq/trawl/internal/source"
)

// FuzzItems feeds vendor dataset items and error bodies to the readers: they never panic, and
// an error is always one of the shared kinds.
func FuzzItems(f *testing.F) {
	for _, s := range []string{`{"id":"1","type":"post"}`, `"<html>"`, `{"error":"Profile not found"}`,
		`{"error":{"status":404}}`, `{"id":{}}`, `null`, `{"error":{"type":"x","message":"y"}}`, `[1,2]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		raw := json.RawMessage(b)
		if !json.Valid(b) {
			raw = json.RawMessage(`"` + "x" + `"`)
		}
		items := []json.RawMessage{raw, raw}
		if _, err := lookupItem(items); err != nil {
			var ue *source.UpstreamError
			if !errors.Is(err, source.ErrNotFound) && !errors.As(err, &ue) {
				t.Errorf("lookup error of another kind: %v", err)
			}
		}
		_, _ = postsOf(items)
		_ = apiError(400, b, "a~b")
	})
}

package apify

import (
	"context"
	"testing"
)

// BenchmarkProfileOverhead is one synchronous Profile call against a loopback fake: the
// adapter's own cost (encoding, the HTTP round trip, decoding, translation).
func BenchmarkProfileOverhead(b *testing.B) {
	f := newFake(b)
	f.actors["harvestapi~linkedin-profile-scraper"] = func(map[string]any) ([]any, string, string) {
		return []any{map[string]any{"id": "ACoAAA", "publicIdentifier": "jane", "firstName": "Jane"}}, "", ""
	}
	c, _ := newTestClient(f, goodToken)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		f.mu.Lock()
		f.inputs = f.inputs[:0]
		f.mu.Unlock()
		if _, err := c.Profile(ctx, "jane"); err != nil {
			b.Fatal(err)
		}
	}
}

package enrich_test

import (
	"encoding/json"
	"testing"

	"github.com/trawlhq/trawl/internal/source/enrich"
)

func BenchmarkDecodeAndBuildProspect(b *testing.B) {
	b.SetBytes(int64(len(pdlMatch)))
	for b.Loop() {
		var body struct{ Data enrich.Person }
		if err := json.Unmarshal([]byte(pdlMatch), &body); err != nil {
			b.Fatal(err)
		}
		enrich.BuildProspect(body.Data, profile)
	}
}

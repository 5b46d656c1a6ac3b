package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/query"
	"github.com/trawlhq/trawl/internal/search"
)

func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2026-11-01T00:00:00Z", "2026-11-01", "2026-11-01T10:00:00.123+02:00", "yesterday", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := parseTimestamp(s)
		if err != nil {
			return
		}
		// Whatever is accepted is printed in the API's one format and reads back.
		back, err := parseTimestamp(formatTime(ts))
		if err != nil || !back.Equal(ts.Truncate(1e6)) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, ts, formatTime(ts), back, err)
		}
	})
}

// FuzzPostsDefinition feeds arbitrary JSON to the keyword-search validation:
// it never panics, every problem names a body field, and what it accepts
// compiles into an X query within the limit.
func FuzzPostsDefinition(f *testing.F) {
	for _, s := range []string{
		`{"name": "x", "keywords": ["CRM", "sales ops"], "keywords_not": ["jobs"], "from_users": ["@jack"]}`,
		`{"name": "x", "place_country": "us", "has_media": "images", "microblog_language": "pt-BR"}`,
		`{"name": "", "keywords": [" "], "context_annotation": "65.*", "conversation_id": "123"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var b postsBody
		if json.Unmarshal([]byte(raw), &b) != nil {
			return
		}
		d, ps := search.MicroblogPosts(b).Definition(search.Rules{ForCreate: true, QueryMaxLength: query.MaxLenRecent})
		if len(ps) > 0 {
			var p problems
			addSearchProblems(ps, &p)
			for _, det := range p {
				if !strings.HasPrefix(det.Field, "body") || det.Message == "" {
					t.Fatalf("detail %+v does not name a body field", det)
				}
			}
			return
		}
		c, err := d.Compile(query.MaxLenRecent)
		if err != nil {
			t.Fatalf("accepted definition %+v does not compile: %v", d, err)
		}
		if _, err := query.Parse(c.Query); err != nil {
			t.Fatalf("compiled query %q does not parse: %v", c.Query, err)
		}
	})
}

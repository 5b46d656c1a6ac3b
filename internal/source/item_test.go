package source_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

func TestItemJSONShape(t *testing.T) {
	it := source.Item{
		ID: "1", Source: "microblog",
		Author:      source.Author{Name: "Jack", Username: "jack", ProfileURL: "https://x.com/jack"},
		Content:     source.Content{Text: "hi", URL: "https://x.com/jack/status/1"},
		Engagement:  source.Engagement{Likes: 2, Comments: 1},
		PublishedAt: time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.FixedZone("x", 3600)),
		CollectedAt: time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC),
	}
	b, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"1","source":"microblog","author":{"name":"Jack","username":"jack","profile_url":"https://x.com/jack","avatar":"","followers":null},"content":{"text":"hi","url":"https://x.com/jack/status/1","media":[]},"engagement":{"likes":2,"comments":1,"shares":null},"published_at":"2026-01-02T02:04:05.678Z","collected_at":"2026-01-02T03:04:06.000Z"}`
	if string(b) != want {
		t.Errorf("json =\n%s\nwant\n%s", b, want)
	}
	var back source.Item
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.PublishedAt.Equal(it.PublishedAt.Truncate(time.Millisecond)) || back.Author.Followers != nil {
		t.Errorf("round trip = %+v", back)
	}
}

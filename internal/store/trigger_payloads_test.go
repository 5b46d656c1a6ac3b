package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/workflow"
)

// TestTriggerPayloadsMatchCatalogue: the payloads the dispatcher builds
// from real events (a search result, a topic engagement on a reshare)
// carry only fields the trigger catalogue lists.
func TestTriggerPayloadsMatchCatalogue(t *testing.T) {
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	followers := 10
	item, err := json.Marshal(source.Item{ID: "1", Source: "microblog", PublishedAt: at, CollectedAt: at,
		Author:  source.Author{Name: "a", Username: "a", ProfileURL: "https://x.com/a", Followers: &followers},
		Content: source.Content{Text: "t", URL: "https://x.com/a/status/1"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := newPostEventPayload("s", item)
	if err != nil {
		t.Fatal(err)
	}
	var newPost map[string]any
	if err := json.Unmarshal(raw, &newPost); err != nil {
		t.Fatal(err)
	}
	if got := workflow.UnlistedFields(workflow.TriggerNewPost, newPost); len(got) > 0 {
		t.Errorf("new-post payload fields missing from the catalogue: %v", got)
	}
	post, err := json.Marshal(pronet.Post{URN: "7", Text: "t", ResharedPost: &pronet.ResharedPost{}})
	if err != nil {
		t.Fatal(err)
	}
	eng := engagementPayload("topic", Engagement{ID: "e", PostURN: "7", Type: "comment", Text: "hi", CreatedAt: at,
		Person: Person{URN: "u", FullName: "Jane", PronetURL: "https://www.linkedin.com/in/jane"}}, post)
	if got := workflow.UnlistedFields(workflow.TriggerEngagement, eng); len(got) > 0 {
		t.Errorf("engagement payload fields missing from the catalogue: %v", got)
	}
}

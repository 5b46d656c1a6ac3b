package source

import (
	"encoding/json"
	"fmt"
	"time"
)

// TimeLayout is the API's timestamp format: RFC 3339, UTC, milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Item is the spec's standard search-result shape, shared by every source.
type Item struct {
	ID          string     `json:"id"`
	Source      string     `json:"source"`
	Author      Author     `json:"author"`
	Content     Content    `json:"content"`
	Engagement  Engagement `json:"engagement"`
	PublishedAt time.Time  `json:"published_at"`
	CollectedAt time.Time  `json:"collected_at"`
}

// Author of an item. Followers is nil when the upstream did not say.
// Description and Location are what a microblog profile says of its owner
// (bio and free-text location), kept so that results can be filtered by
// author; absent when the source gives none.
type Author struct {
	Name        string `json:"name"`
	Username    string `json:"username"`
	ProfileURL  string `json:"profile_url"`
	Avatar      string `json:"avatar"`
	Followers   *int   `json:"followers"`
	Description string `json:"description,omitempty" doc:"The author's bio (microblog), when the source gives one."`
	Location    string `json:"location,omitempty" doc:"The author's free-text location (microblog), when the source gives one."`
}

// Content of an item.
type Content struct {
	Text  string  `json:"text"`
	URL   string  `json:"url"`
	Media []Media `json:"media"`
}

// Media attached to an item. Type is photo, video or animated_gif; URL is the image itself
// (for videos, their preview image, as X gives no direct video URL in v2 media.fields).
type Media struct {
	Type       string `json:"type"`
	URL        string `json:"url"`
	PreviewURL string `json:"preview_url,omitempty"`
}

// Engagement counts. Shares is nil when the source has no notion of it.
type Engagement struct {
	Likes    int  `json:"likes"`
	Comments int  `json:"comments"`
	Shares   *int `json:"shares"`
}

// itemJSON is Item with the timestamps as strings, so they marshal in TimeLayout.
type itemJSON struct {
	ID          string     `json:"id"`
	Source      string     `json:"source"`
	Author      Author     `json:"author"`
	Content     Content    `json:"content"`
	Engagement  Engagement `json:"engagement"`
	PublishedAt *string    `json:"published_at"`
	CollectedAt *string    `json:"collected_at"`
}

// MarshalJSON writes the timestamps as RFC 3339 UTC with milliseconds (null when zero) and
// media as [] rather than null.
func (it Item) MarshalJSON() ([]byte, error) {
	out := itemJSON{
		ID: it.ID, Source: it.Source, Author: it.Author, Content: it.Content, Engagement: it.Engagement,
		PublishedAt: formatTime(it.PublishedAt), CollectedAt: formatTime(it.CollectedAt),
	}
	if out.Content.Media == nil {
		out.Content.Media = []Media{}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes (any RFC 3339 timestamp is accepted).
func (it *Item) UnmarshalJSON(b []byte) error {
	var in itemJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("source: item: %w", err)
	}
	pub, err := parseTime(in.PublishedAt)
	if err != nil {
		return fmt.Errorf("source: item published_at: %w", err)
	}
	col, err := parseTime(in.CollectedAt)
	if err != nil {
		return fmt.Errorf("source: item collected_at: %w", err)
	}
	*it = Item{ID: in.ID, Source: in.Source, Author: in.Author, Content: in.Content, Engagement: in.Engagement,
		PublishedAt: pub, CollectedAt: col}
	return nil
}

func formatTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(TimeLayout)
	return &s
}

func parseTime(s *string) (time.Time, error) {
	if s == nil || *s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}

// IntPtr returns a pointer to n, for the nullable counts of an Item.
func IntPtr(n int) *int { return &n }

package microblog

import (
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// joinIncludes attaches each tweet's author and media from the includes; a missing author or
// media key is tolerated (X omits deleted or withheld objects).
func joinIncludes(data []Tweet, inc includes) []Tweet {
	users := make(map[string]*User, len(inc.Users))
	for i := range inc.Users {
		users[inc.Users[i].ID] = &inc.Users[i]
	}
	media := make(map[string]Media, len(inc.Media))
	for _, m := range inc.Media {
		media[m.MediaKey] = m
	}
	out := make([]Tweet, 0, len(data))
	for _, t := range data {
		if u, ok := users[t.AuthorID]; ok {
			cp := *u
			t.Author = &cp
		}
		for _, k := range t.Attachments.MediaKeys {
			if m, ok := media[k]; ok {
				t.Media = append(t.Media, m)
			}
		}
		out = append(out, t)
	}
	return out
}

// ProfileURL is the public URL of an account.
func ProfileURL(username string) string { return "https://x.com/" + username }

// StatusURL is the public URL of a tweet; without a known author X's /i/web/ form still resolves.
func StatusURL(username, id string) string {
	if username == "" {
		return "https://x.com/i/web/status/" + id
	}
	return "https://x.com/" + username + "/status/" + id
}

// ItemFromTweet maps a joined tweet to the standard search-result item.
func ItemFromTweet(t Tweet, collectedAt time.Time) source.Item {
	it := source.Item{
		ID:     t.ID,
		Source: SourceName,
		Content: source.Content{
			Text:  t.Text,
			URL:   StatusURL("", t.ID),
			Media: make([]source.Media, 0, len(t.Media)),
		},
		Engagement: source.Engagement{
			Likes:    t.PublicMetrics.LikeCount,
			Comments: t.PublicMetrics.ReplyCount,
			Shares:   source.IntPtr(t.PublicMetrics.RetweetCount + t.PublicMetrics.QuoteCount),
		},
		PublishedAt: t.CreatedAt.UTC(),
		CollectedAt: collectedAt.UTC(),
	}
	if a := t.Author; a != nil {
		it.Author = source.Author{Name: a.Name, Username: a.Username, ProfileURL: ProfileURL(a.Username),
			Avatar: a.ProfileImageURL, Description: a.Description, Location: a.Location}
		if a.PublicMetrics != nil {
			it.Author.Followers = source.IntPtr(a.PublicMetrics.FollowersCount)
		}
		it.Content.URL = StatusURL(a.Username, t.ID)
	}
	for _, m := range t.Media {
		sm := source.Media{Type: m.Type, URL: m.URL, PreviewURL: m.PreviewImageURL}
		if sm.URL == "" {
			sm.URL = m.PreviewImageURL // videos and GIFs have only a preview image
		}
		it.Content.Media = append(it.Content.Media, sm)
	}
	return it
}

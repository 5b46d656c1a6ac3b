package pronet

import (
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// Item is the post as a standard search result: the member (or company page) as author, its
// largest picture as avatar, reactions as likes, reposts as shares. Followers stay unknown: a
// post record does not carry them.
func (p Post) Item(collectedAt time.Time) source.Item {
	a := p.Author
	it := source.Item{
		ID:     p.URN,
		Source: SourceName,
		Author: source.Author{
			Name:       strings.TrimSpace(a.FirstName + " " + a.LastName),
			Username:   a.Username,
			ProfileURL: a.URL,
			Avatar:     largest(a.ProfilePictures),
		},
		Content: source.Content{Text: p.Text, URL: p.PostURL, Media: p.media()},
		Engagement: source.Engagement{
			Likes: p.TotalReactionCount, Comments: p.CommentsCount, Shares: &p.RepostsCount,
		},
		PublishedAt: p.PublishedAt(),
		CollectedAt: collectedAt.UTC(),
	}
	// Member profile URLs in the one form the rest of the API uses (no trailing slash).
	if slug, err := ParseProfileURL(a.URL, nil); err == nil {
		it.Author.ProfileURL = ProfileURL(slug)
	} else if a.URL == "" && a.Username != "" && strings.HasPrefix(a.URN, memberURNPrefix) {
		it.Author.ProfileURL = ProfileURL(a.Username)
	}
	return it
}

// PublishedAt is when the post was published: postedDateTimestamp, else postedDate, else the
// time in its activity id.
func (p Post) PublishedAt() time.Time {
	if p.PostedDateTimestamp > 0 {
		return time.UnixMilli(p.PostedDateTimestamp).UTC()
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999 -0700 MST", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, p.PostedDate); err == nil {
			return t.UTC()
		}
	}
	t, _ := ActivityTime(p.URN)
	return t
}

func (p Post) media() []source.Media {
	out := []source.Media{}
	for _, im := range p.Image {
		if im.URL != "" {
			out = append(out, source.Media{Type: "photo", URL: im.URL})
		}
	}
	for _, v := range p.Video {
		if v.URL != "" || v.Poster != "" {
			out = append(out, source.Media{Type: "video", URL: v.URL, PreviewURL: v.Poster})
		}
	}
	if d := p.Document; d.TranscribedDocumentURL != "" || len(d.CoverPages) > 0 {
		m := source.Media{Type: "document", URL: d.TranscribedDocumentURL}
		if len(d.CoverPages) > 0 && len(d.CoverPages[0].ImageURLs) > 0 {
			m.PreviewURL = d.CoverPages[0].ImageURLs[0]
		}
		out = append(out, m)
	}
	return out
}

// largest is the URL of the widest picture.
func largest(pics []Picture) string {
	best, width := "", -1
	for _, p := range pics {
		if p.URL != "" && p.Width > width {
			best, width = p.URL, p.Width
		}
	}
	return best
}

// BooleanQuery writes keywords in the provider's boolean search syntax: any of anyOf, all of
// allOf, none of noneOf, each quoted: ("a" OR "b") AND "c" NOT "d". Quotes inside a keyword are
// dropped, since the syntax has no escape for them.
func BooleanQuery(anyOf, allOf, noneOf []string) string {
	var parts []string
	if len(anyOf) > 0 {
		quoted := make([]string, len(anyOf))
		for i, k := range anyOf {
			quoted[i] = quote(k)
		}
		group := strings.Join(quoted, " OR ")
		if len(quoted) > 1 {
			group = "(" + group + ")"
		}
		parts = append(parts, group)
	}
	for _, k := range allOf {
		parts = append(parts, quote(k))
	}
	out := strings.Join(parts, " AND ")
	for _, k := range noneOf {
		if out == "" {
			out = "NOT " + quote(k)
		} else {
			out += " NOT " + quote(k)
		}
	}
	return out
}

func quote(k string) string {
	return `"` + strings.Join(strings.Fields(strings.ReplaceAll(k, `"`, " ")), " ") + `"`
}

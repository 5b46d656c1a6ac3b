package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source"
)

// items makes realistic microblog results (about 1 KB of JSON each). Item n
// is published later than item n-1 or at the same second (pairs share a
// timestamp, so paging relies on the post-id tie-break), and has the larger
// id, as upstream posts do.
type items struct {
	base        time.Time
	collectedAt time.Time
	texts       []string
}

func newItems(base time.Time) items {
	words := strings.Fields(`shipping a new release of our go service today with faster queries,
		better observability and a cleaner api; thanks to everyone who filed issues and reviewed
		pull requests over the last month #golang #opensource`)
	texts := make([]string, 97)
	for i := range texts {
		var sb strings.Builder
		for j := 0; sb.Len() < 340+i%100; j++ {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[(i*7+j)%len(words)])
		}
		texts[i] = sb.String()
	}
	return items{base: base, collectedAt: base.AddDate(1, 0, 0), texts: texts}
}

// itemID is the post id of item n: 19 digits, so text order is number order.
func itemID(n int) string { return strconv.FormatInt(1_800_000_000_000_000_000+int64(n)*4096, 10) }

func (g items) item(n int) source.Item {
	id := itemID(n)
	user := "user" + strconv.Itoa(n%5000)
	followers, shares := 1000+n%90_000, n%40
	return source.Item{
		ID:     id,
		Source: "microblog",
		Author: source.Author{
			Name:       "Bench User " + strconv.Itoa(n%5000),
			Username:   user,
			ProfileURL: "https://x.com/" + user,
			Avatar:     "https://pbs.twimg.com/profile_images/1790000000000000000/" + user + "_normal.jpg",
			Followers:  &followers,
		},
		Content: source.Content{
			Text: g.texts[n%len(g.texts)],
			URL:  "https://x.com/" + user + "/status/" + id,
			Media: []source.Media{
				{Type: "photo", URL: "https://pbs.twimg.com/media/GbEnch" + strconv.Itoa(n) + "AAAAAA.jpg"},
				{Type: "video", URL: "https://pbs.twimg.com/ext_tw_video_thumb/" + id + "/pu/img/bench.jpg",
					PreviewURL: "https://pbs.twimg.com/ext_tw_video_thumb/" + id + "/pu/img/bench.jpg"},
			},
		},
		Engagement:  source.Engagement{Likes: n % 500, Comments: n % 37, Shares: &shares},
		PublishedAt: g.base.Add(time.Duration(n/2) * time.Second),
	}
}

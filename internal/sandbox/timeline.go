package sandbox

import (
	"slices"
	"time"

	"github.com/trawlhq/trawl/internal/query"
)

const (
	hourMS = int64(time.Hour / time.Millisecond)
	// personalBucket is the slot in which a person posts 0-2 times of their own, so any account
	// has posts every few hours.
	personalBucket = 6 * time.Hour
	// timelineWindow is how far back a timeline reaches when no start_time is given.
	timelineWindow = 30 * 24 * time.Hour
)

// bucketTweets returns the public posts of hour bucket b, newest first.
func (w *World) bucketTweets(b int64) []Tweet {
	out := make([]Tweet, 0, tweetsPerHour)
	for i := 0; i < tweetsPerHour; i++ {
		out = append(out, w.PublicTweet(b, i))
	}
	slices.SortFunc(out, func(a, c Tweet) int { return cmpDesc(a.ID, c.ID) })
	return out
}

func cmpDesc(a, b uint64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// TweetByID finds a public-stream post by id; ok is false for other ids.
func (w *World) TweetByID(id uint64) (Tweet, bool) {
	if idKind(id) != streamPublic {
		return Tweet{}, false
	}
	i := int(idPayload(id) >> 8)
	if i >= tweetsPerHour {
		return Tweet{}, false
	}
	b := tweetIDs.timeOf(id).UnixMilli() / hourMS
	t := w.PublicTweet(b, i)
	return t, t.ID == id
}

// personKey identifies a person's own stream: roster index, or a hash of the username.
func (w *World) personStream(p Person) (kind int, key uint64) {
	if p.Index >= 0 {
		return streamRoster, uint64(p.Index)
	}
	return streamOther, hashString(w.seed, p.MicroblogUsername) & 0xffff
}

// Timeline returns the posts of a person with from <= time < to and time <= now, newest first:
// their own posts (every few hours) and, for roster people, their posts in the public stream.
func (w *World) Timeline(p Person, from, to, now time.Time) []Tweet {
	if to.After(now) {
		to = now.Add(time.Millisecond)
	}
	var out []Tweet
	kind, key := w.personStream(p)
	bucketMS := int64(personalBucket / time.Millisecond)
	for s := from.UnixMilli() / bucketMS; s <= to.UnixMilli()/bucketMS; s++ {
		n := int(hashN(w.seed, 0xa3, key, uint64(kind), uint64(s)) % 3)
		for j := 0; j < n; j++ {
			h := hashN(w.seed, 0xa4, key, uint64(kind), uint64(s), uint64(j))
			r := newRNG(h)
			t := time.UnixMilli(s*bucketMS + int64(r.intn(int(bucketMS)))).UTC()
			if t.Before(from) || !t.Before(to) {
				continue
			}
			id := tweetIDs.mint(t, kind, key<<4|uint64(j))
			// Own posts reply and share less than the public stream does.
			k := w.tweetKind(h)
			if k != kindOriginal && r.chance(0.5) {
				k = kindOriginal
			}
			out = append(out, w.composeTweet(r, h, id, t, p, k, t.UnixMilli()/hourMS))
		}
	}
	if p.Index >= 0 {
		for b := from.UnixMilli() / hourMS; b <= to.UnixMilli()/hourMS; b++ {
			for i := 0; i < tweetsPerHour; i++ {
				if w.publicAuthor(b, i) != p.Index {
					continue
				}
				t := w.PublicTweet(b, i)
				if !t.Time.Before(from) && t.Time.Before(to) {
					out = append(out, t)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, c Tweet) int { return cmpDesc(a.ID, c.ID) })
	return out
}

// QueryPost is what the query matcher sees of a post.
func (t Tweet) QueryPost() query.Post {
	p := query.Post{
		Text:               t.Text,
		Lang:               t.Lang,
		AuthorUsername:     t.Author.MicroblogUsername,
		AuthorVerified:     t.Author.Verified,
		ConversationID:     idString(t.ConvID),
		Hashtags:           t.Hashtags(),
		Mentions:           t.Mentions(),
		ListIDs:            t.Author.ListIDs,
		ContextAnnotations: []string{t.ContextAnnotation()},
	}
	for _, u := range t.URLs {
		p.URLs = append(p.URLs, u.Expanded)
	}
	for _, m := range t.Media {
		p.HasImages = p.HasImages || m.Type == "photo"
		p.HasVideos = p.HasVideos || m.Type == "video"
	}
	if t.HasPlace {
		p.PlaceCountry = t.Author.CountryCode
	}
	switch t.Kind {
	case kindReply:
		p.IsReply, p.InReplyToUsername = true, t.Ref.Author.MicroblogUsername
	case kindRetweet:
		p.IsRetweet, p.RetweetOfUsername = true, t.Ref.Author.MicroblogUsername
	case kindQuote:
		p.IsQuote = true
	}
	return p
}

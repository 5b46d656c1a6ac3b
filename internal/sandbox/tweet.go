package sandbox

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// tweetsPerHour is how many posts the public microblog stream gets in every hour bucket.
const tweetsPerHour = 24

// Tweet kinds.
const (
	kindOriginal = iota
	kindReply
	kindRetweet
	kindQuote
)

// Tweet is a microblog post. Metrics are final values; use Metrics(now) for what is visible.
type Tweet struct {
	ID       uint64
	Time     time.Time
	Author   Person
	Text     string
	Lang     string
	Topic    int
	Kind     int
	Ref      *Tweet // replied-to, retweeted or quoted post (an original of the public stream)
	ConvID   uint64
	URLs     []Link
	Media    []Media
	HasPlace bool
	Source   string
	Final    TweetMetrics
	hash     uint64
}

// Link is a shortened link in a post.
type Link struct{ Short, Expanded, Display string }

// Media is an attached photo or video.
type Media struct {
	Key        string
	Type       string // photo | video
	URL        string
	Width      int
	Height     int
	DurationMS int
}

// TweetMetrics are X's public_metrics.
type TweetMetrics struct {
	Likes, Retweets, Replies, Quotes, Bookmarks, Impressions int
}

// Metrics is what the post shows at now: each count grows towards its final value.
func (t Tweet) Metrics(now time.Time) TweetMetrics {
	f := t.Final
	return TweetMetrics{
		Likes: grown(f.Likes, t.Time, now), Retweets: grown(f.Retweets, t.Time, now),
		Replies: grown(f.Replies, t.Time, now), Quotes: grown(f.Quotes, t.Time, now),
		Bookmarks: grown(f.Bookmarks, t.Time, now), Impressions: grown(f.Impressions, t.Time, now),
	}
}

// Hashtags and Mentions are read back from the text, so entities always agree with it.
func (t Tweet) Hashtags() []string { return scanTokens(t.Text, '#') }

// Mentions are the usernames mentioned in the text.
func (t Tweet) Mentions() []string { return scanTokens(t.Text, '@') }

// ContextAnnotation is the "domain.entity" pair of the post's topic (context: operator).
func (t Tweet) ContextAnnotation() string { return fmt.Sprintf("131.%d", topicEntity(t.Topic)) }

func topicEntity(topic int) int64 { return 1500000000000000000 + int64(topic)*1000 }

// publicAuthor picks the roster author of public post i in hour bucket b; it is cheap so that
// timelines can scan for a person's public posts without generating them.
func (w *World) publicAuthor(b int64, i int) int {
	return int(hashN(w.seed, 0xa1, uint64(b), uint64(i)) % rosterPeople)
}

func (w *World) tweetKind(h uint64) int {
	switch v := mix(h^0x6b696e64) % 100; {
	case v < 70:
		return kindOriginal
	case v < 82:
		return kindReply
	case v < 92:
		return kindRetweet
	default:
		return kindQuote
	}
}

func (w *World) publicHash(b int64, i int) uint64 { return hashN(w.seed, 0xa2, uint64(b), uint64(i)) }

// PublicTweet returns post i (0 ≤ i < tweetsPerHour) of the public stream's hour bucket b (unix hours).
func (w *World) PublicTweet(b int64, i int) Tweet {
	h := w.publicHash(b, i)
	r := newRNG(h)
	t := time.UnixMilli(b*3600000 + int64(r.intn(3600000))).UTC()
	id := tweetIDs.mint(t, streamPublic, uint64(i)<<8|h>>56)
	return w.composeTweet(r, h, id, t, w.people[w.publicAuthor(b, i)], w.tweetKind(h), b)
}

// originalNear finds an original public post 1-24 hours before bucket b to reply to or share.
func (w *World) originalNear(r *rng, b int64) (Tweet, bool) {
	for try := 0; try < 4; try++ {
		rb := b - 1 - int64(r.intn(24))
		ri := r.intn(tweetsPerHour)
		if w.tweetKind(w.publicHash(rb, ri)) == kindOriginal {
			return w.PublicTweet(rb, ri), true
		}
	}
	return Tweet{}, false
}

func (w *World) composeTweet(r *rng, h, id uint64, t time.Time, author Person, kind int, b int64) Tweet {
	tw := Tweet{ID: id, Time: t, Author: author, Kind: kind, ConvID: id, hash: h, Source: pick(r, sources)}
	if kind != kindOriginal {
		ref, ok := w.originalNear(r, b)
		if ok {
			tw.Ref = &ref
		} else {
			tw.Kind = kindOriginal
		}
	}
	tw.Topic = pickTopic(r, author)
	tw.Lang = postLangs[weighted(r, postLangWeights)]
	if tw.Lang != "en" && containsString(author.Languages, "en") && r.chance(0.5) {
		tw.Lang = author.Languages[0]
		if _, ok := foreignSentences[tw.Lang]; !ok {
			tw.Lang = "en"
		}
	}
	likes := r.heavy(7.5)
	tw.Final = TweetMetrics{Likes: likes, Retweets: likes/5 + r.intn(3), Replies: likes/8 + r.intn(3),
		Quotes: likes / 30, Bookmarks: likes / 10, Impressions: likes*40 + 50 + r.intn(500)}
	switch tw.Kind {
	case kindRetweet:
		tw.Topic, tw.Lang = tw.Ref.Topic, tw.Ref.Lang
		tw.Text = "RT @" + tw.Ref.Author.MicroblogUsername + ": " + tw.Ref.Text
		tw.URLs, tw.Media = tw.Ref.URLs, tw.Ref.Media
		tw.Final = TweetMetrics{Retweets: tw.Ref.Final.Retweets}
		return tw
	case kindReply:
		tw.Topic = tw.Ref.Topic
		tw.ConvID = tw.Ref.ConvID
		var sb strings.Builder
		sb.WriteString("@" + tw.Ref.Author.MicroblogUsername + " ")
		if tw.Lang == "en" {
			sb.WriteString(pick(r, replyOpeners) + " ")
		}
		sb.WriteString(w.sentence(r, tw.Topic, tw.Lang))
		tw.Text = sb.String()
		tw.Final = TweetMetrics{Likes: likes / 4, Replies: r.intn(2), Impressions: likes*5 + 20}
		return tw
	}
	var sb strings.Builder
	if tw.Lang == "en" && r.chance(0.25) {
		fmt.Fprintf(&sb, "As a %s at %s: ", author.Title, author.Company.Name)
	}
	sb.WriteString(w.sentence(r, tw.Topic, tw.Lang))
	if r.chance(0.4) {
		tp := topics[tw.Topic]
		fmt.Fprintf(&sb, " We use %s for %s.", pick(r, tp.Tools), pick(r, tp.Keywords))
	}
	if tw.Lang == "en" {
		if c := pick(r, closers); c != "" {
			sb.WriteString(" " + c)
		}
	}
	if r.chance(0.2) {
		m := w.people[r.intn(len(w.people))]
		sb.WriteString(" cc @" + m.MicroblogUsername)
	}
	if r.chance(0.3) {
		c := w.companies[r.intn(len(w.companies))]
		short := "https://t.co/" + shortCode(r)
		exp := fmt.Sprintf("https://%s/blog/%s", c.Domain, strings.ReplaceAll(strings.ToLower(topics[tw.Topic].Name), " ", "-"))
		tw.URLs = []Link{{Short: short, Expanded: exp, Display: strings.TrimPrefix(exp, "https://")}}
		sb.WriteString(" " + short)
	}
	for n := r.intn(3); n > 0; n-- {
		sb.WriteString(" #" + pick(r, topics[tw.Topic].Hashtags))
	}
	tw.Text = dedupeHashtags(sb.String())
	if v := r.intn(100); v < 18 {
		for n := r.between(1, 2); n > 0; n-- {
			key := fmt.Sprintf("3_%d", id+uint64(n))
			tw.Media = append(tw.Media, Media{Key: key, Type: "photo", URL: "https://pbs.twimg.com/media/" + key + ".jpg",
				Width: 1200, Height: 675})
		}
	} else if v < 23 {
		key := fmt.Sprintf("7_%d", id+1)
		tw.Media = []Media{{Key: key, Type: "video", URL: "https://pbs.twimg.com/amplify_video_thumb/" + key + ".jpg",
			Width: 1280, Height: 720, DurationMS: 5000 + r.intn(120000)}}
	}
	tw.HasPlace = r.chance(0.15)
	return tw
}

// sentence is one topical sentence in lang with a keyword of the topic.
func (w *World) sentence(r *rng, topicIdx int, lang string) string {
	tp := topics[topicIdx]
	frame := pick(r, tp.Sentences)
	if fs, ok := foreignSentences[lang]; ok {
		frame = pick(r, fs)
	}
	kw := pick(r, tp.Keywords)
	s := strings.ReplaceAll(frame, "{kw}", kw)
	if strings.HasPrefix(frame, "{kw}") {
		s = strings.ToUpper(kw[:1]) + s[1:]
	}
	return s
}

func pickTopic(r *rng, p Person) int {
	if r.chance(0.7) && len(p.Topics) > 0 {
		return pick(r, p.Topics)
	}
	return weighted(r, topicWeights)
}

func shortCode(r *rng) string {
	const abc = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 10)
	for i := range b {
		b[i] = abc[r.intn(len(abc))]
	}
	return string(b)
}

// dedupeHashtags drops repeated hashtags at the end of a text.
func dedupeHashtags(s string) string {
	words := strings.Split(s, " ")
	seen := map[string]bool{}
	out := words[:0]
	for _, wd := range words {
		if strings.HasPrefix(wd, "#") {
			if seen[wd] {
				continue
			}
			seen[wd] = true
		}
		out = append(out, wd)
	}
	return strings.Join(out, " ")
}

// scanTokens returns the words after each sigil ('#' or '@') in s.
func scanTokens(s string, sigil byte) []string {
	var out []string
	for _, e := range scanEntities(s, sigil) {
		out = append(out, e.Value)
	}
	return out
}

// entity is a hashtag, mention or URL with X's code-point offsets.
type entity struct {
	Start, End int
	Value      string
}

// scanEntities finds sigil-prefixed words (or, with sigil 0, https:// links) with rune offsets.
func scanEntities(s string, sigil byte) []entity {
	var out []entity
	for i := 0; i < len(s); i++ {
		start := i
		var body int
		switch {
		case sigil != 0 && s[i] == sigil && (i == 0 || s[i-1] == ' ' || s[i-1] == '('):
			body = i + 1
		case sigil == 0 && strings.HasPrefix(s[i:], "https://") && (i == 0 || s[i-1] == ' '):
			body = i
		default:
			continue
		}
		j := body
		for j < len(s) && isWordByte(s[j], sigil == 0) {
			j++
		}
		if sigil != 0 && j == body {
			continue
		}
		val := s[body:j]
		if sigil == 0 {
			val = strings.TrimRight(val, ".,")
			j = body + len(val)
		}
		rs := utf8.RuneCountInString(s[:start])
		out = append(out, entity{Start: rs, End: rs + utf8.RuneCountInString(s[start:j]), Value: val})
		i = j
	}
	return out
}

func isWordByte(c byte, url bool) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
		return true
	}
	return url && (c == '/' || c == '.' || c == ':' || c == '-')
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

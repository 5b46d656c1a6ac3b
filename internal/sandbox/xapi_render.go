package sandbox

import (
	"fmt"
	"strings"
	"time"
)

const xTime = "2006-01-02T15:04:05.000Z"

// xRender builds X objects with only the fields a request asked for, and collects includes.
type xRender struct {
	w        *World
	p        xParams
	now      time.Time
	users    []map[string]any
	userSeen map[string]bool
	media    []map[string]any
	mSeen    map[string]bool
	tweets   []map[string]any
	tSeen    map[uint64]bool
	places   []map[string]any
	pSeen    map[string]bool
}

func newXRender(w *World, p xParams, now time.Time) *xRender {
	return &xRender{w: w, p: p, now: now, userSeen: map[string]bool{}, mSeen: map[string]bool{},
		tSeen: map[uint64]bool{}, pSeen: map[string]bool{}}
}

func (x *xRender) tf(name string) bool { return x.p.fields["tweet"][name] }

func placeID(p Person) string {
	return fmt.Sprintf("%016x", mix(uint64(len(p.City))^hashString(0, p.City+p.CountryCode)))
}

// tweet renders t, and queues what the expansions pull into includes.
func (x *xRender) tweet(t Tweet, top bool) map[string]any {
	id := idString(t.ID)
	o := map[string]any{"id": id, "text": t.Text, "edit_history_tweet_ids": []string{id}}
	if x.tf("author_id") {
		o["author_id"] = t.Author.MicroblogID
	}
	if x.tf("created_at") {
		o["created_at"] = t.Time.UTC().Format(xTime)
	}
	if x.tf("conversation_id") {
		o["conversation_id"] = idString(t.ConvID)
	}
	if x.tf("lang") {
		o["lang"] = t.Lang
	}
	if x.tf("source") {
		o["source"] = t.Source
	}
	if x.tf("possibly_sensitive") {
		o["possibly_sensitive"] = false
	}
	if x.tf("reply_settings") {
		o["reply_settings"] = "everyone"
	}
	if x.tf("edit_controls") {
		o["edit_controls"] = map[string]any{"edits_remaining": 5, "is_edit_eligible": t.Kind != kindRetweet,
			"editable_until": t.Time.Add(time.Hour).UTC().Format(xTime)}
	}
	if x.tf("public_metrics") {
		m := t.Metrics(x.now)
		o["public_metrics"] = map[string]any{"retweet_count": m.Retweets, "reply_count": m.Replies,
			"like_count": m.Likes, "quote_count": m.Quotes, "bookmark_count": m.Bookmarks, "impression_count": m.Impressions}
	}
	if x.tf("context_annotations") {
		o["context_annotations"] = []any{map[string]any{
			"domain": map[string]any{"id": "131", "name": "Unified Twitter Taxonomy", "description": "A taxonomy of user interests."},
			"entity": map[string]any{"id": fmt.Sprint(topicEntity(t.Topic)), "name": topics[t.Topic].Name},
		}}
	}
	if t.Ref != nil {
		typ := map[int]string{kindReply: "replied_to", kindRetweet: "retweeted", kindQuote: "quoted"}[t.Kind]
		if x.tf("referenced_tweets") {
			o["referenced_tweets"] = []any{map[string]any{"type": typ, "id": idString(t.Ref.ID)}}
		}
		if t.Kind == kindReply && x.tf("in_reply_to_user_id") {
			o["in_reply_to_user_id"] = t.Ref.Author.MicroblogID
		}
	}
	if x.tf("entities") {
		if e := x.entities(t); len(e) > 0 {
			o["entities"] = e
		}
	}
	if len(t.Media) > 0 && x.tf("attachments") {
		keys := make([]string, len(t.Media))
		for i, m := range t.Media {
			keys[i] = m.Key
		}
		o["attachments"] = map[string]any{"media_keys": keys}
	}
	if t.HasPlace && x.tf("geo") {
		o["geo"] = map[string]any{"place_id": placeID(t.Author)}
	}
	if !top {
		return o
	}
	// Expansions (only for top-level posts, as X does).
	if x.p.expand["author_id"] {
		x.addUser(t.Author)
	}
	if x.p.expand["attachments.media_keys"] {
		for _, m := range t.Media {
			x.addMedia(m)
		}
	}
	if x.p.expand["entities.mentions.username"] {
		for _, u := range t.Mentions() {
			if p, err := x.w.PersonByMicroblog(u); err == nil {
				x.addUser(p)
			}
		}
	}
	if x.p.expand["geo.place_id"] && t.HasPlace {
		x.addPlace(t.Author)
	}
	if t.Ref != nil {
		if x.p.expand["referenced_tweets.id"] && !x.tSeen[t.Ref.ID] {
			x.tSeen[t.Ref.ID] = true
			x.tweets = append(x.tweets, x.tweet(*t.Ref, false))
		}
		if x.p.expand["referenced_tweets.id.author_id"] {
			x.addUser(t.Ref.Author)
		}
		if x.p.expand["in_reply_to_user_id"] && t.Kind == kindReply {
			x.addUser(t.Ref.Author)
		}
	}
	return o
}

func (x *xRender) entities(t Tweet) map[string]any {
	e := map[string]any{}
	var tags, mentions, urls []any
	for _, h := range scanEntities(t.Text, '#') {
		tags = append(tags, map[string]any{"start": h.Start, "end": h.End, "tag": h.Value})
	}
	for _, m := range scanEntities(t.Text, '@') {
		mentions = append(mentions, map[string]any{"start": m.Start, "end": m.End, "username": m.Value, "id": encodeUserID(strings.ToLower(m.Value))})
	}
	for _, u := range scanEntities(t.Text, 0) {
		for _, l := range t.URLs {
			if l.Short == u.Value {
				urls = append(urls, map[string]any{"start": u.Start, "end": u.End, "url": l.Short,
					"expanded_url": l.Expanded, "display_url": l.Display})
			}
		}
	}
	if tags != nil {
		e["hashtags"] = tags
	}
	if mentions != nil {
		e["mentions"] = mentions
	}
	if urls != nil {
		e["urls"] = urls
	}
	return e
}

func (x *xRender) addUser(p Person) {
	if x.userSeen[p.MicroblogID] {
		return
	}
	x.userSeen[p.MicroblogID] = true
	x.users = append(x.users, x.user(p))
}

// user renders a microblog account.
func (x *xRender) user(p Person) map[string]any {
	f := x.p.fields["user"]
	o := map[string]any{"id": p.MicroblogID, "name": p.FullName(), "username": p.MicroblogUsername}
	if f["created_at"] {
		o["created_at"] = time.Date(p.CreatedYear, 1, p.CreatedDay, 9, 30, 0, 0, time.UTC).Format(xTime)
	}
	if f["description"] {
		o["description"] = p.Headline
	}
	if f["location"] {
		o["location"] = p.Location()
	}
	if f["profile_image_url"] {
		o["profile_image_url"] = p.MicroblogAvatar()
	}
	if f["protected"] {
		o["protected"] = false
	}
	if f["url"] {
		o["url"] = p.Company.Website
	}
	if f["verified"] {
		o["verified"] = p.Verified
	}
	if f["verified_type"] {
		o["verified_type"] = map[bool]string{true: "blue", false: "none"}[p.Verified]
	}
	if f["public_metrics"] {
		o["public_metrics"] = map[string]any{"followers_count": p.MicroblogFollowers, "following_count": p.MicroblogFollowing,
			"tweet_count": p.TweetCount, "listed_count": p.MicroblogFollowers / 50, "like_count": p.TweetCount * 3,
			"media_count": p.TweetCount / 10}
	}
	return o
}

func (x *xRender) addMedia(m Media) {
	if x.mSeen[m.Key] {
		return
	}
	x.mSeen[m.Key] = true
	f := x.p.fields["media"]
	o := map[string]any{"media_key": m.Key, "type": m.Type}
	if f["url"] && m.Type == "photo" {
		o["url"] = m.URL
	}
	if f["preview_image_url"] && m.Type == "video" {
		o["preview_image_url"] = m.URL
	}
	if f["width"] {
		o["width"] = m.Width
	}
	if f["height"] {
		o["height"] = m.Height
	}
	if f["duration_ms"] && m.Type == "video" {
		o["duration_ms"] = m.DurationMS
	}
	if f["alt_text"] {
		o["alt_text"] = ""
	}
	if f["variants"] && m.Type == "video" {
		o["variants"] = []any{map[string]any{"bit_rate": 2176000, "content_type": "video/mp4",
			"url": "https://video.twimg.com/amplify_video/" + m.Key + "/vid/1280x720/video.mp4"}}
	}
	if f["public_metrics"] && m.Type == "video" {
		o["public_metrics"] = map[string]any{"view_count": m.DurationMS / 10}
	}
	x.media = append(x.media, o)
}

func (x *xRender) addPlace(p Person) {
	id := placeID(p)
	if x.pSeen[id] {
		return
	}
	x.pSeen[id] = true
	f := x.p.fields["place"]
	o := map[string]any{"id": id, "full_name": p.Location()}
	if f["country"] {
		o["country"] = p.Country
	}
	if f["country_code"] {
		o["country_code"] = p.CountryCode
	}
	if f["name"] {
		o["name"] = p.City
	}
	if f["place_type"] {
		o["place_type"] = "city"
	}
	x.places = append(x.places, o)
}

// includes is the "includes" object, or nil when nothing was expanded.
func (x *xRender) includes() map[string]any {
	inc := map[string]any{}
	if len(x.users) > 0 {
		inc["users"] = x.users
	}
	if len(x.media) > 0 {
		inc["media"] = x.media
	}
	if len(x.tweets) > 0 {
		inc["tweets"] = x.tweets
	}
	if len(x.places) > 0 {
		inc["places"] = x.places
	}
	if len(inc) == 0 {
		return nil
	}
	return inc
}

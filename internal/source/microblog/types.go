package microblog

import "time"

// Tweet is a post as X returns it with the fields Trawl requests, plus the author and media
// joined from the response's includes (nil / empty when X left them out).
type Tweet struct {
	ID               string            `json:"id"`
	Text             string            `json:"text"`
	AuthorID         string            `json:"author_id,omitempty"`
	CreatedAt        time.Time         `json:"created_at"`
	Lang             string            `json:"lang,omitempty"`
	ConversationID   string            `json:"conversation_id,omitempty"`
	InReplyToUserID  string            `json:"in_reply_to_user_id,omitempty"`
	PublicMetrics    TweetMetrics      `json:"public_metrics"`
	Entities         Entities          `json:"entities"`
	ReferencedTweets []ReferencedTweet `json:"referenced_tweets,omitempty"`
	Attachments      Attachments       `json:"attachments"`

	Author *User   `json:"-"`
	Media  []Media `json:"-"`
}

// TweetMetrics are a tweet's public counts.
type TweetMetrics struct {
	RetweetCount    int `json:"retweet_count"`
	ReplyCount      int `json:"reply_count"`
	LikeCount       int `json:"like_count"`
	QuoteCount      int `json:"quote_count"`
	BookmarkCount   int `json:"bookmark_count"`
	ImpressionCount int `json:"impression_count"`
}

// Entities parsed out of a tweet's text.
type Entities struct {
	URLs     []URLEntity     `json:"urls,omitempty"`
	Hashtags []TagEntity     `json:"hashtags,omitempty"`
	Cashtags []TagEntity     `json:"cashtags,omitempty"`
	Mentions []MentionEntity `json:"mentions,omitempty"`
}

// URLEntity is a link in a tweet.
type URLEntity struct {
	Start       int    `json:"start"`
	End         int    `json:"end"`
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url,omitempty"`
	DisplayURL  string `json:"display_url,omitempty"`
	MediaKey    string `json:"media_key,omitempty"`
}

// TagEntity is a hashtag or cashtag (without # or $).
type TagEntity struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Tag   string `json:"tag"`
}

// MentionEntity is an @mention.
type MentionEntity struct {
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Username string `json:"username"`
	ID       string `json:"id,omitempty"`
}

// ReferencedTweet says a tweet retweets (retweeted), quotes (quoted) or answers (replied_to) another.
type ReferencedTweet struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Attachments of a tweet.
type Attachments struct {
	MediaKeys []string `json:"media_keys,omitempty"`
}

// User is an account with the fields Trawl requests.
type User struct {
	ID              string       `json:"id"`
	Name            string       `json:"name"`
	Username        string       `json:"username"`
	ProfileImageURL string       `json:"profile_image_url,omitempty"`
	Verified        bool         `json:"verified"`
	Description     string       `json:"description,omitempty"`
	Location        string       `json:"location,omitempty"`
	PublicMetrics   *UserMetrics `json:"public_metrics,omitempty"`
}

// UserMetrics are an account's public counts.
type UserMetrics struct {
	FollowersCount int `json:"followers_count"`
	FollowingCount int `json:"following_count"`
	TweetCount     int `json:"tweet_count"`
	ListedCount    int `json:"listed_count"`
}

// Media is an attachment from includes.media.
type Media struct {
	MediaKey        string `json:"media_key"`
	Type            string `json:"type"`
	URL             string `json:"url,omitempty"`
	PreviewImageURL string `json:"preview_image_url,omitempty"`
}

// Problem is one of X's error objects (RFC 7807 style), in a top-level error body or in the
// errors array of a 200 answer (partial errors).
type Problem struct {
	Title        string `json:"title"`
	Detail       string `json:"detail"`
	Type         string `json:"type"`
	Status       int    `json:"status,omitempty"`
	ResourceType string `json:"resource_type,omitempty"`
	Parameter    string `json:"parameter,omitempty"`
	Value        string `json:"value,omitempty"`
	Message      string `json:"message,omitempty"`
}

// problemResourceNotFound is the type X gives a lookup of something that does not exist.
const problemResourceNotFound = "https://api.twitter.com/2/problems/resource-not-found"

// tweetsResponse is the body of search and timeline calls.
type tweetsResponse struct {
	Data     []Tweet   `json:"data"`
	Includes includes  `json:"includes"`
	Meta     meta      `json:"meta"`
	Errors   []Problem `json:"errors"`
}

type includes struct {
	Users []User  `json:"users"`
	Media []Media `json:"media"`
}

type meta struct {
	ResultCount int    `json:"result_count"`
	NewestID    string `json:"newest_id"`
	OldestID    string `json:"oldest_id"`
	NextToken   string `json:"next_token"`
}

type userResponse struct {
	Data   *User     `json:"data"`
	Errors []Problem `json:"errors"`
}

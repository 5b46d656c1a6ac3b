package pronet

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Post is the spec's "Pronet post record", field for field, so the API can return it as-is.
// Every field the spec gives is always written: a post without a company, a document or an
// article has them empty (company and document with empty members, article {}), video and
// image are [] when there are none. resharedPost is the one exception: it is written only on
// a reshare, never as an empty stub.
type Post struct {
	Text                string        `json:"text"`
	EntityType          string        `json:"entityType"`
	PostURL             string        `json:"postUrl"`
	PostedAt            string        `json:"postedAt"`
	PostedDate          string        `json:"postedDate"`
	PostedDateTimestamp int64         `json:"postedDateTimestamp"`
	URN                 string        `json:"urn"`
	TotalReactionCount  int           `json:"totalReactionCount"`
	LikeCount           int           `json:"likeCount"`
	EmpathyCount        int           `json:"empathyCount"`
	PraiseCount         int           `json:"praiseCount"`
	AppreciationCount   int           `json:"appreciationCount"`
	InterestCount       int           `json:"InterestCount"`
	FunnyCount          int           `json:"funnyCount"`
	CommentsCount       int           `json:"commentsCount"`
	RepostsCount        int           `json:"repostsCount"`
	Reposted            bool          `json:"reposted"`
	Author              PostAuthor    `json:"author"`
	Company             Company       `json:"company" doc:"The company page that published the post; empty members for a member's post."`
	Article             Object        `json:"article" doc:"The shared link; {} when there is none."`
	Video               List[Video]   `json:"video"`
	Image               List[Image]   `json:"image"`
	Document            Document      `json:"document" doc:"The attached document (carousel); empty members when there is none."`
	ResharedPost        *ResharedPost `json:"resharedPost,omitzero" doc:"The post a reshare shares; only on reshares."`
}

// HasDocument reports whether the post carries a document.
func (p Post) HasDocument() bool {
	d := p.Document
	return d.URN != "" || d.TranscribedDocumentURL != "" || d.ManifestURL != "" || len(d.CoverPages) > 0
}

// List is a JSON array that is [] when empty: the spec gives these fields as arrays, and a
// nil slice would be written as null.
type List[T any] []T

// MarshalJSON writes a nil list as [].
func (l List[T]) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]T(l))
}

// Object is a JSON object whose members the spec leaves open (article, and the author and
// document of a reshared post), passed through untouched; {} when empty.
type Object map[string]any

// MarshalJSON writes a nil object as {}.
func (o Object) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]any(o))
}

// PostAuthor is the author of a post.
type PostAuthor struct {
	ID              int64         `json:"id"`
	FirstName       string        `json:"firstName"`
	LastName        string        `json:"lastName"`
	Headline        string        `json:"headline"`
	Username        string        `json:"username"`
	URL             string        `json:"url"`
	URN             string        `json:"urn"`
	ProfilePictures List[Picture] `json:"profilePictures"`
}

// Picture is one size of a picture.
type Picture struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	URL    string `json:"url"`
}

// Company a post was published by or is about.
type Company struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	URN  string `json:"urn"`
}

// Video attached to a post.
type Video struct {
	URL      string `json:"url"`
	Poster   string `json:"poster"`
	Duration int    `json:"duration"`
}

// Image attached to a post.
type Image struct {
	URL string `json:"url"`
}

// Document (carousel) attached to a post.
type Document struct {
	Title                           string          `json:"title"`
	URN                             string          `json:"urn"`
	TranscribedDocumentURL          string          `json:"TranscribedDocumentUrl"`
	TranscribedDocumentURLExpiresAt int64           `json:"TranscribedDocumentUrlExpiresAt"`
	ManifestURL                     string          `json:"manifestUrl"`
	ManifestURLExpiresAt            int64           `json:"manifestUrlExpiresAt"`
	ScanRequiredForDownload         bool            `json:"scanRequiredForDownload"`
	TotalPageCount                  int             `json:"totalPageCount"`
	CoverPages                      List[CoverPage] `json:"coverPages"`
}

// CoverPage of a document.
type CoverPage struct {
	Width     int          `json:"width"`
	Height    int          `json:"height"`
	ImageURLs List[string] `json:"imageUrls"`
}

// ResharedPost is the post a repost shares. The spec does not fix the inner fields of its
// author, document and article, so they pass through untouched. Every member is written.
type ResharedPost struct {
	Text     string          `json:"text"`
	Author   Object          `json:"author"`
	Company  ResharedCompany `json:"company"`
	Document Object          `json:"document"`
	Article  Object          `json:"article"`
	Video    List[Video]     `json:"video"`
	Image    List[Image]     `json:"image"`
}

// IsZero reports whether r shares nothing: providers send an empty resharedPost on posts
// that are not reshares, and records stored before it was left out carry {"text": ""}. The
// post then has no resharedPost (omitzero).
func (r *ResharedPost) IsZero() bool {
	if r == nil {
		return true
	}
	c := r.Company
	return r.Text == "" && len(r.Author) == 0 && len(r.Document) == 0 && len(r.Article) == 0 &&
		len(r.Video) == 0 && len(r.Image) == 0 && c.Name == "" && c.URL == "" && c.URN == "" && len(c.CompanyLogo) == 0
}

// ResharedCompany is the company of a reshared post, with its logo.
type ResharedCompany struct {
	Name        string        `json:"name"`
	URL         string        `json:"url"`
	URN         string        `json:"urn"`
	CompanyLogo List[Picture] `json:"companyLogo"`
}

// Comment is the spec's "Company post comment". Replies carry the same fields without threadUrn,
// and their author has no id.
type Comment struct {
	IsPinned                  bool           `json:"isPinned"`
	IsEdited                  bool           `json:"isEdited"`
	ThreadURN                 string         `json:"threadUrn,omitempty"`
	URN                       string         `json:"urn"`
	CreatedAt                 int64          `json:"createdAt"`
	CreatedAtString           string         `json:"createdAtString"`
	Permalink                 string         `json:"permalink"`
	Text                      string         `json:"text"`
	Author                    CommentAuthor  `json:"author"`
	TotalSocialActivityCounts ActivityCounts `json:"totalSocialActivityCounts"`
	Replies                   List[Comment]  `json:"replies"`
}

// CommentAuthor is the author of a comment or reply.
type CommentAuthor struct {
	Name      string `json:"name"`
	URN       string `json:"urn"`
	ID        string `json:"id,omitempty"`
	Username  string `json:"username"`
	PronetURL string `json:"pronetUrl"`
	Title     string `json:"title"`
}

// ActivityCounts of a comment.
type ActivityCounts struct {
	NumComments        int `json:"numComments"`
	LikeCount          int `json:"likeCount"`
	AppreciationCount  int `json:"appreciationCount"`
	EmpathyCount       int `json:"empathyCount"`
	InterestCount      int `json:"InterestCount"`
	PraiseCount        int `json:"praiseCount"`
	FunnyCount         int `json:"funnyCount"`
	MaybeCount         int `json:"maybeCount"`
	TotalReactionCount int `json:"totalReactionCount"`
	NumShares          int `json:"numShares"`
}

// CommentsPage is one page of a post's comments, in the API's response shape.
type CommentsPage struct {
	Comments    List[Comment] `json:"comments"`
	Total       int           `json:"total"`
	TotalPage   int           `json:"totalPage"`
	CurrentPage int           `json:"currentPage"`
}

// Reaction types a Reactor can have.
const (
	ReactionLike          = "LIKE"
	ReactionPraise        = "PRAISE"
	ReactionEmpathy       = "EMPATHY"
	ReactionInterest      = "INTEREST"
	ReactionAppreciation  = "APPRECIATION"
	ReactionEntertainment = "ENTERTAINMENT"
)

// Reactor is a person who reacted to a post.
type Reactor struct {
	URN            string `json:"urn"`
	Username       string `json:"username"`
	FullName       string `json:"fullName"`
	Headline       string `json:"headline"`
	ProfileURL     string `json:"profileUrl"`
	ProfilePicture string `json:"profilePicture"`
	ReactionType   string `json:"reactionType"`
}

// ReactionsPage is one page of a post's reactors.
type ReactionsPage struct {
	Items       []Reactor `json:"items"`
	Total       int       `json:"total"`
	TotalPage   int       `json:"totalPage"`
	CurrentPage int       `json:"currentPage"`
}

// SearchPage is one page of a post search.
type SearchPage struct {
	Items       []Post `json:"items"`
	Total       int    `json:"total"`
	TotalPage   int    `json:"totalPage"`
	CurrentPage int    `json:"currentPage"`
}

// Profile is a member profile as the provider contract describes it.
type Profile struct {
	ID              MemberID   `json:"id"`
	URN             string     `json:"urn"`
	Username        string     `json:"username"`
	FirstName       string     `json:"firstName"`
	LastName        string     `json:"lastName"`
	Headline        string     `json:"headline"`
	Summary         string     `json:"summary"`
	ProfilePicture  string     `json:"profilePicture"`
	IsOpenToWork    bool       `json:"isOpenToWork"`
	IsPremium       bool       `json:"isPremium"`
	IsCreator       bool       `json:"isCreator"`
	FollowerCount   int        `json:"followerCount"`
	ConnectionCount int        `json:"connectionCount"`
	Languages       []string   `json:"languages"`
	Geo             Geo        `json:"geo"`
	Position        []Position `json:"position"`
}

// Geo is where a member is.
type Geo struct {
	Country     string `json:"country"`
	CountryCode string `json:"countryCode"`
	City        string `json:"city"`
	Full        string `json:"full"`
}

// Position is one job of a member; the current one comes first and has End {0, 0}.
type Position struct {
	CompanyName            string    `json:"companyName"`
	CompanyUsername        string    `json:"companyUsername"`
	CompanyIndustry        string    `json:"companyIndustry"`
	CompanyStaffCountRange string    `json:"companyStaffCountRange"`
	CompanyLogo            string    `json:"companyLogo"`
	CompanyWebsite         string    `json:"companyWebsite"`
	Title                  string    `json:"title"`
	Location               string    `json:"location"`
	Start                  YearMonth `json:"start"`
	End                    YearMonth `json:"end"`
}

// YearMonth is a month; {0, 0} means none (an ongoing position).
type YearMonth struct {
	Year  int `json:"year"`
	Month int `json:"month"`
}

// IsZero reports whether ym is unset.
func (ym YearMonth) IsZero() bool { return ym.Year == 0 }

// String formats ym as YYYY-MM (YYYY when the month is unknown, "" when unset).
func (ym YearMonth) String() string {
	switch {
	case ym.Year == 0:
		return ""
	case ym.Month < 1 || ym.Month > 12:
		return fmt.Sprintf("%04d", ym.Year)
	default:
		return fmt.Sprintf("%04d-%02d", ym.Year, ym.Month)
	}
}

// MemberID is a member's numeric id. The contract does not say whether providers send it as a
// number or a string, so both are read; it is written as a number.
type MemberID int64

// UnmarshalJSON accepts 123, "123", "" and null.
func (id *MemberID) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" || s == `""` {
		*id = 0
		return nil
	}
	if len(s) >= 2 && s[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return fmt.Errorf("pronet: member id: %w", err)
		}
		s = str
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("pronet: member id %q: %w", s, err)
	}
	*id = MemberID(n)
	return nil
}

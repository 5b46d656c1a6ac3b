package harvestapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// ErrNoID is wrapped when an item decodes but carries no identifier: a list skips it, a
// single answer means the vendor found nothing.
var ErrNoID = errors.New("item has no id")

// vPicture is one of the vendor's sized pictures (avatar, postImages, picture).
type vPicture struct {
	URL    str `json:"url"`
	Width  num `json:"width"`
	Height num `json:"height"`
}

type vAuthor struct {
	ID               str       `json:"id"`
	UniversalName    str       `json:"universalName"`
	PublicIdentifier str       `json:"publicIdentifier"`
	Type             str       `json:"type"`
	Name             str       `json:"name"`
	LinkedinURL      str       `json:"linkedinUrl"`
	Info             str       `json:"info"`
	Avatar           *vPicture `json:"avatar"`
}

type vArticle struct {
	Title       str `json:"title"`
	Subtitle    str `json:"subtitle"`
	Link        str `json:"link"`
	LinkLabel   str `json:"linkLabel"`
	Description str `json:"description"`
	Image       str `json:"image"`
}

// vPostedAt is {timestamp, date, postedAgoShort, postedAgoText}; a bare date string is read too.
type vPostedAt struct {
	Timestamp num `json:"timestamp"`
	Date      str `json:"date"`
	AgoShort  str `json:"postedAgoShort"`
}

func (p *vPostedAt) UnmarshalJSON(b []byte) error {
	var s str
	if err := json.Unmarshal(b, &s); err == nil {
		*p = vPostedAt{Date: s}
		return nil
	}
	type plain vPostedAt
	return json.Unmarshal(b, (*plain)(p))
}

type vVideo struct {
	VideoURL     str `json:"videoUrl"`
	ThumbnailURL str `json:"thumbnailUrl"`
	Duration     num `json:"duration"`
}

type vDocument struct {
	Title          str               `json:"title"`
	URN            str               `json:"urn"`
	URL            str               `json:"url"`
	Transcribed    str               `json:"transcribedDocumentUrl"`
	TotalPageCount num               `json:"totalPageCount"`
	CoverPages     []json.RawMessage `json:"coverPages"`
}

type vCount struct {
	Type  str `json:"type"`
	Count num `json:"count"`
}

type vEngagement struct {
	Likes     num      `json:"likes"`
	Comments  num      `json:"comments"`
	Shares    num      `json:"shares"`
	Reactions []vCount `json:"reactions"`
}

// vPost is the vendor's PostShort: the items of post-search, profile-posts, company-posts and
// the element of post.
type vPost struct {
	ID          str          `json:"id"`
	LinkedinURL str          `json:"linkedinUrl"`
	Content     str          `json:"content"`
	Author      vAuthor      `json:"author"`
	Article     *vArticle    `json:"article"`
	PostedAt    vPostedAt    `json:"postedAt"`
	PostImages  []vPicture   `json:"postImages"`
	PostVideo   *vVideo      `json:"postVideo"`
	Document    *vDocument   `json:"document"`
	RepostID    str          `json:"repostId"`
	Repost      *vPost       `json:"repost"`
	Engagement  *vEngagement `json:"engagement"`
}

// PostFromItem translates one vendor post (PostShort) into a contract post record.
func PostFromItem(raw json.RawMessage) (pronet.Post, error) {
	var v vPost
	if err := json.Unmarshal(raw, &v); err != nil {
		return pronet.Post{}, fmt.Errorf("harvestapi: post item: %w", err)
	}
	urn := activityID(string(v.ID))
	if urn == "" {
		urn = activityID(string(v.LinkedinURL))
	}
	if urn == "" {
		return pronet.Post{}, fmt.Errorf("harvestapi: post item: %w", ErrNoID)
	}
	p := pronet.Post{
		Text:       string(v.Content),
		EntityType: "post",
		PostURL:    postURL(urn),
		PostedAt:   string(v.PostedAt.AgoShort),
		URN:        urn,
		Author:     postAuthor(v.Author),
		Article:    article(v.Article),
		Video:      video(v.PostVideo),
		Image:      images(v.PostImages),
		Document:   document(v.Document),
		Reposted:   v.Repost != nil || v.RepostID != "",
	}
	if t, ok := postedTime(v.PostedAt); ok {
		p.PostedDateTimestamp = t.UnixMilli()
		p.PostedDate = t.Format(postedDateLayout)
	} else if v.PostedAt.Date != "" {
		p.PostedDate = string(v.PostedAt.Date)
	}
	if v.Author.isCompany() {
		p.Company = pronet.Company{Name: string(v.Author.Name), URL: p.Author.URL, URN: p.Author.URN}
	}
	if e := v.Engagement; e != nil {
		p.CommentsCount = int(e.Comments)
		p.RepostsCount = int(e.Shares)
		sum := 0
		byType := reactionCounters{&p.LikeCount, &p.PraiseCount, &p.EmpathyCount, &p.InterestCount, &p.AppreciationCount, &p.FunnyCount}
		for _, r := range e.Reactions {
			sum += int(r.Count)
			byType.add(string(r.Type), int(r.Count))
		}
		// likes is every reaction at the vendor; the breakdown fills in when it is missing.
		p.TotalReactionCount = max(int(e.Likes), sum)
	}
	if v.Repost != nil {
		p.ResharedPost = reshared(*v.Repost)
	}
	return p, nil
}

// postURL is the post's canonical URL, as the contract gives it. The vendor's linkedinUrl is
// often the share form (/posts/<author>_<words>-activity-<id>-<suffix>), an alias of the same
// post: the canonical one keeps a post's URL (a result's content.url, a workflow's post_url)
// the same whichever provider read it.
func postURL(urn string) string {
	return "https://www.linkedin.com/feed/update/urn:li:activity:" + urn + "/"
}

// postedDateLayout is the contract's postedDate as the sandbox writes it.
const postedDateLayout = "2006-01-02T15:04:05.000Z"

func postedTime(p vPostedAt) (time.Time, bool) {
	if p.Timestamp > 0 {
		ms := int64(p.Timestamp)
		if ms < 1e11 { // seconds, not milliseconds
			ms *= 1000
		}
		return time.UnixMilli(ms).UTC(), true
	}
	return parseTime(string(p.Date))
}

func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999 -0700 MST", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func (a vAuthor) isCompany() bool {
	return strings.EqualFold(string(a.Type), "company") || (a.UniversalName != "" && a.PublicIdentifier == "")
}

// postAuthor fills the contract's author; a company page is its own author, as in the
// contract (first name = the page's name, username = its universal name).
func postAuthor(a vAuthor) pronet.PostAuthor {
	out := pronet.PostAuthor{Headline: string(a.Info)}
	if a.Avatar != nil && a.Avatar.URL != "" {
		out.ProfilePictures = pronet.List[pronet.Picture]{{Width: int(a.Avatar.Width), Height: int(a.Avatar.Height), URL: string(a.Avatar.URL)}}
	}
	if a.isCompany() {
		slug := string(a.UniversalName)
		if slug == "" {
			_, slug = slugOf(string(a.LinkedinURL))
		}
		out.FirstName, out.Username = string(a.Name), slug
		if slug != "" {
			out.URL = companyURL(slug)
		}
		if id := string(a.ID); isDigits(id) {
			out.ID, _ = strconv.ParseInt(id, 10, 64)
			out.URN = "urn:li:company:" + id
		}
		return out
	}
	out.FirstName, out.LastName = splitName(string(a.Name))
	out.Username = string(a.PublicIdentifier)
	if out.Username == "" {
		if kind, slug := slugOf(string(a.LinkedinURL)); kind == "in" {
			out.Username = slug
		}
	}
	if out.Username != "" {
		out.URL = pronet.ProfileURL(out.Username)
	}
	id := string(a.ID)
	if id == "" {
		id = miniProfileID(string(a.LinkedinURL))
	}
	out.URN = ProfileURN(id)
	if isDigits(id) {
		out.ID, _ = strconv.ParseInt(id, 10, 64)
	}
	return out
}

func article(a *vArticle) pronet.Object {
	if a == nil {
		return nil
	}
	o := pronet.Object{}
	for k, v := range map[string]str{"title": a.Title, "subtitle": a.Subtitle, "link": a.Link,
		"linkLabel": a.LinkLabel, "description": a.Description, "image": a.Image} {
		if v != "" {
			o[k] = string(v)
		}
	}
	if len(o) == 0 {
		return nil
	}
	return o
}

func video(v *vVideo) pronet.List[pronet.Video] {
	if v == nil || v.VideoURL == "" {
		return nil
	}
	return pronet.List[pronet.Video]{{URL: string(v.VideoURL), Poster: string(v.ThumbnailURL), Duration: int(v.Duration)}}
}

func images(pics []vPicture) pronet.List[pronet.Image] {
	var out pronet.List[pronet.Image]
	for _, p := range pics {
		if p.URL != "" {
			out = append(out, pronet.Image{URL: string(p.URL)})
		}
	}
	return out
}

func document(d *vDocument) pronet.Document {
	if d == nil {
		return pronet.Document{}
	}
	out := pronet.Document{Title: string(d.Title), URN: string(d.URN), TranscribedDocumentURL: string(d.Transcribed),
		TotalPageCount: int(d.TotalPageCount)}
	if out.TranscribedDocumentURL == "" {
		out.TranscribedDocumentURL = string(d.URL)
	}
	for _, raw := range d.CoverPages {
		var u str
		if json.Unmarshal(raw, &u) == nil {
			if u != "" {
				out.CoverPages = append(out.CoverPages, pronet.CoverPage{ImageURLs: pronet.List[string]{string(u)}})
			}
			continue
		}
		var c struct {
			Width     num   `json:"width"`
			Height    num   `json:"height"`
			URL       str   `json:"url"`
			ImageURLs []str `json:"imageUrls"`
		}
		if json.Unmarshal(raw, &c) != nil {
			continue
		}
		cp := pronet.CoverPage{Width: int(c.Width), Height: int(c.Height)}
		for _, u := range append([]str{c.URL}, c.ImageURLs...) {
			if u != "" {
				cp.ImageURLs = append(cp.ImageURLs, string(u))
			}
		}
		if len(cp.ImageURLs) > 0 {
			out.CoverPages = append(out.CoverPages, cp)
		}
	}
	return out
}

// reshared is the shared post of a repost; its author passes through as an open object.
func reshared(v vPost) *pronet.ResharedPost {
	a := postAuthor(v.Author)
	author := pronet.Object{}
	for k, val := range map[string]string{"name": string(v.Author.Name), "username": a.Username, "url": a.URL,
		"urn": a.URN, "headline": string(v.Author.Info), "type": string(v.Author.Type)} {
		if val != "" {
			author[k] = val
		}
	}
	r := &pronet.ResharedPost{Text: string(v.Content), Author: author, Article: article(v.Article),
		Video: video(v.PostVideo), Image: images(v.PostImages)}
	if v.Author.isCompany() {
		r.Company = pronet.ResharedCompany{Name: string(v.Author.Name), URL: a.URL, URN: a.URN, CompanyLogo: a.ProfilePictures}
	}
	if d := document(v.Document); d.Title != "" || d.TranscribedDocumentURL != "" {
		r.Document = pronet.Object{"title": d.Title, "url": d.TranscribedDocumentURL, "totalPageCount": d.TotalPageCount}
	}
	if r.IsZero() {
		return nil
	}
	return r
}

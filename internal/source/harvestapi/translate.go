package harvestapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
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
		PostURL:    string(v.LinkedinURL),
		PostedAt:   string(v.PostedAt.AgoShort),
		URN:        urn,
		Author:     postAuthor(v.Author),
		Article:    article(v.Article),
		Video:      video(v.PostVideo),
		Image:      images(v.PostImages),
		Document:   document(v.Document),
		Reposted:   v.Repost != nil || v.RepostID != "",
	}
	if p.PostURL == "" {
		p.PostURL = "https://www.linkedin.com/feed/update/urn:li:activity:" + urn + "/"
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

type vActor struct {
	ID               str       `json:"id"`
	Name             str       `json:"name"`
	LinkedinURL      str       `json:"linkedinUrl"`
	Position         str       `json:"position"`
	PictureURL       str       `json:"pictureUrl"`
	Picture          *vPicture `json:"picture"`
	Image            *vPicture `json:"image"`
	UniversalName    str       `json:"universalName"`
	PublicIdentifier str       `json:"publicIdentifier"`
	Type             str       `json:"type"`
}

// username and canonical URL of an actor: a member's public identifier (or the slug of its
// URL, which for reactors is often the ACoA… id) or a company's universal name.
func (a vActor) identity() (username, pageURL string) {
	kind, slug := slugOf(string(a.LinkedinURL))
	switch {
	case strings.EqualFold(string(a.Type), "company") || kind == "company":
		if a.UniversalName != "" {
			slug = string(a.UniversalName)
		}
		if slug == "" {
			return "", string(a.LinkedinURL)
		}
		return slug, companyURL(slug)
	case a.PublicIdentifier != "":
		slug = string(a.PublicIdentifier)
	}
	if slug == "" {
		return "", string(a.LinkedinURL)
	}
	return slug, pronet.ProfileURL(slug)
}

func (a vActor) picture() string {
	if a.PictureURL != "" {
		return string(a.PictureURL)
	}
	for _, p := range []*vPicture{a.Picture, a.Image} {
		if p != nil && p.URL != "" {
			return string(p.URL)
		}
	}
	return ""
}

type vComment struct {
	ID                 str               `json:"id"`
	LinkedinURL        str               `json:"linkedinUrl"`
	Commentary         str               `json:"commentary"`
	CreatedAt          str               `json:"createdAt"`
	CreatedAtTimestamp num               `json:"createdAtTimestamp"`
	PostID             str               `json:"postId"`
	Actor              vActor            `json:"actor"`
	Replies            []json.RawMessage `json:"replies"`
	Pinned             flag              `json:"pinned"`
	Edited             flag              `json:"edited"`
	NumComments        num               `json:"numComments"`
	NumShares          num               `json:"numShares"`
	ReactionTypeCounts []vCount          `json:"reactionTypeCounts"`
}

// CommentFromItem translates one vendor comment (PostComment) and its replies into a contract
// comment record. Replies that fail to decode are left out.
func CommentFromItem(raw json.RawMessage) (pronet.Comment, error) {
	return commentFromItem(raw, "", true)
}

func commentFromItem(raw json.RawMessage, postURN string, top bool) (pronet.Comment, error) {
	var v vComment
	if err := json.Unmarshal(raw, &v); err != nil {
		return pronet.Comment{}, fmt.Errorf("harvestapi: comment item: %w", err)
	}
	id := string(v.ID)
	if id == "" {
		return pronet.Comment{}, fmt.Errorf("harvestapi: comment item: %w", ErrNoID)
	}
	if p := activityID(string(v.PostID)); p != "" {
		postURN = p
	}
	c := pronet.Comment{
		IsPinned:        bool(v.Pinned),
		IsEdited:        bool(v.Edited),
		URN:             id,
		CreatedAtString: string(v.CreatedAt),
		Permalink:       string(v.LinkedinURL),
		Text:            string(v.Commentary),
		Replies:         pronet.List[pronet.Comment]{},
	}
	if !strings.HasPrefix(id, "urn:") && postURN != "" {
		// The contract's comment URNs, as the sandbox writes them.
		c.URN = fmt.Sprintf("urn:li:comment:(activity:%s,%s)", postURN, id)
		if top {
			c.ThreadURN = fmt.Sprintf("urn:li:comment:(urn:li:activity:%s,%s)", postURN, id)
		}
	}
	if v.CreatedAtTimestamp > 0 {
		c.CreatedAt = int64(v.CreatedAtTimestamp)
	} else if t, ok := parseTime(string(v.CreatedAt)); ok {
		c.CreatedAt = t.UnixMilli()
	}
	if c.CreatedAtString == "" && c.CreatedAt > 0 {
		c.CreatedAtString = time.UnixMilli(c.CreatedAt).UTC().Format(postedDateLayout)
	}
	username, pageURL := v.Actor.identity()
	c.Author = pronet.CommentAuthor{Name: string(v.Actor.Name), URN: ProfileURN(string(v.Actor.ID)), Username: username,
		PronetURL: pageURL, Title: string(v.Actor.Position)}
	if top {
		c.Author.ID = string(v.Actor.ID)
	}
	counts := &c.TotalSocialActivityCounts
	counts.NumComments, counts.NumShares = int(v.NumComments), int(v.NumShares)
	byType := reactionCounters{&counts.LikeCount, &counts.PraiseCount, &counts.EmpathyCount, &counts.InterestCount, &counts.AppreciationCount, &counts.FunnyCount}
	for _, r := range v.ReactionTypeCounts {
		counts.TotalReactionCount += int(r.Count)
		byType.add(string(r.Type), int(r.Count))
	}
	for _, r := range v.Replies {
		reply, err := commentFromItem(r, postURN, false)
		if err != nil {
			continue
		}
		c.Replies = append(c.Replies, reply)
	}
	if n := len(c.Replies); n > counts.NumComments {
		counts.NumComments = n
	}
	return c, nil
}

type vReaction struct {
	ID           str    `json:"id"`
	ReactionType str    `json:"reactionType"`
	PostID       str    `json:"postId"`
	Actor        vActor `json:"actor"`
}

// ReactorFromItem translates one vendor reaction (PostReaction) into a contract reactor.
func ReactorFromItem(raw json.RawMessage) (pronet.Reactor, error) {
	var v vReaction
	if err := json.Unmarshal(raw, &v); err != nil {
		return pronet.Reactor{}, fmt.Errorf("harvestapi: reaction item: %w", err)
	}
	id := string(v.Actor.ID)
	if id == "" {
		id = reactionActorID(string(v.ID))
	}
	if id == "" {
		return pronet.Reactor{}, fmt.Errorf("harvestapi: reaction item: %w", ErrNoID)
	}
	username, pageURL := v.Actor.identity()
	return pronet.Reactor{URN: ProfileURN(id), Username: username, FullName: string(v.Actor.Name),
		Headline: string(v.Actor.Position), ProfileURL: pageURL, ProfilePicture: v.Actor.picture(),
		ReactionType: reactionType(string(v.ReactionType))}, nil
}

type vDate struct {
	Text  str `json:"text"`
	Month str `json:"month"`
	Year  num `json:"year"`
}

type vExperience struct {
	CompanyName   str    `json:"companyName"`
	CompanyID     str    `json:"companyId"`
	CompanyLink   str    `json:"companyLink"`
	CompanyUnique str    `json:"companyUniversalName"`
	Logo          str    `json:"logo"`
	CompanyLogo   str    `json:"companyLogo"`
	Position      str    `json:"position"`
	Title         str    `json:"title"`
	Location      str    `json:"location"`
	StartDate     *vDate `json:"startDate"`
	EndDate       *vDate `json:"endDate"`
}

type vLanguage struct {
	Name str
}

func (l *vLanguage) UnmarshalJSON(b []byte) error {
	var s str
	if json.Unmarshal(b, &s) == nil {
		l.Name = s
		return nil
	}
	var o struct {
		Language str `json:"language"`
		Name     str `json:"name"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	l.Name = o.Language
	if l.Name == "" {
		l.Name = o.Name
	}
	return nil
}

type vProfile struct {
	ID               str  `json:"id"`
	ObjectURN        str  `json:"objectUrn"`
	PublicIdentifier str  `json:"publicIdentifier"`
	FirstName        str  `json:"firstName"`
	LastName         str  `json:"lastName"`
	Headline         str  `json:"headline"`
	About            str  `json:"about"`
	LinkedinURL      str  `json:"linkedinUrl"`
	Photo            str  `json:"photo"`
	OpenToWork       flag `json:"openToWork"`
	Premium          flag `json:"premium"`
	Influencer       flag `json:"influencer"`
	Creator          flag `json:"creator"`
	FollowerCount    num  `json:"followerCount"`
	ConnectionsCount num  `json:"connectionsCount"`
	Location         *struct {
		LinkedinText str `json:"linkedinText"`
		CountryCode  str `json:"countryCode"`
		Parsed       *struct {
			Text        str `json:"text"`
			CountryCode str `json:"countryCode"`
			Country     str `json:"country"`
			CountryFull str `json:"countryFull"`
			City        str `json:"city"`
		} `json:"parsed"`
	} `json:"location"`
	Experience []json.RawMessage `json:"experience"`
	Languages  []json.RawMessage `json:"languages"`
}

// ProfileFromItem translates the vendor's Profile into a contract profile. Positions come from
// experience, current ones (no end date) first with End {0, 0}.
func ProfileFromItem(raw json.RawMessage) (pronet.Profile, error) {
	var v vProfile
	if err := json.Unmarshal(raw, &v); err != nil {
		return pronet.Profile{}, fmt.Errorf("harvestapi: profile item: %w", err)
	}
	username := string(v.PublicIdentifier)
	if username == "" {
		if kind, slug := slugOf(string(v.LinkedinURL)); kind == "in" {
			username = slug
		}
	}
	if v.ID == "" && username == "" {
		return pronet.Profile{}, fmt.Errorf("harvestapi: profile item: %w", ErrNoID)
	}
	p := pronet.Profile{
		URN: ProfileURN(string(v.ID)), Username: username, FirstName: string(v.FirstName), LastName: string(v.LastName),
		Headline: string(v.Headline), Summary: string(v.About), ProfilePicture: string(v.Photo),
		IsOpenToWork: bool(v.OpenToWork), IsPremium: bool(v.Premium), IsCreator: bool(v.Creator || v.Influencer),
		FollowerCount: int(v.FollowerCount), ConnectionCount: int(v.ConnectionsCount),
		Languages: []string{}, Position: []pronet.Position{},
	}
	if id := string(v.ID); isDigits(id) {
		n, _ := strconv.ParseInt(id, 10, 64)
		p.ID = pronet.MemberID(n)
	} else if m, ok := strings.CutPrefix(string(v.ObjectURN), "urn:li:member:"); ok && isDigits(m) {
		n, _ := strconv.ParseInt(m, 10, 64)
		p.ID = pronet.MemberID(n)
	}
	if l := v.Location; l != nil {
		p.Geo = pronet.Geo{CountryCode: strings.ToUpper(string(l.CountryCode)), Full: string(l.LinkedinText)}
		if pp := l.Parsed; pp != nil {
			p.Geo.City = string(pp.City)
			p.Geo.Country = string(pp.Country)
			if p.Geo.Country == "" {
				p.Geo.Country = string(pp.CountryFull)
			}
			if pp.CountryCode != "" {
				p.Geo.CountryCode = strings.ToUpper(string(pp.CountryCode))
			}
			if pp.Text != "" {
				p.Geo.Full = string(pp.Text)
			}
		}
	}
	for _, raw := range v.Languages {
		var l vLanguage
		if json.Unmarshal(raw, &l) == nil && l.Name != "" {
			p.Languages = append(p.Languages, string(l.Name))
		}
	}
	var current, past []pronet.Position
	for _, raw := range v.Experience {
		var e vExperience
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		pos := pronet.Position{CompanyName: string(e.CompanyName), Title: string(e.Position), Location: string(e.Location),
			CompanyLogo: string(e.Logo), CompanyUsername: string(e.CompanyUnique)}
		if pos.Title == "" {
			pos.Title = string(e.Title)
		}
		if pos.CompanyLogo == "" {
			pos.CompanyLogo = string(e.CompanyLogo)
		}
		if kind, slug := slugOf(string(e.CompanyLink)); pos.CompanyUsername == "" && kind == "company" {
			pos.CompanyUsername = slug
		}
		pos.Start = yearMonth(e.StartDate)
		end := yearMonth(e.EndDate)
		if e.EndDate == nil || end.IsZero() || strings.Contains(strings.ToLower(string(e.EndDate.Text)), "present") {
			current = append(current, pos) // End stays {0, 0}
			continue
		}
		pos.End = end
		past = append(past, pos)
	}
	p.Position = append(append(p.Position, current...), past...)
	return p, nil
}

var months = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// yearMonth reads {year, month} where month is "Jan", "January" or "1"; a bare text such as
// "Mar 2021" or "2019" is read when the parts are missing.
func yearMonth(d *vDate) pronet.YearMonth {
	if d == nil {
		return pronet.YearMonth{}
	}
	ym := pronet.YearMonth{Year: int(d.Year), Month: monthNumber(string(d.Month))}
	if ym.Year == 0 {
		for _, f := range strings.Fields(string(d.Text)) {
			if n, err := strconv.Atoi(f); err == nil && n > 1900 && n < 3000 {
				ym.Year = n
			} else if ym.Month == 0 {
				ym.Month = monthNumber(f)
			}
		}
	}
	if ym.Year == 0 {
		return pronet.YearMonth{}
	}
	return ym
}

func monthNumber(s string) int {
	s = strings.ToLower(strings.TrimSpace(s))
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= 12 {
		return n
	}
	if len(s) >= 3 {
		if i := slices.Index(months, s[:3]); i >= 0 {
			return i + 1
		}
	}
	return 0
}

// reactionType maps the vendor's reaction names (LinkedIn's internal ones, or the names the
// site shows) onto the contract's six; anything else counts as a LIKE.
func reactionType(s string) string {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "PRAISE", "CELEBRATE":
		return pronet.ReactionPraise
	case "EMPATHY", "LOVE":
		return pronet.ReactionEmpathy
	case "INTEREST", "INSIGHTFUL", "CURIOUS", "MAYBE":
		return pronet.ReactionInterest
	case "APPRECIATION", "SUPPORT":
		return pronet.ReactionAppreciation
	case "ENTERTAINMENT", "FUNNY":
		return pronet.ReactionEntertainment
	default:
		return pronet.ReactionLike
	}
}

// ProfileURN is the contract URN of a vendor profile id: a numeric member id becomes
// urn:li:member:<n>, an encoded one (ACoAA…) urn:li:fsd_profile:<id>; a URN stays as it is.
func ProfileURN(id string) string {
	id = strings.TrimSpace(id)
	switch {
	case id == "":
		return ""
	case strings.HasPrefix(id, "urn:"):
		return id
	case isDigits(id):
		return "urn:li:member:" + id
	default:
		return "urn:li:fsd_profile:" + id
	}
}

// activityID is the numeric activity id in a vendor post id (digits, urn:li:activity:<n>, or
// a post URL).
func activityID(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if isDigits(s) {
		return s
	}
	id, err := pronet.ParsePostURN(s)
	if err != nil {
		return ""
	}
	return id
}

// slugOf returns the kind ("in" or "company") and slug of a LinkedIn profile or company URL;
// query, fragment and trailing path parts are ignored.
func slugOf(raw string) (kind, slug string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Path == "" {
		return "", ""
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 || (parts[0] != "in" && parts[0] != "company") || parts[1] == "" {
		return "", ""
	}
	return parts[0], parts[1]
}

// miniProfileID is the ACoA… id a vendor author URL carries in its miniProfileUrn parameter.
func miniProfileID(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Query().Get("miniProfileUrn"), "urn:li:fsd_profile:")
}

// reactionActorID is the member id inside a reaction id
// urn:li:fsd_reaction:(urn:li:fsd_profile:<id>,urn:li:…,0).
func reactionActorID(id string) string {
	_, rest, ok := strings.Cut(id, "urn:li:fsd_profile:")
	if !ok {
		return ""
	}
	end := strings.IndexAny(rest, ",)")
	if end <= 0 {
		return ""
	}
	return rest[:end]
}

func companyURL(slug string) string { return "https://www.linkedin.com/company/" + slug + "/" }

func splitName(name string) (first, last string) {
	name = strings.TrimSpace(name)
	first, last, _ = strings.Cut(name, " ")
	return first, strings.TrimSpace(last)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// reactionCounters are the per-type reaction counts of a post or a comment.
type reactionCounters struct{ like, praise, empathy, interest, appreciation, funny *int }

// add counts n reactions of the vendor's type t.
func (c reactionCounters) add(t string, n int) {
	switch reactionType(t) {
	case pronet.ReactionLike:
		*c.like += n
	case pronet.ReactionPraise:
		*c.praise += n
	case pronet.ReactionEmpathy:
		*c.empathy += n
	case pronet.ReactionInterest:
		*c.interest += n
	case pronet.ReactionAppreciation:
		*c.appreciation += n
	case pronet.ReactionEntertainment:
		*c.funny += n
	}
}

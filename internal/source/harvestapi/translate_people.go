package harvestapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

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

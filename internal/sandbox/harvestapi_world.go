package sandbox

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// The vendor protocols (HarvestAPI REST and HarvestAPI's Apify actors) share identifier
// parsing, fault prefixes and item rendering: they live here.

// vendorFault is what a fault prefix on an identifier asks the vendor servers for.
type vendorFault uint8

const (
	faultNone vendorFault = iota
	faultMissing
	faultError
	faultRateLimited
	faultThrottled
	faultMalformed
	faultSparse
)

var vendorFaultPrefixes = []struct {
	prefix string
	fault  vendorFault
}{
	{"missing", faultMissing}, {"error", faultError}, {"ratelimited", faultRateLimited},
	{"throttled", faultThrottled}, {"malformed", faultMalformed}, {"sparse", faultSparse},
}

// errThrottled is a rate limit without a Retry-After.
var errThrottled = errors.New("sandbox: throttled")

// cutFault splits a fault prefix (with '-' or '_') off v, case-insensitively.
func cutFault(v string) (vendorFault, string) {
	l := strings.ToLower(v)
	for _, p := range vendorFaultPrefixes {
		if strings.HasPrefix(l, p.prefix) && len(l) > len(p.prefix) && (l[len(p.prefix)] == '-' || l[len(p.prefix)] == '_') {
			return p.fault, v[len(p.prefix)+1:]
		}
	}
	return faultNone, v
}

// err is the look-up error of a fault; nil for the faults that only change the rendering.
func (f vendorFault) err() error {
	switch f {
	case faultMissing:
		return ErrNotFound
	case faultError:
		return ErrUpstream
	case faultRateLimited:
		return ErrRateLimited
	case faultThrottled:
		return errThrottled
	}
	return nil
}

// render is how a list or object is rendered: sparse items, or a malformed first item.
type render struct{ sparse, malformed bool }

func (f vendorFault) render() render {
	return render{sparse: f == faultSparse, malformed: f == faultMalformed}
}

// worst keeps the fault that wins when several values carry one: errors over rendering faults.
func worst(a, b vendorFault) vendorFault {
	rank := func(f vendorFault) int {
		return map[vendorFault]int{faultNone: 0, faultSparse: 1, faultMalformed: 2, faultMissing: 3,
			faultThrottled: 4, faultRateLimited: 5, faultError: 6}[f]
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// linkedInPath strips scheme, host and a /kind/ section from a LinkedIn URL; ok is false when
// v is a URL of another kind. A bare identifier comes back as it is.
func linkedInPath(v, kind string) (string, bool) {
	v = strings.TrimSpace(v)
	if i := strings.IndexAny(v, "?#"); i >= 0 && strings.Contains(v, "linkedin.com") {
		v = v[:i]
	}
	rest := v
	for _, p := range []string{"https://", "http://"} {
		rest = strings.TrimPrefix(rest, p)
	}
	if i := strings.Index(rest, "linkedin.com/"); i >= 0 {
		rest = rest[i+len("linkedin.com/"):]
		after, ok := strings.CutPrefix(rest, kind+"/")
		if !ok {
			return "", false
		}
		rest = after
	} else if rest != v {
		return "", false
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	if u, err := url.PathUnescape(rest); err == nil {
		rest = u
	}
	return rest, rest != ""
}

// vendorProfileID is the member's id in LinkedIn's ACoAA… form (39 characters): the member id
// and a hash of the username, so it reads back to the roster person.
func (w *World) vendorProfileID(p Person) string {
	b := make([]byte, 25)
	binary.BigEndian.PutUint32(b, uint32(p.PronetID))
	r := newRNG(hashString(w.seed^0xa1, p.PronetUsername))
	for i := 4; i < len(b); i += 8 {
		var x [8]byte
		binary.BigEndian.PutUint64(x[:], r.next())
		copy(b[i:], x[:])
	}
	return "ACoAA" + base64.RawURLEncoding.EncodeToString(b)
}

// personByVendorID reads an ACoAA… id back; only roster people are found by id.
func (w *World) personByVendorID(id string) (Person, bool) {
	raw, ok := strings.CutPrefix(id, "ACoAA")
	if !ok {
		return Person{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil || len(b) != 25 {
		return Person{}, false
	}
	member := int64(binary.BigEndian.Uint32(b))
	for _, p := range w.people {
		if p.PronetID == member && w.vendorProfileID(p) == id {
			return p, true
		}
	}
	return Person{}, false
}

func (w *World) companyByID(id string) (Company, bool) {
	for _, c := range w.companies {
		if fmt.Sprint(c.ID) == id {
			return c, true
		}
	}
	return Company{}, false
}

// vendorPerson finds the person of a profile URL, public identifier or ACoAA… id.
func (w *World) vendorPerson(v string) (Person, vendorFault, error) {
	ident, ok := linkedInPath(v, "in")
	if !ok {
		return Person{}, faultNone, ErrInvalid
	}
	f, rest := cutFault(ident)
	if err := f.err(); err != nil {
		return Person{}, f, err
	}
	if strings.HasPrefix(rest, "ACoA") {
		p, found := w.personByVendorID(rest)
		if !found {
			return Person{}, f, ErrNotFound
		}
		return p, f, nil
	}
	p, err := w.PersonByPronet(rest)
	return p, f, err
}

// vendorCompany finds the company of a company URL, universal name or numeric id.
func (w *World) vendorCompany(v string) (Company, vendorFault, error) {
	ident, ok := linkedInPath(v, "company")
	if !ok {
		return Company{}, faultNone, ErrInvalid
	}
	f, rest := cutFault(ident)
	if err := f.err(); err != nil {
		return Company{}, f, err
	}
	if isDigits(rest) {
		c, found := w.companyByID(rest)
		if !found {
			return Company{}, f, ErrNotFound
		}
		return c, f, nil
	}
	c, err := w.Company(rest)
	return c, f, err
}

// vendorPostURN reads a post id: digits, urn:li:activity:…, urn:li:ugcPost:…, a /feed/update/
// URL or a /posts/…-activity-<id>-xxxx URL.
func vendorPostURN(v string, now time.Time) (uint64, vendorFault, error) {
	s := strings.TrimSpace(v)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, "/")
	for _, sep := range []string{"activity:", "ugcPost:", "share:", "-activity-", "-ugcPost-", "-share-"} {
		if i := strings.LastIndex(s, sep); i >= 0 {
			s = s[i+len(sep):]
			break
		}
	}
	f, rest := cutFault(s)
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		rest = rest[:i]
	}
	if err := f.err(); err != nil {
		return 0, f, err
	}
	urn, ok := pronetIDs.parse(rest)
	if !ok {
		return 0, f, ErrInvalid
	}
	if pronetIDs.timeOf(urn).After(now) {
		return 0, f, ErrNotFound
	}
	return urn, f, nil
}

const vendorExpiresIn = 7 * 24 * time.Hour // signed media URLs

func vendorImage(u string, size int, now time.Time) map[string]any {
	return map[string]any{"url": u, "width": size, "height": size, "expiresAt": now.Add(vendorExpiresIn).UnixMilli()}
}

// postSlug is the words of a post's URL: its first words, lower case.
func postSlug(text string) string {
	var words []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if words = append(words, f); len(words) == 8 {
			break
		}
	}
	return strings.Join(words, "-")
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func base62String(h uint64, n int) string {
	b := make([]byte, n)
	r := newRNG(h)
	for i := range b {
		b[i] = base62[r.next()%62]
	}
	return string(b)
}

// vendorPostURL is the share URL LinkedIn gives a post: /posts/<author>_<words>-activity-<id>-<4>.
func vendorPostURL(p PronetPost) string {
	who := p.Author.PronetUsername
	if p.Company != nil {
		who = p.Company.Slug
	}
	return fmt.Sprintf("https://www.linkedin.com/posts/%s_%s-activity-%d-%s", who, postSlug(p.Text), p.URN,
		base62String(p.hash^0x75726c, 4))
}

// agoText is the long "posted ago" form: "3 hours ago".
func agoText(t, now time.Time) string {
	d := now.Sub(t)
	unit := func(n int, name string) string {
		if n == 1 {
			return "1 " + name + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, name)
	}
	switch {
	case d < time.Hour:
		return unit(max(1, int(d.Minutes())), "minute")
	case d < 24*time.Hour:
		return unit(int(d.Hours()), "hour")
	case d < 7*24*time.Hour:
		return unit(int(d.Hours()/24), "day")
	case d < 30*24*time.Hour:
		return unit(int(d.Hours()/(24*7)), "week")
	}
	return unit(int(d.Hours()/(24*30)), "month")
}

// vendorPost renders a post in HarvestAPI's PostShort shape.
func (s *Sandbox) vendorPost(p PronetPost, now time.Time, sparse bool) map[string]any {
	// The vendor's post author has no id member; its profile link carries the member's
	// ACoAA… id, as LinkedIn's own links do.
	authorURL := strings.TrimSuffix(p.Author.PronetURL(), "/") + "?miniProfileUrn=" +
		url.QueryEscape("urn:li:fsd_profile:"+s.world.vendorProfileID(p.Author))
	author := map[string]any{"type": "profile", "publicIdentifier": p.Author.PronetUsername, "universalName": nil,
		"name": p.Author.FullName(), "linkedinUrl": authorURL, "website": nil, "websiteLabel": nil}
	avatar, info := p.Author.Avatar(), p.Author.Headline
	if c := p.Company; c != nil {
		author = map[string]any{"type": "company", "publicIdentifier": nil, "universalName": c.Slug, "name": c.Name,
			"linkedinUrl": c.URL(), "website": c.Website, "websiteLabel": c.Domain}
		avatar, info = c.LogoURL, fmt.Sprintf("%d followers", c.Followers)
	}
	attrs := []any{}
	for _, m := range p.MentionsMembers {
		if i := strings.Index(p.Text, m.FullName()); i >= 0 {
			attrs = append(attrs, map[string]any{"start": i, "end": i + len(m.FullName()), "type": "PROFILE_MENTION",
				"hyperlink": m.PronetURL()})
		}
	}
	o := map[string]any{
		"id": idString(p.URN), "linkedinUrl": vendorPostURL(p), "content": p.Text, "contentAttributes": attrs,
		"author": author,
		"postedAt": map[string]any{"date": p.Time.Format(xTime), "postedAgoShort": relAge(p.Time, now),
			"postedAgoText": agoText(p.Time, now)},
	}
	if p.Reshared != nil {
		o["repostId"] = idString(p.Reshared.URN)
		o["repost"] = s.vendorPost(*p.Reshared, now, sparse)
	}
	if sparse {
		return o
	}
	author["info"] = info
	author["avatar"] = vendorImage(avatar, 200, now)
	o["postedAt"].(map[string]any)["timestamp"] = p.Time.UnixMilli()
	o["article"] = nil
	if p.Link != "" {
		o["article"] = map[string]any{"title": topics[p.Topic].Name, "subtitle": p.Link, "link": p.Link,
			"linkLabel": strings.TrimPrefix(strings.Split(p.Link, "/blog/")[0], "https://"), "description": nil, "image": nil}
	}
	images := []any{}
	for _, u := range p.Images {
		images = append(images, map[string]any{"url": u, "width": 1280, "height": 720, "expiresAt": now.Add(vendorExpiresIn).UnixMilli()})
	}
	o["postImages"] = images
	// HarvestAPI's PostShort media (the actors' README examples): a video's playlist and poster,
	// a document (carousel) with its cover pages.
	if p.Video {
		o["postVideo"] = map[string]any{"videoUrl": fmt.Sprintf("https://dms.licdn.com/playlist/vid/%d.mp4", p.URN),
			"thumbnailUrl": fmt.Sprintf("https://media.licdn.com/dms/image/videocover/%d.jpg", p.URN)}
	}
	if p.Document {
		d := documentRecord(p, now)
		o["document"] = map[string]any{"title": d["title"], "urn": d["urn"],
			"transcribedDocumentUrl": d["TranscribedDocumentUrl"], "totalPageCount": d["totalPageCount"], "coverPages": d["coverPages"]}
	}
	finalR, finalC, finalRep, h := s.world.pronetFinal(p.URN)
	n := grown(finalR, p.Time, now)
	counts := map[string]int{}
	for k := 0; k < n; k++ {
		counts[reactionType(h, k)]++
	}
	reactions := []any{}
	for _, t := range reactionTypes {
		if counts[t] > 0 {
			reactions = append(reactions, map[string]any{"type": t, "count": counts[t]})
		}
	}
	o["engagement"] = map[string]any{"likes": n, "comments": grown(finalC, p.Time, now), "shares": grown(finalRep, p.Time, now),
		"reactions": reactions}
	o["socialContent"] = map[string]any{"hideCommentsCount": false, "hideReactionsCount": false,
		"hideSocialActivityCounts": false, "hideShareAction": false, "hideSendAction": false, "hideRepostsCount": false,
		"hideViewsCount": false, "hideReactAction": false, "hideCommentAction": false,
		"shareUrl": vendorPostURL(p) + "?utm_source=share&utm_medium=member_desktop", "showContributionExperience": false,
		"showSocialDetail": true}
	return o
}

// vendorComment renders a comment in HarvestAPI's PostComment shape.
func (s *Sandbox) vendorComment(c Comment, now time.Time, sparse bool) map[string]any {
	actor := map[string]any{"id": s.world.vendorProfileID(c.Person), "name": c.Person.FullName(),
		"linkedinUrl": c.Person.PronetURL(), "universalName": nil, "type": "profile"}
	o := map[string]any{
		"id": idString(c.ID), "postId": idString(c.PostURN), "commentary": c.Text, "createdAt": c.Time.Format(xTime),
		"linkedinUrl": fmt.Sprintf("https://www.linkedin.com/feed/update/urn:li:activity:%d?commentUrn=%s", c.PostURN,
			url.QueryEscape(commentURN(c))),
		"actor": actor, "pinned": c.Pinned, "edited": c.Edited, "contributed": false,
	}
	replies := make([]any, 0, len(c.Replies))
	for _, rc := range c.Replies {
		replies = append(replies, s.vendorComment(rc, now, sparse))
	}
	o["replies"] = replies
	if !sparse {
		actor["position"] = c.Person.Headline
		actor["pictureUrl"] = c.Person.Avatar()
		actor["picture"] = vendorImage(c.Person.Avatar(), 100, now)
		o["createdAtTimestamp"] = c.Time.UnixMilli()
	}
	return o
}

// vendorReaction renders a reaction in HarvestAPI's PostReaction shape.
func (s *Sandbox) vendorReaction(urn uint64, rc Reactor, now time.Time, sparse bool) map[string]any {
	id := s.world.vendorProfileID(rc.Person)
	actor := map[string]any{"id": id, "name": rc.Person.FullName(), "linkedinUrl": rc.Person.PronetURL()}
	if !sparse {
		actor["position"] = rc.Person.Headline
		actor["image"] = vendorImage(rc.Person.Avatar(), 100, now)
	}
	return map[string]any{"id": fmt.Sprintf("urn:li:fsd_reaction:(urn:li:fsd_profile:%s,urn:li:activity:%d,0)", id, urn),
		"reactionType": rc.Type, "postId": idString(urn), "actor": actor}
}

var monthAbbr = []string{"", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

func vendorDate(year, month int) any {
	if year == 0 {
		return map[string]any{"text": "Present"}
	}
	return map[string]any{"text": fmt.Sprintf("%s %d", monthAbbr[month], year), "month": monthAbbr[month], "year": year}
}

// vendorProfile renders a profile in HarvestAPI's Profile shape.
func (s *Sandbox) vendorProfile(p Person, sparse bool) map[string]any {
	o := map[string]any{
		"id": s.world.vendorProfileID(p), "publicIdentifier": p.PronetUsername, "firstName": p.FirstName,
		"lastName": p.LastName, "linkedinUrl": p.PronetURL(),
		"currentPosition": []any{map[string]any{"companyName": p.Company.Name}},
	}
	experience := make([]any, 0, len(p.Positions))
	for _, pos := range p.Positions {
		e := map[string]any{"companyName": pos.Company.Name, "position": pos.Title, "companyLink": pos.Company.URL(),
			"startDate": vendorDate(pos.StartYear, pos.StartMonth), "endDate": vendorDate(pos.EndYear, pos.EndMonth)}
		if !sparse {
			years := max(0, careerYear-pos.StartYear)
			if pos.EndYear != 0 {
				years = pos.EndYear - pos.StartYear
			}
			e["duration"] = fmt.Sprintf("%d yrs", years)
			e["location"] = pos.Company.City + ", " + pos.Company.Country
			e["description"] = ""
			e["employmentType"] = "Full-time"
		}
		experience = append(experience, e)
	}
	o["experience"] = experience
	if sparse {
		return o
	}
	langs := make([]any, 0, len(p.Languages))
	for i, l := range p.Languages {
		prof := "Native or bilingual proficiency"
		if i > 0 {
			prof = "Professional working proficiency"
		}
		langs = append(langs, map[string]any{"language": titleCase(languageNames[l]), "proficiency": prof})
	}
	skills := []any{}
	for _, t := range p.Topics {
		skills = append(skills, map[string]any{"name": titleCase(strings.ReplaceAll(topics[t].Name, " ", "-"))})
	}
	o["headline"], o["about"], o["photo"] = p.Headline, p.Summary, p.Avatar()
	o["emails"], o["websites"] = []any{}, []any{}
	o["topSkills"] = topics[p.Topics[0]].Name
	o["connectionsCount"], o["followerCount"] = p.Connections, p.PronetFollowers
	o["openToWork"], o["hiring"], o["verified"] = p.OpenToWork, false, p.Premium
	o["location"] = map[string]any{"linkedinText": p.Location(), "countryCode": p.CountryCode,
		"parsed": map[string]any{"text": p.Location(), "countryCode": p.CountryCode, "regionCode": nil,
			"country": p.Country, "countryFull": p.Country, "state": "", "city": p.City}}
	o["skills"], o["languages"] = skills, langs
	for _, k := range []string{"education", "certifications", "receivedRecommendations", "projects", "publications",
		"honorsAndAwards", "courses", "moreProfiles"} {
		o[k] = []any{}
	}
	return o
}

package sandbox

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

func (s *Sandbox) postRecords(posts []PronetPost, now time.Time) []any {
	out := make([]any, 0, len(posts))
	for _, p := range posts {
		out = append(out, s.postRecord(p, now))
	}
	return out
}

// relAge is the provider's short "posted at" form: 5m, 3h, 2d, 1w, 4mo.
func relAge(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%dm", max(1, int(d.Minutes())))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dw", int(d.Hours()/(24*7)))
	}
	return fmt.Sprintf("%dmo", int(d.Hours()/(24*30)))
}

func pictures(url string) []any {
	return []any{map[string]any{"width": 100, "height": 100, "url": url},
		map[string]any{"width": 400, "height": 400, "url": url}}
}

func postAuthor(p PronetPost) map[string]any {
	if p.Company != nil {
		c := p.Company
		return map[string]any{"id": c.ID, "firstName": c.Name, "lastName": "", "headline": c.Industry,
			"username": c.Slug, "url": c.URL(), "urn": c.URN(), "profilePictures": pictures(c.LogoURL)}
	}
	a := p.Author
	return map[string]any{"id": a.PronetID, "firstName": a.FirstName, "lastName": a.LastName, "headline": a.Headline,
		"username": a.PronetUsername, "url": a.PronetURL(), "urn": a.PronetURN(), "profilePictures": pictures(a.Avatar())}
}

func postMedia(p PronetPost, now time.Time) (article, document map[string]any, video, image []any) {
	article, document, video, image = map[string]any{}, map[string]any{}, []any{}, []any{}
	for _, u := range p.Images {
		image = append(image, map[string]any{"url": u})
	}
	if p.Video {
		video = append(video, map[string]any{"url": fmt.Sprintf("https://dms.licdn.com/playlist/vid/%d.mp4", p.URN),
			"poster": fmt.Sprintf("https://media.licdn.com/dms/image/videocover/%d.jpg", p.URN), "duration": 30 + int(p.hash%300)})
	}
	if p.Link != "" {
		article = map[string]any{"title": topics[p.Topic].Name, "subtitle": p.Link, "link": p.Link}
	}
	if p.Document {
		document = documentRecord(p, now)
	}
	return article, document, video, image
}

// documentRecord renders a document (carousel) attachment; its signed URLs expire a week after
// the answer, as the provider's do.
func documentRecord(p PronetPost, now time.Time) map[string]any {
	pages := 3 + int(p.hash>>8%12)
	expires := now.Add(7 * 24 * time.Hour).UnixMilli()
	covers := make([]any, 0, min(pages, 3))
	for i := 1; i <= min(pages, 3); i++ {
		covers = append(covers, map[string]any{"width": 1080, "height": 1350,
			"imageUrls": []any{fmt.Sprintf("https://media.licdn.com/dms/image/document-cover/%d-%d.jpg", p.URN, i)}})
	}
	return map[string]any{
		"title":                           documentTitle(p),
		"urn":                             fmt.Sprintf("urn:li:document:%d", p.URN),
		"TranscribedDocumentUrl":          fmt.Sprintf("https://media.licdn.com/dms/document/transcribed/%d.pdf", p.URN),
		"TranscribedDocumentUrlExpiresAt": expires,
		"manifestUrl":                     fmt.Sprintf("https://media.licdn.com/dms/document/manifest/%d.json", p.URN),
		"manifestUrlExpiresAt":            expires,
		"scanRequiredForDownload":         false,
		"totalPageCount":                  pages,
		"coverPages":                      covers,
	}
}

func documentTitle(p PronetPost) string {
	name := topics[p.Topic].Name
	return strings.ToUpper(name[:1]) + name[1:] + ": " + documentTitles[p.hash%uint64(len(documentTitles))]
}

var documentTitles = []string{"the playbook", "lessons from this quarter", "a checklist", "what we learned", "the slides from my talk"}

// postRecord renders a post with exactly the fields of the spec's pronet post record.
func (s *Sandbox) postRecord(p PronetPost, now time.Time) map[string]any {
	finalR, finalC, finalRep, h := s.world.pronetFinal(p.URN)
	n := grown(finalR, p.Time, now)
	counts := map[string]int{}
	for k := 0; k < n; k++ {
		counts[reactionType(h, k)]++
	}
	company := map[string]any{}
	if p.Company != nil {
		company = map[string]any{"name": p.Company.Name, "url": p.Company.URL(), "urn": p.Company.URN()}
	}
	article, document, video, image := postMedia(p, now)
	reshared := map[string]any{}
	if p.Reshared != nil {
		ra, rd, rv, ri := postMedia(*p.Reshared, now)
		rc := map[string]any{}
		if c := p.Reshared.Company; c != nil {
			rc = map[string]any{"name": c.Name, "url": c.URL(), "urn": c.URN(), "companyLogo": pictures(c.LogoURL)}
		}
		reshared = map[string]any{"text": p.Reshared.Text, "author": postAuthor(*p.Reshared), "company": rc,
			"document": rd, "article": ra, "video": rv, "image": ri}
	}
	return map[string]any{
		"text":                p.Text,
		"entityType":          "post",
		"postUrl":             fmt.Sprintf("https://www.linkedin.com/feed/update/urn:li:activity:%d/", p.URN),
		"postedAt":            relAge(p.Time, now),
		"postedDate":          p.Time.Format(xTime),
		"postedDateTimestamp": p.Time.UnixMilli(),
		"urn":                 strconv.FormatUint(p.URN, 10),
		"totalReactionCount":  n,
		"likeCount":           counts["LIKE"],
		"empathyCount":        counts["EMPATHY"],
		"praiseCount":         counts["PRAISE"],
		"appreciationCount":   counts["APPRECIATION"],
		"InterestCount":       counts["INTEREST"],
		"funnyCount":          counts["ENTERTAINMENT"],
		"commentsCount":       grown(finalC, p.Time, now),
		"repostsCount":        grown(finalRep, p.Time, now),
		"reposted":            p.Reshared != nil,
		"author":              postAuthor(p),
		"company":             company,
		"article":             article,
		"video":               video,
		"image":               image,
		"document":            document,
		"resharedPost":        reshared,
	}
}

// profileRecord renders the provider's profile object.
func profileRecord(p Person) map[string]any {
	positions := make([]any, 0, len(p.Positions))
	for _, pos := range p.Positions {
		c := pos.Company
		positions = append(positions, map[string]any{
			"companyName": c.Name, "companyUsername": c.Slug, "companyIndustry": c.Industry,
			"companyStaffCountRange": c.SizeBand, "companyLogo": c.LogoURL, "companyWebsite": c.Website,
			"title": pos.Title, "location": c.City + ", " + c.Country,
			"start": map[string]any{"year": pos.StartYear, "month": pos.StartMonth},
			"end":   map[string]any{"year": pos.EndYear, "month": pos.EndMonth},
		})
	}
	langs := make([]string, 0, len(p.Languages))
	for _, l := range p.Languages {
		langs = append(langs, titleCase(languageNames[l]))
	}
	return map[string]any{
		"id": p.PronetID, "urn": p.PronetURN(), "username": p.PronetUsername,
		"firstName": p.FirstName, "lastName": p.LastName, "headline": p.Headline, "summary": p.Summary,
		"profilePicture": p.Avatar(), "isOpenToWork": p.OpenToWork, "isPremium": p.Premium, "isCreator": p.Creator,
		"followerCount": p.PronetFollowers, "connectionCount": p.Connections, "languages": langs,
		"geo": map[string]any{"country": p.Country, "countryCode": p.CountryCode, "city": p.City,
			"full": p.Location()},
		"position": positions,
	}
}

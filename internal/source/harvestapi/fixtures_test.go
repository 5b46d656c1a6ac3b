package harvestapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source/harvestapi"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

var now = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

const key = "hk-secret-123"

// postItem is a PostShort as the vendor's README shows one, with the id and time given.
func postItem(id string, ts time.Time) string {
	return fmt.Sprintf(`{
  "id": %q,
  "linkedinUrl": "https://www.linkedin.com/posts/nickbennett05_hiring-activity-%s-Je01",
  "content": "I'm #hiring Go engineers",
  "author": {"universalName": null, "publicIdentifier": "nickbennett05", "type": "profile", "name": "Nick Bennett",
    "linkedinUrl": "https://www.linkedin.com/in/nickbennett05?miniProfileUrn=urn%%3Ali%%3Afsd_profile%%3AACoAAAMs-kQBF8xYdTGLvYN4zwhqDGh2UlSXIpY",
    "info": "UX Leadership at Amazon", "website": null,
    "avatar": {"url": "https://media.licdn.com/a.jpg", "width": 674, "height": 674, "expiresAt": 1748552400000}},
  "article": {"title": "Read more", "subtitle": null, "link": "https://example.com/x", "linkLabel": null, "description": null, "image": null},
  "postedAt": {"timestamp": %d, "date": %q, "postedAgoShort": "1d", "postedAgoText": "1 day ago"},
  "postImages": [{"url": "https://media.licdn.com/i1.jpg", "width": 800, "height": 600, "expiresAt": 1}],
  "postVideo": {"videoUrl": "https://dms.licdn.com/v.mp4", "thumbnailUrl": "https://media.licdn.com/t.jpg"},
  "engagement": {"likes": 13, "comments": 1, "shares": "9",
    "reactions": [{"type": "LIKE", "count": 12}, {"type": "PRAISE", "count": 1}]}
}`, id, id, ts.UnixMilli(), ts.UTC().Format("2006-01-02T15:04:05.000Z"))
}

// idAt is an activity id created at t.
func idAt(t time.Time) string { return fmt.Sprint(uint64(t.UnixMilli()) << 22) }

func listBody(items []string, pagination string) string {
	return `{"entityId": null, "requestId": "r1", "status": 200, "error": null, "query": {}, "originalQuery": {},
  "user": {"membershipTier": "starter", "requestsConcurrency": 5}, "payments": [], "cost": 0,
  "pagination": ` + pagination + `, "elements": [` + strings.Join(items, ",") + `]}`
}

func itemBody(item string) string {
	return `{"entityId": "e", "requestId": "r1", "status": 200, "error": null, "query": {}, "payments": [], "cost": 0, "element": ` + item + `}`
}

func pag(page, pages, total, size int, token string) string {
	t := "null"
	if token != "" {
		t = fmt.Sprintf("%q", token)
	}
	return fmt.Sprintf(`{"totalPages": %d, "totalElements": %d, "pageNumber": %d, "previousElements": 0, "pageSize": %d, "paginationToken": %s}`,
		pages, total, page, size, t)
}

func newClient(t testing.TB, srv *sourcetest.Server) (*harvestapi.Client, *sourcetest.Sleeper) {
	t.Helper()
	sl := &sourcetest.Sleeper{}
	return harvestapi.New(harvestapi.Config{BaseURL: srv.URL, APIKey: key, Sleep: sl.Sleep, Now: sourcetest.FixedClock(now)}), sl
}

const commentItem = `{
  "type": "comment", "id": "7331190065471078400",
  "linkedinUrl": "https://www.linkedin.com/feed/update/urn:li:activity:7328838056403173380?commentUrn=x",
  "commentary": "Great post", "createdAt": "2025-05-22T05:31:58.534Z", "numComments": 1, "numShares": null,
  "reactionTypeCounts": [{"type": "LIKE", "count": 2}, {"type": "EMPATHY", "count": 1}],
  "actor": {"id": "ACoAAFsE9LEBl7BKtsoGeoDZz0IvKfmiGgiEtX8", "name": "Leek Gai", "linkedinUrl": "https://www.linkedin.com/in/leek-gai-3a94a6367",
    "position": "Student at Bugema University", "pictureUrl": "https://media.licdn.com/p.jpg", "type": "profile", "author": false},
  "createdAtTimestamp": 1747891918534, "pinned": false, "contributed": false, "edited": "true", "postId": "7328838056403173380",
  "replies": [
    {"id": "7331190065471078401", "commentary": "Thanks!", "createdAt": "2025-05-22T06:00:00.000Z",
     "actor": {"id": "ACoAAAMs-kQBF8xYdTGLvYN4zwhqDGh2UlSXIpY", "name": "Nick Bennett", "linkedinUrl": "https://www.linkedin.com/in/nickbennett05", "position": "UX"}},
    "<html>"
  ]
}`

const reactionItem = `{
  "id": "urn:li:fsd_reaction:(urn:li:fsd_profile:ACoAAAMHAagBPz-UgeRDsX3klfoVZEkDw1ulS7E,urn:li:ugcPost:7329207002977443840,0)",
  "reactionType": "PRAISE",
  "actor": {"id": "ACoAAAMHAagBPz-UgeRDsX3klfoVZEkDw1ulS7E", "name": "Gangotri Dey",
    "linkedinUrl": "https://www.linkedin.com/in/ACoAAAMHAagBPz-UgeRDsX3klfoVZEkDw1ulS7E", "position": "Licensing Officer",
    "pictureUrl": "https://media.licdn.com/r.jpg", "picture": {"url": "https://media.licdn.com/r2.jpg", "width": 594, "height": 594}},
  "postId": "7329207003942125568"
}`

const profileItem = `{
  "id": "ACoAAA8BYqEBCGLg_vT_ca6mMEqkpp9nVffJ3hc", "publicIdentifier": "williamhgates", "firstName": "Bill", "lastName": "Gates",
  "headline": "Chair, Gates Foundation", "about": "Sharing things I'm learning", "linkedinUrl": "https://www.linkedin.com/in/williamhgates",
  "photo": "https://media.licdn.com/bg.jpg", "connectionsCount": "8", "followerCount": 39000000, "openToWork": false, "hiring": true,
  "premium": true, "influencer": true,
  "location": {"linkedinText": "Seattle, Washington, United States", "countryCode": "us",
    "parsed": {"text": "Seattle, Washington, United States", "countryCode": "US", "regionCode": null, "country": "United States",
      "countryFull": "United States of America", "state": "Washington", "city": "Seattle"}},
  "experience": [
    {"companyName": "Microsoft", "position": "Co-founder", "location": "Redmond", "companyLink": "https://www.linkedin.com/company/microsoft/",
     "startDate": {"text": "Apr 1975", "month": "Apr", "year": 1975}, "endDate": {"text": "Mar 2020", "month": "Mar", "year": 2020}},
    {"companyName": "Gates Foundation", "position": "Co-chair", "companyLink": "https://www.linkedin.com/company/gates-foundation",
     "startDate": {"text": "2000", "year": 2000}, "endDate": {"text": "Present"}},
    "<broken>"
  ],
  "languages": [{"language": "English", "proficiency": "Native"}, "French"]
}`

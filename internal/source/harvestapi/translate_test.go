package harvestapi_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source/harvestapi"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

func TestPostFromItem(t *testing.T) {
	ts := time.Date(2025, 5, 21, 16, 12, 5, 614e6, time.UTC)
	p, err := harvestapi.PostFromItem(json.RawMessage(postItem("7330988768578920448", ts)))
	if err != nil {
		t.Fatal(err)
	}
	a := p.Author
	if p.URN != "7330988768578920448" || p.Text != "I'm #hiring Go engineers" || p.EntityType != "post" || p.PostedAt != "1d" ||
		p.PostedDateTimestamp != ts.UnixMilli() || p.PostedDate != "2025-05-21T16:12:05.614Z" ||
		p.PostURL != "https://www.linkedin.com/feed/update/urn:li:activity:7330988768578920448/" {
		t.Errorf("post = %+v", p)
	}
	if a.FirstName != "Nick" || a.LastName != "Bennett" || a.Username != "nickbennett05" || a.URL != "https://www.linkedin.com/in/nickbennett05" ||
		a.URN != "urn:li:fsd_profile:ACoAAAMs-kQBF8xYdTGLvYN4zwhqDGh2UlSXIpY" || a.Headline != "UX Leadership at Amazon" ||
		len(a.ProfilePictures) != 1 || a.ProfilePictures[0].Width != 674 {
		t.Errorf("author = %+v", a)
	}
	if p.TotalReactionCount != 13 || p.LikeCount != 12 || p.PraiseCount != 1 || p.CommentsCount != 1 || p.RepostsCount != 9 {
		t.Errorf("counts = %+v", p)
	}
	if len(p.Image) != 1 || len(p.Video) != 1 || p.Video[0].Poster != "https://media.licdn.com/t.jpg" || p.Article["link"] != "https://example.com/x" ||
		p.Company.Name != "" || p.ResharedPost != nil || p.Reposted {
		t.Errorf("media = %+v %+v %+v", p.Image, p.Video, p.Article)
	}
	// The result item is in the standard shape, its URL the canonical one, not the share URL
	// the vendor sent.
	if it := p.Item(ts); it.Author.ProfileURL != "https://www.linkedin.com/in/nickbennett05" || it.Engagement.Likes != 13 || len(it.Content.Media) != 2 ||
		it.Content.URL != "https://www.linkedin.com/feed/update/urn:li:activity:7330988768578920448/" || it.Engagement.Shares == nil {
		t.Errorf("item = %+v", it)
	}
	// Without an id the post is known by its share URL, and still gets the canonical one.
	p, err = harvestapi.PostFromItem(json.RawMessage(`{"linkedinUrl": "https://www.linkedin.com/posts/jane-doe_sales-activity-7330988768578920448-oXya", "content": "x"}`))
	if err != nil || p.URN != "7330988768578920448" || p.PostURL != "https://www.linkedin.com/feed/update/urn:li:activity:7330988768578920448/" {
		t.Errorf("post by share URL = %+v, %v", p, err)
	}
}

func TestPostFromItemCompanyAndRepost(t *testing.T) {
	raw := `{"id": "urn:li:activity:7319399301971943425", "content": "Inspiring",
	  "author": {"universalName": "gates-foundation", "type": "company", "name": "Gates Foundation", "id": "1234",
	    "linkedinUrl": "https://www.linkedin.com/company/gates-foundation/posts", "info": "1,000 followers"},
	  "postedAt": {"timestamp": "1744900000000"},
	  "repostId": "7314358712113025024",
	  "repost": {"id": "7314358712113025024", "content": "What does it take?",
	    "author": {"universalName": "rotary-international", "type": "company", "name": "Rotary International",
	      "linkedinUrl": "https://www.linkedin.com/company/rotary-international/posts",
	      "avatar": {"url": "https://media.licdn.com/rotary.jpg", "width": 400, "height": 400}},
	    "postVideo": {"thumbnailUrl": "https://t.jpg", "videoUrl": "https://v.mp4"}, "engagement": null},
	  "engagement": {"likes": 0, "comments": 400, "shares": 81, "reactions": [{"type": "LIKE", "count": 3}, {"type": "ENTERTAINMENT", "count": 4},
	    {"type": "EMPATHY", "count": 1}, {"type": "INTEREST", "count": 1}, {"type": "APPRECIATION", "count": 1}]}}`
	p, err := harvestapi.PostFromItem(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if p.URN != "7319399301971943425" || p.PostURL != "https://www.linkedin.com/feed/update/urn:li:activity:7319399301971943425/" {
		t.Errorf("urn %s url %s", p.URN, p.PostURL)
	}
	if p.Company != (pronet.Company{Name: "Gates Foundation", URL: "https://www.linkedin.com/company/gates-foundation/", URN: "urn:li:company:1234"}) ||
		p.Author.FirstName != "Gates Foundation" || p.Author.Username != "gates-foundation" {
		t.Errorf("company = %+v author = %+v", p.Company, p.Author)
	}
	if p.TotalReactionCount != 10 || p.FunnyCount != 4 || p.EmpathyCount != 1 || p.InterestCount != 1 || p.AppreciationCount != 1 {
		t.Errorf("counts = %+v", p)
	}
	r := p.ResharedPost
	if !p.Reposted || r == nil || r.Text != "What does it take?" || r.Company.Name != "Rotary International" || len(r.Company.CompanyLogo) != 1 ||
		len(r.Video) != 1 || r.Author["username"] != "rotary-international" {
		t.Errorf("reshare = %+v", r)
	}
}

func TestCommentFromItem(t *testing.T) {
	c, err := harvestapi.CommentFromItem(json.RawMessage(commentItem))
	if err != nil {
		t.Fatal(err)
	}
	if c.URN != "urn:li:comment:(activity:7328838056403173380,7331190065471078400)" ||
		c.ThreadURN != "urn:li:comment:(urn:li:activity:7328838056403173380,7331190065471078400)" ||
		c.CreatedAt != 1747891918534 || c.CreatedAtString != "2025-05-22T05:31:58.534Z" || c.Text != "Great post" || !c.IsEdited || c.IsPinned {
		t.Errorf("comment = %+v", c)
	}
	if c.Author != (pronet.CommentAuthor{Name: "Leek Gai", URN: "urn:li:fsd_profile:ACoAAFsE9LEBl7BKtsoGeoDZz0IvKfmiGgiEtX8",
		ID: "ACoAAFsE9LEBl7BKtsoGeoDZz0IvKfmiGgiEtX8", Username: "leek-gai-3a94a6367",
		PronetURL: "https://www.linkedin.com/in/leek-gai-3a94a6367", Title: "Student at Bugema University"}) {
		t.Errorf("author = %+v", c.Author)
	}
	if s := c.TotalSocialActivityCounts; s.TotalReactionCount != 3 || s.LikeCount != 2 || s.EmpathyCount != 1 || s.NumComments != 1 {
		t.Errorf("counts = %+v", s)
	}
	if len(c.Replies) != 1 || c.Replies[0].ThreadURN != "" || c.Replies[0].Author.ID != "" || c.Replies[0].Author.Username != "nickbennett05" ||
		c.Replies[0].CreatedAt == 0 || c.Replies[0].Replies == nil {
		t.Errorf("replies = %+v", c.Replies)
	}
}

func TestProfileURN(t *testing.T) {
	for in, want := range map[string]string{"": "", "12345": "urn:li:member:12345", "ACoAAB": "urn:li:fsd_profile:ACoAAB",
		"urn:li:member:9": "urn:li:member:9"} {
		if got := harvestapi.ProfileURN(in); got != want {
			t.Errorf("ProfileURN(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzItems(f *testing.F) {
	for _, s := range []string{postItem("7330988768578920448", time.Unix(1747843925, 0)), commentItem, reactionItem, profileItem,
		`{"id": {}}`, `"<html>"`, `null`, `{"id": "1", "postedAt": "2025-01-01", "engagement": {"likes": "1,234"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		raw := json.RawMessage(b)
		if p, err := harvestapi.PostFromItem(raw); err == nil {
			if p.URN == "" {
				t.Fatal("post without urn")
			}
			if _, err := json.Marshal(p); err != nil {
				t.Fatal(err)
			}
		}
		if c, err := harvestapi.CommentFromItem(raw); err == nil {
			if c.URN == "" || c.Replies == nil {
				t.Fatalf("comment %+v", c)
			}
		}
		if r, err := harvestapi.ReactorFromItem(raw); err == nil && r.URN == "" {
			t.Fatal("reactor without urn")
		}
		if p, err := harvestapi.ProfileFromItem(raw); err == nil {
			if p.Languages == nil || p.Position == nil {
				t.Fatalf("profile lists nil: %+v", p)
			}
			for i, pos := range p.Position {
				if i > 0 && pos.End.IsZero() && !p.Position[i-1].End.IsZero() {
					t.Fatal("a current position after a past one")
				}
			}
		}
	})
}

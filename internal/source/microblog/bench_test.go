package microblog_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/source/microblog"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

// bigPage is a full recent-search page: 100 tweets, 100 authors, 50 media.
func bigPage() string {
	var data, users, media []string
	for i := range 100 {
		mk := ""
		if i%2 == 0 {
			mk = fmt.Sprintf(`,"attachments":{"media_keys":["3_%d"]}`, i)
			media = append(media, fmt.Sprintf(`{"media_key":"3_%d","type":"photo","url":"https://pbs.twimg.com/media/%d.jpg"}`, i, i))
		}
		data = append(data, fmt.Sprintf(`{"id":"19%017d","text":"tweet number %d about golang and apis https://t.co/x","author_id":"%d","created_at":"2026-03-10T09:30:00.000Z","lang":"en","public_metrics":{"retweet_count":1,"reply_count":2,"like_count":3,"quote_count":4},"entities":{"urls":[{"start":0,"end":1,"url":"https://t.co/x","expanded_url":"https://example.com"}]}%s}`, i, i, i, mk))
		users = append(users, fmt.Sprintf(`{"id":"%d","name":"User %d","username":"user%d","profile_image_url":"https://pbs.twimg.com/p/%d.jpg","public_metrics":{"followers_count":%d}}`, i, i, i, i, i*10))
	}
	return `{"data":[` + strings.Join(data, ",") + `],"includes":{"users":[` + strings.Join(users, ",") + `],"media":[` + strings.Join(media, ",") + `]},"meta":{"result_count":100,"next_token":"n"}}`
}

func BenchmarkSearchPage100(b *testing.B) {
	body := bigPage()
	srv := sourcetest.NewServer(b, func(w http.ResponseWriter, r *http.Request, n int) { sourcetest.JSON(w, 200, body) })
	c := microblog.New(microblog.Config{BaseURL: srv.URL, BearerToken: "t", Now: sourcetest.FixedClock(now)})
	ctx := context.Background()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for b.Loop() {
		p, err := c.Search(ctx, microblog.SearchParams{Query: "golang", MaxResults: 100})
		if err != nil || len(p.Items) != 100 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/tweet")
}

func BenchmarkParseProfileURL(b *testing.B) {
	for b.Loop() {
		if _, err := microblog.ParseProfileURL("https://mobile.twitter.com/Jack_Dorsey/?lang=en", nil); err != nil {
			b.Fatal(err)
		}
	}
}

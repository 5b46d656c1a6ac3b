package workflow

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// fakeEvents holds the newest real event of each source; nil is none.
type fakeEvents struct {
	result, engagement, delivery map[string]any
	asked                        []string
	err                          error
}

func (f *fakeEvents) LatestResult(_ context.Context, accountID, searchID string) (map[string]any, bool, error) {
	f.asked = append(f.asked, "result "+accountID+"/"+searchID)
	return f.result, f.result != nil, f.err
}

func (f *fakeEvents) LatestEngagement(_ context.Context, accountID, topicID string) (map[string]any, bool, error) {
	f.asked = append(f.asked, "engagement "+accountID+"/"+topicID)
	return f.engagement, f.engagement != nil, f.err
}

func (f *fakeEvents) LatestDelivery(_ context.Context, workflowID string) (map[string]any, bool, error) {
	f.asked = append(f.asked, "delivery "+workflowID)
	return f.delivery, f.delivery != nil, f.err
}

func ptr[T any](v T) *T { return &v }

func triggered(kind string, inputs map[string]any) Definition {
	return Definition{Trigger: &Trigger{Kind: kind, Inputs: inputs}}
}

// realEngagement is an engagement payload as the dispatcher builds it.
func realEngagement() map[string]any {
	return map[string]any{"id": "e1", "topic_id": "t1", "prospect_id": "urn:li:fsd_profile:real",
		"prospect":   map[string]any{"full_name": "Ravi Real", "pronet_url": "https://www.linkedin.com/in/ravi", "company": "Realco"},
		"engagement": map[string]any{"type": "like", "text": ""},
		"post":       map[string]any{"urn": "1", "postUrl": "https://www.linkedin.com/feed/update/urn:li:activity:1/", "likeCount": float64(3)}}
}

func TestNewTestEvent(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 2, 7, 58, 30, 0, time.UTC)
	w := Workflow{ID: "w1", AccountID: "a1"}
	engagement := triggered(TriggerEngagement, map[string]any{"topic_id": "t1"})

	t.Run("engagement: the topic's newest engagement, overrides in its shape", func(t *testing.T) {
		f := &fakeEvents{engagement: realEngagement()}
		ev, err := NewTestEvent(ctx, f, w, engagement, Overrides{AuthorURL: ptr("https://www.linkedin.com/in/override"), Text: ptr("Nice"),
			Likes: ptr(int64(9)), DatePosted: ptr(time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)), Source: ptr("qa")}, now)
		if err != nil {
			t.Fatal(err)
		}
		p := ev.Payload
		prospect, post := p["prospect"].(map[string]any), p["post"].(map[string]any)
		if ev.Source != FromTopic || f.asked[0] != "engagement a1/t1" || prospect["full_name"] != "Ravi Real" || p["topic_id"] != "t1" {
			t.Fatalf("%s %v: %v", ev.Source, f.asked, p)
		}
		if prospect["pronet_url"] != "https://www.linkedin.com/in/override" || p["engagement"].(map[string]any)["text"] != "Nice" ||
			post["likeCount"] != float64(9) || post["postedDate"] != "2026-10-01T12:00:00.000Z" || post["postedDateTimestamp"] != float64(1790856000000) || p["source"] != "qa" {
			t.Fatalf("overrides not in the engagement's shape: %v", p)
		}
		if want := []string{"author_url", "date_posted", "likes", "source", "text"}; !reflect.DeepEqual(ev.Overridden, want) {
			t.Fatalf("overridden %v", ev.Overridden)
		}
	})

	t.Run("engagement without one: a sample of the same shape, saying so", func(t *testing.T) {
		ev, err := NewTestEvent(ctx, &fakeEvents{}, w, engagement, Overrides{}, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"id", "topic_id", "prospect_id", "pronet_post_id", "discovery_interval", "created", "prospect", "engagement", "post"} {
			if _, ok := ev.Payload[k]; !ok {
				t.Errorf("the sample lacks %s: %v", k, ev.Payload)
			}
		}
		if ev.Source != FromSynthetic || ev.Payload["topic_id"] != "t1" || len(ev.Overridden) != 0 {
			t.Fatalf("%s %v", ev.Source, ev.Payload)
		}
		ev, _ = NewTestEvent(ctx, &fakeEvents{}, w, engagement, Overrides{Text: ptr("hi")}, now)
		if ev.Source != FromOverride || ev.Payload["engagement"].(map[string]any)["text"] != "hi" {
			t.Fatalf("%s %v", ev.Source, ev.Payload)
		}
	})

	t.Run("new post: the linked search's newest result, or the account's", func(t *testing.T) {
		f := &fakeEvents{result: map[string]any{"search_id": "s1", "text": "real", "likes": float64(1)}}
		linked := w
		linked.SearchID = "s1"
		ev, err := NewTestEvent(ctx, f, linked, Definition{}, Overrides{Likes: ptr(int64(25)), DatePosted: ptr(now)}, now)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Source != FromSearch || ev.Payload["text"] != "real" || ev.Payload["likes"] != float64(25) || ev.Payload["date_posted"] != "2026-11-02T07:58:30.000Z" {
			t.Fatalf("%s %v", ev.Source, ev.Payload)
		}
		if _, err := NewTestEvent(ctx, f, w, Definition{}, Overrides{}, now); err != nil || f.asked[1] != "result a1/" {
			t.Fatalf("an unlinked workflow asked %v (%v)", f.asked, err)
		}
		ev, _ = NewTestEvent(ctx, &fakeEvents{}, linked, Definition{}, Overrides{}, now)
		if ev.Source != FromSynthetic || ev.Payload["search_id"] != "s1" || ev.Payload["result"] == nil {
			t.Fatalf("%s %v", ev.Source, ev.Payload)
		}
	})

	t.Run("webhook: the last delivery", func(t *testing.T) {
		hook := triggered(TriggerWebhook, nil)
		ev, _ := NewTestEvent(ctx, &fakeEvents{delivery: map[string]any{"amount": float64(250)}}, w, hook, Overrides{Text: ptr("x")}, now)
		if ev.Source != FromWebhook || ev.Payload["amount"] != float64(250) || ev.Payload["text"] != "x" {
			t.Fatalf("%s %v", ev.Source, ev.Payload)
		}
		ev, _ = NewTestEvent(ctx, &fakeEvents{}, w, hook, Overrides{}, now)
		if ev.Source != FromSynthetic || ev.Payload["event"] != "lead.created" {
			t.Fatalf("%s %v", ev.Source, ev.Payload)
		}
	})

	t.Run("scheduled: the cron's latest occurrence, in its time zone", func(t *testing.T) {
		for _, c := range []struct {
			cron, zone string
			now        time.Time
			want       string
		}{
			{"0 9 * * *", "Europe/Berlin", now, "2026-11-01T08:00:00Z"},
			{"0 9 * * *", "Europe/Berlin", time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC), "2026-11-02T08:00:00Z"},
			{"*/5 * * * *", "", now, "2026-11-02T07:55:00Z"},
			{"0 0 1 1 *", "UTC", now, "2026-01-01T00:00:00Z"},
			{"0 0 29 2 *", "UTC", now, "2024-02-29T00:00:00Z"},
		} {
			ev, err := NewTestEvent(ctx, &fakeEvents{}, w, triggered(TriggerScheduled, map[string]any{"cron": c.cron, "timezone": c.zone}), Overrides{}, c.now)
			if err != nil || ev.Source != FromSchedule || ev.Payload["scheduled_at"] != c.want || ev.Payload["fired_at"] != c.now.Format(time.RFC3339) {
				t.Errorf("%s in %q at %v: %s %v (%v)", c.cron, c.zone, c.now, ev.Source, ev.Payload, err)
			}
		}
	})

	t.Run("a failed lookup fails the test run", func(t *testing.T) {
		if _, err := NewTestEvent(ctx, &fakeEvents{err: errors.New("down")}, w, engagement, Overrides{}, now); err == nil {
			t.Fatal("no error")
		}
	})
}

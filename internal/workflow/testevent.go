package workflow

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/robfig/cron/v3"
)

// EventSource says which event a test run runs on (its
// trigger_post_source, as the hosted API names it).
type EventSource string

// Event sources: a real event of the trigger's source, or a sample.
const (
	FromSearch   EventSource = "search"   // the saved search's newest result (new-post)
	FromTopic    EventSource = "topic"    // the topic's newest engagement (engagement)
	FromWebhook  EventSource = "webhook"  // the webhook's last delivery (webhook)
	FromSchedule EventSource = "schedule" // the cron's latest occurrence (scheduled)
	// FromOverride: no real event; the sample under the overrides given.
	FromOverride EventSource = "override"
	// FromSynthetic: no real event and no overrides; the sample alone.
	FromSynthetic EventSource = "synthetic"
)

// Overrides are a test run's values for its event: the fields of the
// spec's new-post payload, placed where each trigger kind's payload keeps
// them (applyOverrides).
type Overrides struct {
	AuthorURL, Text, PostURL, Source *string
	Likes, Comments                  *int64
	DatePosted                       *time.Time
}

// RealEvents finds the newest real event of a trigger's source, as the
// payload an execution of that trigger gets; found is false when there is
// none.
type RealEvents interface {
	// LatestResult: the newest result of the saved search, or of any of
	// the account's searches when searchID is "" (what fires a new-post
	// workflow that links none).
	LatestResult(ctx context.Context, accountID, searchID string) (payload map[string]any, found bool, err error)
	// LatestEngagement: the topic's newest engagement.
	LatestEngagement(ctx context.Context, accountID, topicID string) (payload map[string]any, found bool, err error)
	// LatestDelivery: the last delivery the workflow's webhook received.
	LatestDelivery(ctx context.Context, workflowID string) (payload map[string]any, found bool, err error)
}

// TestEvent is the event a test run runs on.
type TestEvent struct {
	Payload map[string]any
	Source  EventSource
	// Overridden names the overrides applied, sorted.
	Overridden []string
}

// NewTestEvent is the event of a test run of w running def (the draft or
// the live definition): the newest real event of its trigger's source, as
// the trigger would fire it, else the trigger kind's sample; the
// overrides on top. A test run must not act on a made-up lead when a real
// one is at hand, and must say when it does.
func NewTestEvent(ctx context.Context, real RealEvents, w Workflow, def Definition, o Overrides, now time.Time) (TestEvent, error) {
	kind := def.TriggerKind()
	var (
		payload map[string]any
		found   bool
		err     error
		source  EventSource
	)
	switch kind {
	case TriggerNewPost:
		payload, found, err = real.LatestResult(ctx, w.AccountID, w.SearchID)
		source = FromSearch
	case TriggerEngagement:
		if topicID, _ := def.Trigger.Inputs["topic_id"].(string); topicID != "" {
			payload, found, err = real.LatestEngagement(ctx, w.AccountID, topicID)
		}
		source = FromTopic
	case TriggerWebhook:
		payload, found, err = real.LatestDelivery(ctx, w.ID)
		source = FromWebhook
	case TriggerScheduled:
		if at, ok := LatestOccurrence(def, now); ok {
			payload, found = ScheduledPayload(at, now), true
		}
		source = FromSchedule
	}
	if err != nil {
		return TestEvent{}, fmt.Errorf("workflow: the latest %s event: %w", kind, err)
	}
	if !found {
		payload = samplePayload(def, w.SearchID, now)
	}
	ev := TestEvent{Payload: payload, Source: source, Overridden: applyOverrides(kind, payload, o)}
	if !found {
		ev.Source = FromSynthetic
		if len(ev.Overridden) > 0 {
			ev.Source = FromOverride
		}
	}
	return ev, nil
}

// ScheduledPayload is the payload of a scheduled trigger's occurrence at,
// fired at now.
func ScheduledPayload(at, now time.Time) map[string]any {
	return map[string]any{"scheduled_at": at.UTC().Format(time.RFC3339), "fired_at": now.UTC().Format(time.RFC3339)}
}

// LatestOccurrence is the latest occurrence of a scheduled trigger's cron
// at or before now (false when it has none in the past seven years, as
// cron's own search gives up after five, or the trigger is not a valid
// schedule). Cron schedules only look forward, so
// it looks forward from ever earlier starts.
func LatestOccurrence(def Definition, now time.Time) (time.Time, bool) {
	if def.TriggerKind() != TriggerScheduled {
		return time.Time{}, false
	}
	spec, _ := def.Trigger.Inputs["cron"].(string)
	zone, _ := def.Trigger.Inputs["timezone"].(string)
	if zone == "" {
		zone = "UTC"
	}
	sched, loc, err := ParseSchedule(spec, zone)
	if err != nil {
		return time.Time{}, false
	}
	return latestOccurrence(sched, loc, now)
}

func latestOccurrence(sched cron.Schedule, loc *time.Location, now time.Time) (time.Time, bool) {
	for back := time.Hour; back <= 8*366*24*time.Hour; back *= 4 {
		var last time.Time
		// Next is strictly after its argument: start a second early so
		// that an occurrence at the window's start counts.
		for at := sched.Next(now.Add(-back - time.Second).In(loc)); !at.IsZero() && !at.After(now); at = sched.Next(at) {
			last = at
		}
		if !last.IsZero() {
			return last.UTC(), true
		}
	}
	return time.Time{}, false
}

// applyOverrides sets the overrides given in a payload of the trigger
// kind and returns their names, sorted. A new-post payload has the
// overrides' own fields; an engagement's lead is its prospect and its
// post the post engaged with: author_url is the prospect's pronet_url,
// text the engagement's text, post_url, likes, comments and date_posted
// the post's postUrl, likeCount, commentsCount and postedDate. Webhook
// and scheduled payloads have no fixed shape: the overrides are set at
// their top level, by name. source is a top-level label everywhere.
func applyOverrides(kind string, p map[string]any, o Overrides) []string {
	var names []string
	set := func(name string, v any, at ...string) {
		m := p
		for _, k := range at[:len(at)-1] {
			inner, ok := m[k].(map[string]any)
			if !ok {
				inner = map[string]any{}
				m[k] = inner
			}
			m = inner
		}
		m[at[len(at)-1]] = v
		names = append(names, name)
	}
	var datePosted string
	if o.DatePosted != nil {
		datePosted = o.DatePosted.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if kind == TriggerEngagement {
		if o.AuthorURL != nil {
			set("author_url", *o.AuthorURL, "prospect", "pronet_url")
		}
		if o.Text != nil {
			set("text", *o.Text, "engagement", "text")
		}
		if o.PostURL != nil {
			set("post_url", *o.PostURL, "post", "postUrl")
		}
		if o.Likes != nil {
			set("likes", float64(*o.Likes), "post", "likeCount")
		}
		if o.Comments != nil {
			set("comments", float64(*o.Comments), "post", "commentsCount")
		}
		if o.DatePosted != nil {
			set("date_posted", datePosted, "post", "postedDate")
			p["post"].(map[string]any)["postedDateTimestamp"] = float64(o.DatePosted.UnixMilli())
		}
	} else {
		for name, v := range map[string]*string{"author_url": o.AuthorURL, "text": o.Text, "post_url": o.PostURL} {
			if v != nil {
				set(name, *v, name)
			}
		}
		for name, v := range map[string]*int64{"likes": o.Likes, "comments": o.Comments} {
			if v != nil {
				set(name, float64(*v), name)
			}
		}
		if o.DatePosted != nil {
			set("date_posted", datePosted, "date_posted")
		}
	}
	if o.Source != nil {
		set("source", *o.Source, "source")
	}
	slices.Sort(names)
	return names
}

// sampleID is the id of the sample's made-up records: plainly not real.
const sampleID = "00000000-0000-7000-8000-000000000000"

// samplePayload is the event a test run runs on when its trigger's source
// has none yet: a plausible event of the trigger kind, in the shape the
// real trigger gives (docs/decisions.md, "Test runs on real events").
func samplePayload(def Definition, searchID string, now time.Time) map[string]any {
	at := now.UTC().Format("2006-01-02T15:04:05.000Z")
	switch def.TriggerKind() {
	case TriggerEngagement:
		topicID, _ := def.Trigger.Inputs["topic_id"].(string)
		urn := "7263450183458918400"
		return map[string]any{
			"id": sampleID, "topic_id": topicID, "prospect_id": "urn:li:fsd_profile:ACoAAJaneDoe",
			"pronet_post_id": urn, "discovery_interval": "initial", "created": at,
			"prospect": map[string]any{"full_name": "Jane Doe", "pronet_url": "https://www.linkedin.com/in/jane-doe",
				"job_title": "VP Revenue Operations", "company": "Acme", "company_domain": "acme.example",
				"pronet_urn": "urn:li:fsd_profile:ACoAAJaneDoe"},
			"engagement": map[string]any{"type": "comment", "text": "Great points on pipeline hygiene."},
			"post": map[string]any{"urn": urn, "entityType": "post", "text": "How we rebuilt our RevOps stack",
				"postUrl":    "https://www.linkedin.com/feed/update/urn:li:activity:" + urn + "/",
				"postedDate": at, "postedDateTimestamp": float64(now.UnixMilli()),
				"likeCount": float64(42), "totalReactionCount": float64(42), "commentsCount": float64(7),
				"author": map[string]any{"firstName": "Sam", "lastName": "Poster", "url": "https://www.linkedin.com/in/sam-poster"}},
		}
	case TriggerWebhook:
		return map[string]any{"event": "lead.created", "email": "jane@example.com"}
	case TriggerScheduled:
		return ScheduledPayload(now, now)
	}
	text, url := "Anyone have a CRM they actually like?", "https://x.com/jack/status/1858000000000000000"
	return map[string]any{
		"search_id": searchID, "author_url": "https://x.com/jack", "text": text, "post_url": url,
		"likes": float64(42), "comments": float64(7), "date_posted": at, "source": "microblog",
		"result": map[string]any{"id": "1858000000000000000", "source": "microblog",
			"author":       map[string]any{"name": "jack", "username": "jack", "profile_url": "https://x.com/jack", "avatar": "", "followers": nil},
			"content":      map[string]any{"text": text, "url": url, "media": []any{}},
			"engagement":   map[string]any{"likes": float64(42), "comments": float64(7), "shares": nil},
			"published_at": at, "collected_at": at},
	}
}

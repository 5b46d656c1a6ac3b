package main

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
)

// End-to-end tests of the event a test run runs on: the newest real event
// of its trigger's source, overrides on top, and the reply says which.

type testRunView struct {
	TestRunID         string   `json:"test_run_id"`
	TriggerType       string   `json:"trigger_type"`
	TriggerPostSource string   `json:"trigger_post_source"`
	OverridesApplied  []string `json:"overrides_applied"`
}

// testRun starts a test run and waits for its end.
func testRun(t *testing.T, ts *testServer, c *client.Client, workflowID string, body any) (testRunView, executionView) {
	t.Helper()
	var out testRunView
	if err := mustDo(t, c, http.MethodPost, "/v1/workflows/"+workflowID+"/test", body, 200).Data(&out); err != nil {
		t.Fatal(err)
	}
	return out, waitExecution(t, ts, c, workflowID, out.TestRunID, ended)
}

// crmRecorder stands for a user's CRM: it keeps the JSON bodies it gets.
type crmRecorder struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (r *crmRecorder) last() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bodies) == 0 {
		return nil
	}
	return r.bodies[len(r.bodies)-1]
}

func TestWorkflowTestRunsUseRealEvents(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		crm := &crmRecorder{}
		recorder, _ := listenCounting(t, "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
			raw, _ := io.ReadAll(r.Body)
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			crm.mu.Lock()
			crm.bodies = append(crm.bodies, body)
			crm.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id": "lead-1"}`))
		})
		clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
		ts := startServerAt(t, serverEnv(t, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s", "TRAWL_ALLOW_PRIVATE_NETWORKS": "127.0.0.1/32",
			"TRAWL_RATE_LIMIT_CUSTOM": "100000", "TRAWL_RATE_LIMIT_STARTER": "100000"}), clk.Now)
		c := ts.Client

		t.Run("engagement: the topic's newest engagement reaches the CRM, overrides in its shape", func(t *testing.T) {
			tp := createTopic(t, c, map[string]any{"name": "revops", "keywords": []string{"revops"}, "max_results": 10})
			// Every first hydration done, the engagements hold still.
			day1 := clk.Now().Add(24 * time.Hour).Format("2006-01-02T15:04:05.000Z")
			waitUntil(t, ts, "every first hydration", func() bool {
				posts, _ := listAll[topicPost](t, c, "/v1/topics/"+tp.ID+"/posts")
				for _, p := range posts {
					if p.NextFollowUpAt == nil || *p.NextFollowUpAt != day1 {
						return false
					}
				}
				return len(posts) > 0
			})
			var newest topicEngagement
			waitUntil(t, ts, "the topic's engagements", func() bool {
				var page struct {
					Data []topicEngagement `json:"data"`
				}
				if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/topics/"+tp.ID+"/engagements?page=1&page_size=10", nil, 200).Body, &page); err != nil {
					t.Fatal(err)
				}
				if len(page.Data) == 0 {
					return false
				}
				newest = page.Data[0]
				return true
			})
			def := `{"trigger":{"kind":"workflows/engagement","inputs":{"topic_id":"` + tp.ID + `"}},
				"actions":[{"id":"crm","kind":"http_request","inputs":{"method":"POST","url":"` + recorder.URL + `/leads",
				 "body":{"name":"{{ trigger.prospect.full_name }}","url":"{{ trigger.prospect.pronet_url }}","topic":"{{ trigger.topic_id }}","said":"{{ trigger.engagement.text }}"}}}],
				"edges":[{"from":"$source","to":"crm"}]}`
			w := createWorkflow(t, c, map[string]any{"name": "to the CRM", "workflow": json.RawMessage(def)})

			run, x := testRun(t, ts, c, w.ID, map[string]any{})
			if run.TriggerType != "workflows/engagement" || run.TriggerPostSource != "topic" || run.OverridesApplied == nil || len(run.OverridesApplied) != 0 {
				t.Fatalf("reply %+v", run)
			}
			prospect, _ := x.Trigger["prospect"].(map[string]any)
			if x.Status != "completed" || x.Trigger["id"] != newest.ID || x.Trigger["topic_id"] != tp.ID || prospect["full_name"] != newest.Prospect.FullName {
				t.Fatalf("the run's event %v, want engagement %+v", x.Trigger, newest)
			}
			want := map[string]any{"name": newest.Prospect.FullName, "url": newest.Prospect.PronetURL, "topic": tp.ID, "said": newest.Engagement.Text}
			if got := crm.last(); !reflect.DeepEqual(got, want) || newest.Prospect.FullName == "Jane Doe" {
				t.Fatalf("the CRM got %v, want the real lead %v", got, want)
			}

			run, x = testRun(t, ts, c, w.ID, map[string]any{"overrides": map[string]any{"author_url": "https://www.linkedin.com/in/qa-lead", "text": "Count me in", "source": "qa"}})
			if run.TriggerPostSource != "topic" || !reflect.DeepEqual(run.OverridesApplied, []string{"author_url", "source", "text"}) {
				t.Fatalf("reply %+v", run)
			}
			want["url"], want["said"] = "https://www.linkedin.com/in/qa-lead", "Count me in"
			if got := crm.last(); x.Status != "completed" || !reflect.DeepEqual(got, want) || x.Trigger["source"] != "qa" {
				t.Fatalf("with overrides the CRM got %v, want %v", got, want)
			}
		})

		t.Run("new post: the newest result of the linked search, or of any search; a sample only without one", func(t *testing.T) {
			acct := newAccount(t, ts, "searcher", "ENTERPRISE", "")
			c := newKey(t, ts, acct, "*")
			s := createSearch(t, c, map[string]any{"name": "crm", "keywords": []string{"crm"}, "max_results": 10})
			var results []resultItem
			waitUntil(t, ts, "the search's first results", func() bool {
				results, _ = pageResults(t, c, s.ID, "")
				return len(results) > 0
			})
			def := json.RawMessage(`{"actions":[{"id":"note","kind":"builtin:set","inputs":{"values":{"url":"{{ trigger.post_url }}"}}}],"edges":[{"from":"$source","to":"note"}]}`)
			linked := createWorkflow(t, c, map[string]any{"name": "linked", "workflow": def, "search_id": s.ID})
			unlinked := createWorkflow(t, c, map[string]any{"name": "unlinked", "workflow": def})
			for _, id := range []string{linked.ID, unlinked.ID} {
				run, x := testRun(t, ts, c, id, map[string]any{"overrides": map[string]any{"likes": 25}})
				if run.TriggerPostSource != "search" || !reflect.DeepEqual(run.OverridesApplied, []string{"likes"}) {
					t.Fatalf("reply %+v", run)
				}
				if x.Trigger["search_id"] != s.ID || x.Trigger["post_url"] != results[0].Content.URL || x.Trigger["likes"] != float64(25) || x.Trigger["result"] == nil {
					t.Fatalf("the run's event %v, want the newest result %+v", x.Trigger, results[0])
				}
			}

			// A key that may not read search results gets the sample for
			// an unlinked workflow (a linked one it may not test at all).
			narrow := newKey(t, ts, acct, "topics:read")
			if run, x := testRun(t, ts, narrow, unlinked.ID, map[string]any{}); run.TriggerPostSource != "synthetic" || x.Trigger["search_id"] != "" {
				t.Fatalf("a key without searches:read: %+v %v", run, x.Trigger)
			}

			// An account without searches has no real event.
			fresh := newKey(t, ts, newAccount(t, ts, "fresh", "STARTER", ""), "*")
			w := createWorkflow(t, fresh, map[string]any{"name": "new", "workflow": def})
			if run, x := testRun(t, ts, fresh, w.ID, map[string]any{}); run.TriggerPostSource != "synthetic" || len(run.OverridesApplied) != 0 || x.Trigger["result"] == nil {
				t.Fatalf("without searches: %+v %v", run, x.Trigger)
			}
			run, x := testRun(t, ts, fresh, w.ID, map[string]any{"overrides": map[string]any{"post_url": "https://x.com/ann/status/1", "date_posted": "2026-10-01T12:00:00+02:00"}})
			if run.TriggerPostSource != "override" || x.Trigger["post_url"] != "https://x.com/ann/status/1" || x.Trigger["date_posted"] != "2026-10-01T10:00:00.000Z" {
				t.Fatalf("overrides without searches: %+v %v", run, x.Trigger)
			}
		})

		t.Run("webhook: the last delivery", func(t *testing.T) {
			def := `{"trigger":{"kind":"workflows/webhook"},"actions":[{"id":"keep","kind":"builtin:set","inputs":{"values":{"email":"{{ trigger.email }}"}}}],
				"edges":[{"from":"$source","to":"keep"}]}`
			w := createWorkflow(t, c, map[string]any{"name": "hook", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
			if run, x := testRun(t, ts, c, w.ID, map[string]any{}); run.TriggerPostSource != "synthetic" || x.Trigger["event"] != "lead.created" {
				t.Fatalf("before any delivery: %+v %v", run, x.Trigger)
			}
			if st, out := postHook(t, ts.HTTP, *w.WebhookURL+"?wait=true", http.Header{}, []byte(`{"amount": 250, "email": "cfo@example.com"}`)); st != 200 {
				t.Fatalf("delivery: %d %v", st, out)
			}
			run, x := testRun(t, ts, c, w.ID, map[string]any{"overrides": map[string]any{"text": "hello"}})
			if run.TriggerPostSource != "webhook" || x.Trigger["amount"] != float64(250) || x.Trigger["email"] != "cfo@example.com" || x.Trigger["text"] != "hello" {
				t.Fatalf("after a delivery: %+v %v", run, x.Trigger)
			}
			// A test run is not a delivery: the next one still sees the last real one.
			if _, x := testRun(t, ts, c, w.ID, map[string]any{}); x.Trigger["text"] != nil || x.Trigger["amount"] != float64(250) {
				t.Fatalf("the test run's own event was replayed: %v", x.Trigger)
			}
		})

		t.Run("scheduled: the cron's latest occurrence", func(t *testing.T) {
			def := `{"trigger":{"kind":"workflows/scheduled-trigger","inputs":{"cron":"0 9 * * *","timezone":"Europe/Berlin"}},
				"actions":[{"id":"tick","kind":"builtin:set","inputs":{"values":{"at":"{{ trigger.scheduled_at }}"}}}],"edges":[{"from":"$source","to":"tick"}]}`
			w := createWorkflow(t, c, map[string]any{"name": "daily", "workflow": json.RawMessage(def)})
			run, x := testRun(t, ts, c, w.ID, map[string]any{})
			// 09:00 UTC is 10:00 in Berlin: today's 09:00 Berlin occurrence was at 08:00 UTC.
			if run.TriggerPostSource != "schedule" || x.Trigger["scheduled_at"] != "2026-11-02T08:00:00Z" || x.Trigger["fired_at"] == nil {
				t.Fatalf("%+v %v", run, x.Trigger)
			}
		})
	})
}

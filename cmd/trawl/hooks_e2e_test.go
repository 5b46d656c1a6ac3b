package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
)

// sign makes Standard Webhooks headers for body with a whsec_ secret.
func sign(t *testing.T, secret, id string, at time.Time, body []byte) http.Header {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,bm9wZQ== v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return h
}

// postHook posts body to a webhook URL through hc.
func postHook(t *testing.T, hc *http.Client, url string, h http.Header, body []byte) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// hookFlow publishes a webhook-triggered workflow that checks signatures
// and returns its URL, secret and id.
func hookFlow(t *testing.T, ts *testServer) (url, secret, id string) {
	t.Helper()
	def := `{"trigger":{"kind":"workflows/webhook","inputs":{"verify_signature":true}},
		"actions":[{"id":"keep","kind":"builtin:set","inputs":{"values":{"seen":true}}}],
		"edges":[{"from":"$source","to":"keep"}]}`
	w := createWorkflow(t, ts.Client, map[string]any{"name": "hook", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
	if w.WebhookURL == nil || w.WebhookSecret == nil {
		t.Fatalf("no webhook url or secret: %+v", w)
	}
	return *w.WebhookURL, *w.WebhookSecret, w.ID
}

// executionsOf is how many executions the workflow has recorded.
func executionsOf(t *testing.T, ts *testServer, workflowID string) int64 {
	t.Helper()
	var page struct {
		Pagination struct {
			TotalCount int64 `json:"total_count"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(mustDo(t, ts.Client, http.MethodGet, "/v1/workflows/"+workflowID+"/executions", nil, 200).Body, &page); err != nil {
		t.Fatal(err)
	}
	return page.Pagination.TotalCount
}

func TestWebhookTrigger(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		def := `{"trigger":{"kind":"workflows/webhook","inputs":{"verify_signature":true}},
			"actions":[{"id":"big","kind":"builtin:if","inputs":{"condition":"{{ trigger.amount > 100 }}"}},
			           {"id":"yes","kind":"builtin:set","inputs":{"values":{"tier":"enterprise","email":"{{ trigger.email }}"}}},
			           {"id":"no","kind":"builtin:set","inputs":{"values":{"tier":"self-serve"}}}],
			"edges":[{"from":"$source","to":"big"},{"from":"big","to":"yes","conditional":{"type":"if"}},{"from":"big","to":"no","conditional":{"type":"else"}}]}`
		w := createWorkflow(t, c, map[string]any{"name": "hook", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		if w.WebhookURL == nil || w.WebhookSecret == nil {
			t.Fatalf("no webhook url or secret: %+v", w)
		}
		url, secret := *w.WebhookURL, *w.WebhookSecret
		body := []byte(`{"amount": 250, "email": "cfo@example.com"}`)

		if st, out := postHook(t, ts.HTTP, url, http.Header{}, body); st != 401 {
			t.Fatalf("unsigned: %d %v", st, out)
		}
		bad := sign(t, secret, "msg_1", time.Now(), []byte(`{"amount": 1}`))
		if st, _ := postHook(t, ts.HTTP, url, bad, body); st != 401 {
			t.Fatalf("signature of another body: %d", st)
		}
		if st, _ := postHook(t, ts.HTTP, url, sign(t, secret, "msg_old", time.Now().Add(-10*time.Minute), body), body); st != 401 {
			t.Fatalf("old timestamp: %d", st)
		}

		h := sign(t, secret, "msg_1", time.Now(), body)
		// A sender may add parameters of its own to the URL.
		st, out := postHook(t, ts.HTTP, url+"?wait=true&utm_source=crm", h, body)
		data, _ := out["data"].(map[string]any)
		output, _ := data["output"].(map[string]any)
		if st != 200 || data["status"] != "completed" || output["tier"] != "enterprise" || output["email"] != "cfo@example.com" {
			t.Fatalf("waited hook: %d %v", st, out)
		}
		first := data["execution_id"].(string)
		st, out = postHook(t, ts.HTTP, url, h, body)
		if again := out["data"].(map[string]any)["execution_id"]; st != 202 || again != first {
			t.Fatalf("repeated webhook-id: %d %v (first %s)", st, again, first)
		}
		x := execution(t, c, w.ID, first)
		if x.keys() != "big:completed yes:completed no:skipped" || x.EventName != "workflows/webhook" || x.IsTest {
			t.Fatalf("execution %s %+v", x.keys(), x)
		}
		st, out = postHook(t, ts.HTTP, url, sign(t, secret, "msg_2", time.Now(), body), body)
		second, _ := out["data"].(map[string]any)["execution_id"].(string)
		if st != 202 || second == "" || second == first {
			t.Fatalf("second event: %d %v", st, out)
		}
		waitExecution(t, ts, c, w.ID, second, ended)

		if st, _ := postHook(t, ts.HTTP, strings.TrimSuffix(url, url[len(url)-4:])+"AAAA", h, body); st != 404 {
			t.Fatalf("unknown token: %d", st)
		}
		mustDo(t, c, http.MethodPatch, "/v1/workflows/"+w.ID, map[string]any{"enabled": false}, 200)
		if st, _ := postHook(t, ts.HTTP, url, sign(t, secret, "msg_3", time.Now(), body), body); st != 409 {
			t.Fatalf("disabled workflow: %d", st)
		}
		if n := executionsOf(t, ts, w.ID); n != 2 {
			t.Fatalf("executions recorded: %d", n)
		}
	})
}

// TestNewPostTrigger: a published, enabled workflow linked to a saved
// search fires once per result collected after it began to fire; a
// disabled one does not, and one linked to another search sees only that
// search's results.
func TestNewPostTrigger(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
		ts := topicServer(t, engine, clk)
		c := ts.Client
		s := createSearch(t, c, map[string]any{"name": "crm", "keywords": []string{"crm"}, "max_results": 10})
		other := createSearch(t, c, map[string]any{"name": "other", "keywords": []string{"revops"}, "max_results": 10})
		results := func(id string) int64 {
			var got savedSearch
			_ = mustDo(t, c, http.MethodGet, "/v1/searches/"+id, nil, 200).Data(&got)
			return got.TotalResults
		}
		waitUntil(t, ts, "the searches' first results", func() bool { return results(s.ID) > 0 && results(other.ID) > 0 })
		before := results(s.ID)

		def := `{"trigger":{"kind":"workflows/new-post"},"actions":[{"id":"note","kind":"builtin:set","inputs":{"values":{"url":"{{ trigger.post_url }}","src":"{{ trigger.source }}"}}}],
			"edges":[{"from":"$source","to":"note"}]}`
		live := createWorkflow(t, c, map[string]any{"name": "live", "workflow": json.RawMessage(def), "search_id": s.ID, "status": "PUBLISHED", "enabled": true})
		off := createWorkflow(t, c, map[string]any{"name": "off", "workflow": json.RawMessage(def), "search_id": s.ID, "status": "PUBLISHED"})
		elsewhere := createWorkflow(t, c, map[string]any{"name": "elsewhere", "workflow": json.RawMessage(def), "search_id": other.ID, "status": "PUBLISHED", "enabled": true})

		clk.Advance(6 * time.Hour) // new posts appear; collect them now
		mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 200)
		mustDo(t, c, http.MethodPost, "/v1/searches/"+other.ID+"/run", nil, 200)
		waitUntil(t, ts, "new results", func() bool { return results(s.ID) > before })

		count := func(id string, search string) int64 {
			var page struct {
				Data []struct {
					Trigger map[string]any `json:"trigger"`
				} `json:"data"`
				Pagination struct {
					TotalCount int64 `json:"total_count"`
				} `json:"pagination"`
			}
			if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/workflows/"+id+"/executions?page_size=100", nil, 200).Body, &page); err != nil {
				t.Fatal(err)
			}
			for _, x := range page.Data {
				if x.Trigger["post_url"] == "" || x.Trigger["result"] == nil || x.Trigger["search_id"] != search {
					t.Fatalf("payload %v, want a result of search %s", x.Trigger, search)
				}
			}
			return page.Pagination.TotalCount
		}
		fired := func() bool { n := count(live.ID, s.ID); return n > 0 && n == results(s.ID)-before }
		waitUntil(t, ts, "one execution per new result", fired)
		time.Sleep(2 * time.Second) // two more ticks: nothing fires twice
		waitUntil(t, ts, "still one execution per new result", fired)
		if n := count(off.ID, s.ID); n != 0 {
			t.Fatalf("a disabled workflow fired %d times", n)
		}
		count(elsewhere.ID, other.ID) // fires only on its own search's results

		// A test run samples the linked search's latest result, overrides applied.
		x := waitExecution(t, ts, c, live.ID, startTest(t, c, live.ID, map[string]any{"overrides": map[string]any{"likes": 7}}), ended)
		if x.Trigger["search_id"] != s.ID || x.Trigger["result"] == nil || x.Trigger["likes"] != float64(7) || x.Trigger["post_url"] == "https://x.com/jack/status/1858000000000000000" {
			t.Fatalf("test-run payload %v", x.Trigger)
		}
	})
}

// TestScheduledTrigger: a cron workflow fires once per occurrence, in its
// time zone, and after downtime only for the latest missed occurrence.
func TestScheduledTrigger(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		// 07:58 UTC is 08:58 in Berlin (CET).
		clk := clock.NewFake(time.Date(2026, 11, 2, 7, 58, 0, 0, time.UTC))
		ts := topicServer(t, engine, clk)
		c := ts.Client
		def := `{"trigger":{"kind":"workflows/scheduled-trigger","inputs":{"cron":"0 9 * * *","timezone":"Europe/Berlin"}},
			"actions":[{"id":"tick","kind":"builtin:set","inputs":{"values":{"at":"{{ trigger.scheduled_at }}"}}}],"edges":[{"from":"$source","to":"tick"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "daily", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		fired := func() []string {
			var page struct {
				Data []struct {
					Trigger map[string]any `json:"trigger"`
				} `json:"data"`
			}
			if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions?page_size=100", nil, 200).Body, &page); err != nil {
				t.Fatal(err)
			}
			var at []string
			for _, x := range page.Data {
				at = append(at, x.Trigger["scheduled_at"].(string))
			}
			return at
		}
		time.Sleep(1500 * time.Millisecond) // ticks before 09:00 fire nothing
		if got := fired(); len(got) != 0 {
			t.Fatalf("fired early: %v", got)
		}
		clk.Advance(3 * time.Minute)
		waitUntil(t, ts, "the 09:00 occurrence", func() bool { return len(fired()) == 1 })
		if got := fired(); got[0] != "2026-11-02T08:00:00Z" {
			t.Fatalf("occurrence %v, want 09:00 Berlin", got)
		}
		clk.Advance(3 * 24 * time.Hour) // three days down: only the latest runs
		waitUntil(t, ts, "the latest missed occurrence", func() bool { return len(fired()) == 2 })
		time.Sleep(1500 * time.Millisecond)
		if got := fired(); len(got) != 2 || got[0] != "2026-11-05T08:00:00Z" {
			t.Fatalf("after downtime: %v", got)
		}
	})
}

// TestEngagementTrigger: a workflow on a topic fires once per engagement
// the topic collects after it is published, with the engagement and its
// post as the payload.
func TestEngagementTrigger(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
		clk := clock.NewFake(start)
		ts := topicServer(t, engine, clk)
		c := ts.Client
		tp := createTopic(t, c, map[string]any{"name": "revops", "keywords": []string{"revops"}, "max_results": 10})
		day1 := start.Add(24 * time.Hour).Format("2006-01-02T15:04:05.000Z")
		waitUntil(t, ts, "every first hydration", func() bool {
			posts, _ := listAll[topicPost](t, c, "/v1/topics/"+tp.ID+"/posts")
			for _, p := range posts {
				if p.NextFollowUpAt == nil || *p.NextFollowUpAt != day1 {
					return false
				}
			}
			return len(posts) > 0
		})

		before := getTopic(t, c, tp.ID).EngagementsCount

		def := `{"trigger":{"kind":"workflows/engagement","inputs":{"topic_id":"` + tp.ID + `"}},
			"actions":[{"id":"who","kind":"builtin:set","inputs":{"values":{"name":"{{ trigger.prospect.full_name }}","type":"{{ trigger.engagement.type }}"}}}],
			"edges":[{"from":"$source","to":"who"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "engaged", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		executions := func() int64 {
			var page struct {
				Data []struct {
					Trigger map[string]any `json:"trigger"`
				} `json:"data"`
				Pagination struct {
					TotalCount int64 `json:"total_count"`
				} `json:"pagination"`
			}
			if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions?page_size=100", nil, 200).Body, &page); err != nil {
				t.Fatal(err)
			}
			for _, x := range page.Data {
				prospect, _ := x.Trigger["prospect"].(map[string]any)
				if prospect["full_name"] == "" || x.Trigger["post"] == nil || x.Trigger["pronet_post_id"] == "" {
					t.Fatalf("payload %v", x.Trigger)
				}
			}
			return page.Pagination.TotalCount
		}
		clk.Advance(24*time.Hour + time.Minute) // the Day 1 follow-ups find new engagers
		var n, total int64
		fired := func() bool {
			n, total = executions(), getTopic(t, c, tp.ID).EngagementsCount
			return n > 0 && n == total-before
		}
		defer func() {
			if t.Failed() {
				t.Logf("executions %d, engagements %d, before %d", n, total, before)
			}
		}()
		waitUntil(t, ts, "one execution per new engagement", fired)
		time.Sleep(2 * time.Second)
		waitUntil(t, ts, "still one execution per new engagement", fired)
	})
}

// TestEventsFireWithoutTick: new search results fire new-post workflows as
// soon as they are stored, not at the next tick (an hour away here).
func TestEventsFireWithoutTick(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
		env := serverEnv(t, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1h", "TRAWL_RATE_LIMIT_CUSTOM": "100000"})
		ts := startServerAt(t, env, clk.Now)
		c := ts.Client
		// The tick runs once when the workers start, then not for an hour.
		db := crashOpenDB(t, env["TRAWL_DATABASE_URL"])
		waitUntil(t, ts, "the start-up tick", func() bool {
			var n int
			err := db.QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'trawl.tick' AND state = 'completed'`).Scan(&n)
			return err == nil && n > 0
		})
		s := createSearch(t, c, map[string]any{"name": "crm", "keywords": []string{"crm"}, "max_results": 10})
		var got savedSearch
		waitUntil(t, ts, "the search's first results", func() bool {
			_ = mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID, nil, 200).Data(&got)
			return got.TotalResults > 0
		})
		before := got.TotalResults
		def := `{"trigger":{"kind":"workflows/new-post"},"actions":[{"id":"note","kind":"builtin:set","inputs":{"values":{"url":"{{ trigger.post_url }}"}}}],
			"edges":[{"from":"$source","to":"note"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "live", "workflow": json.RawMessage(def), "search_id": s.ID, "status": "PUBLISHED", "enabled": true})

		clk.Advance(6 * time.Hour) // new posts appear; collect them now
		mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 200)
		_ = mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID, nil, 200).Data(&got)
		if got.TotalResults == before {
			t.Fatal("the run found no new results to fire on")
		}
		waitUntil(t, ts, "one completed execution per new result, before any tick", func() bool {
			var page struct {
				Data []struct {
					Status string `json:"status"`
				} `json:"data"`
			}
			if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/workflows/"+w.ID+"/executions?page_size=100", nil, 200).Body, &page); err != nil {
				t.Fatal(err)
			}
			completed := 0
			for _, x := range page.Data {
				if x.Status == "completed" {
					completed++
				}
			}
			return int64(completed) == got.TotalResults-before
		})
	})
}

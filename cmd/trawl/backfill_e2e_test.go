package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
)

// backfillView is the data of a backfill's answer.
type backfillView struct {
	DryRun       bool   `json:"dry_run"`
	Trigger      string `json:"trigger"`
	Events       int    `json:"events"`
	AlreadyFired int    `json:"already_fired"`
	WouldRun     *int   `json:"would_run"`
	Queued       *int   `json:"queued"`
	Window       struct {
		Since string `json:"since"`
		Until string `json:"until"`
	} `json:"window"`
	CreditsPerExecution int64    `json:"credits_per_execution"`
	EstimatedCredits    int64    `json:"estimated_credits"`
	Truncated           bool     `json:"truncated"`
	NextCursor          *string  `json:"next_cursor"`
	ExecutionIDs        []string `json:"execution_ids"`
}

func backfill(t *testing.T, c *client.Client, workflowID string, body map[string]any, status int) backfillView {
	t.Helper()
	var v backfillView
	if err := mustDo(t, c, http.MethodPost, "/v1/workflows/"+workflowID+"/backfill", body, status).Data(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// backfilledRuns lists a workflow's executions (at most 100), checking each
// is a live one of the event kind.
func backfilledRuns(t *testing.T, c *client.Client, workflowID, kind string) []executionView {
	t.Helper()
	var page struct {
		Data []executionView `json:"data"`
	}
	if err := json.Unmarshal(mustDo(t, c, http.MethodGet, "/v1/workflows/"+workflowID+"/executions?page_size=100", nil, 200).Body, &page); err != nil {
		t.Fatal(err)
	}
	for _, x := range page.Data {
		if x.EventName != kind || x.IsTest {
			t.Fatalf("execution %+v, want a live %s one", x, kind)
		}
	}
	return page.Data
}

// TestBackfillNewPosts: a workflow published after its saved search
// collected fires on nothing until a backfill queues one execution per
// stored result; a second backfill queues none, and a result collected
// later fires once.
func TestBackfillNewPosts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
		ts := topicServer(t, engine, clk)
		c := ts.Client
		s := createSearch(t, c, map[string]any{"name": "crm", "keywords": []string{"crm"}, "max_results": 10})
		results := func() int {
			return int(getSearch(t, c, s.ID).TotalResults)
		}
		waitUntil(t, ts, "the search's first results", func() bool { return results() > 0 })
		collected := results()

		def := `{"trigger":{"kind":"workflows/new-post"},"actions":[{"id":"note","kind":"builtin:set","inputs":{"values":{"url":"{{ trigger.post_url }}"}}}],
			"edges":[{"from":"$source","to":"note"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "late", "workflow": json.RawMessage(def), "search_id": s.ID, "status": "PUBLISHED", "enabled": true})
		time.Sleep(1500 * time.Millisecond) // a tick: what was collected before does not fire it
		if xs := backfilledRuns(t, c, w.ID, "workflows/new-post"); len(xs) != 0 {
			t.Fatalf("%d executions before any backfill", len(xs))
		}

		t.Run("dry run", func(t *testing.T) {
			dry := backfill(t, c, w.ID, map[string]any{"dry_run": true}, 200)
			if !dry.DryRun || dry.Events != collected || dry.AlreadyFired != 0 || dry.WouldRun == nil || *dry.WouldRun != collected ||
				dry.Queued != nil || dry.Truncated || dry.EstimatedCredits != 0 || dry.Trigger != "workflows/new-post" ||
				dry.Window.Since != "1970-01-01T00:00:00.000Z" || dry.Window.Until != clk.Now().UTC().Format(apiTime) {
				t.Fatalf("dry run %+v, want %d events", dry, collected)
			}
			// One collection stores its results in one instant: the cursor
			// walks past them one by one.
			seen := 0
			for cursor := (*string)(nil); seen <= collected; seen++ {
				body := map[string]any{"dry_run": true, "limit": 1}
				if cursor != nil {
					body["cursor"] = *cursor
				}
				one := backfill(t, c, w.ID, body, 200)
				if one.Events != 1 || *one.WouldRun != 1 || one.Truncated != (seen < collected-1) {
					t.Fatalf("dry run of one, page %d: %+v", seen, one)
				}
				if cursor = one.NextCursor; cursor == nil {
					break
				}
			}
			if seen != collected-1 {
				t.Fatalf("walked %d pages of one, want %d", seen+1, collected)
			}
			// An empty window: before the search collected.
			none := backfill(t, c, w.ID, map[string]any{"dry_run": true, "until": "2026-11-01T00:00:00Z"}, 200)
			if none.Events != 0 || none.Truncated {
				t.Fatalf("dry run before the search %+v", none)
			}
			// The credits come from the steps' catalogue costs.
			costly := strings.Replace(def, `{"id":"note"`, `{"id":"who","kind":"person_enrichment","inputs":{"profile_url":"{{ trigger.author_url }}"}},{"id":"note"`, 1)
			costly = strings.Replace(costly, `"to":"note"}`, `"to":"note"},{"from":"$source","to":"who"}`, 1)
			cw := createWorkflow(t, c, map[string]any{"name": "costly", "workflow": json.RawMessage(costly), "search_id": s.ID, "status": "PUBLISHED"})
			cd := backfill(t, c, cw.ID, map[string]any{"dry_run": true}, 200)
			if cd.CreditsPerExecution != 1 || cd.EstimatedCredits != int64(collected) {
				t.Fatalf("dry run of an enriching workflow %+v, want %d credits", cd, collected)
			}
			if xs := backfilledRuns(t, c, w.ID, "workflows/new-post"); len(xs) != 0 {
				t.Fatalf("a dry run queued %d executions", len(xs))
			}
		})

		t.Run("validation", func(t *testing.T) {
			path := "/v1/workflows/" + w.ID + "/backfill"
			wantError(t, do(t, c, http.MethodPost, path, map[string]any{"since": "yesterday", "limit": 0}), 400, "VALIDATION_ERROR", "body.since", "body.limit")
			wantError(t, do(t, c, http.MethodPost, path, map[string]any{"since": "2026-11-02T00:00:00Z", "until": "2026-11-01T00:00:00Z", "limit": 10001}), 400, "VALIDATION_ERROR", "body.until", "body.limit")
			wantError(t, do(t, c, http.MethodPost, path, map[string]any{"until": "soon", "dry": true, "cursor": "%%"}), 400, "VALIDATION_ERROR", "body.until", "body.dry", "body.cursor")
			wantError(t, do(t, c, http.MethodPost, path, map[string]any{"since": "2030-01-01T00:00:00Z"}), 400, "VALIDATION_ERROR", "body.since")
			if xs := backfilledRuns(t, c, w.ID, "workflows/new-post"); len(xs) != 0 {
				t.Fatalf("a refused backfill queued %d executions", len(xs))
			}
		})

		t.Run("not backfillable", func(t *testing.T) {
			hook := createWorkflow(t, c, map[string]any{"name": "hook", "status": "PUBLISHED", "workflow": json.RawMessage(
				`{"trigger":{"kind":"workflows/webhook"},"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{}}}],"edges":[{"from":"$source","to":"a"}]}`)})
			r := do(t, c, http.MethodPost, "/v1/workflows/"+hook.ID+"/backfill", map[string]any{"dry_run": true})
			wantError(t, r, 409, "CONFLICT")
			if !strings.Contains(r.Err().Message, "workflows/webhook") {
				t.Fatalf("message %q does not name the trigger", r.Err().Message)
			}
			draft := createWorkflow(t, c, map[string]any{"name": "draft", "workflow": json.RawMessage(def), "search_id": s.ID})
			r = do(t, c, http.MethodPost, "/v1/workflows/"+draft.ID+"/backfill", nil)
			wantError(t, r, 409, "CONFLICT")
			if !strings.Contains(r.Err().Message, "PUBLISHED") {
				t.Fatalf("message %q does not say it must be published", r.Err().Message)
			}
		})

		t.Run("access", func(t *testing.T) {
			other := newKey(t, ts, newAccount(t, ts, "other", "ENTERPRISE", ""), "*")
			wantError(t, do(t, other, http.MethodPost, "/v1/workflows/"+w.ID+"/backfill", map[string]any{"dry_run": true}), 404, "NOT_FOUND")
			// A key that may not read the search's results may not feed them to the workflow.
			var me struct {
				UserID string `json:"user_id"`
			}
			if err := mustDo(t, c, http.MethodGet, "/v1/account", nil, 200).Data(&me); err != nil {
				t.Fatal(err)
			}
			narrow := newKey(t, ts, me.UserID, "topics:read")
			wantError(t, do(t, narrow, http.MethodPost, "/v1/workflows/"+w.ID+"/backfill", map[string]any{"dry_run": true}), 403, "FORBIDDEN")
			if xs := backfilledRuns(t, c, w.ID, "workflows/new-post"); len(xs) != 0 {
				t.Fatalf("a refused backfill queued %d executions", len(xs))
			}
		})

		t.Run("backfill, once", func(t *testing.T) {
			got := backfill(t, c, w.ID, map[string]any{}, 202)
			if got.DryRun || got.Queued == nil || *got.Queued != collected || got.AlreadyFired != 0 || len(got.ExecutionIDs) != collected {
				t.Fatalf("backfill %+v, want %d queued", got, collected)
			}
			for _, id := range got.ExecutionIDs {
				x := waitExecution(t, ts, c, w.ID, id, ended)
				if x.Status != "completed" || x.Trigger["search_id"] != s.ID || x.Trigger["result"] == nil {
					t.Fatalf("backfilled execution %+v", x)
				}
			}
			again := backfill(t, c, w.ID, map[string]any{}, 202)
			if *again.Queued != 0 || again.AlreadyFired != collected || len(again.ExecutionIDs) != 0 {
				t.Fatalf("second backfill %+v, want nothing queued", again)
			}
			dry := backfill(t, c, w.ID, map[string]any{"dry_run": true}, 200)
			if *dry.WouldRun != 0 || dry.AlreadyFired != collected {
				t.Fatalf("dry run after the backfill %+v", dry)
			}
			if xs := backfilledRuns(t, c, w.ID, "workflows/new-post"); len(xs) != collected {
				t.Fatalf("%d executions, want %d", len(xs), collected)
			}
		})

		t.Run("live events after it fire once", func(t *testing.T) {
			clk.Advance(6 * time.Hour) // new posts appear; collect them now
			mustDo(t, c, http.MethodPost, "/v1/searches/"+s.ID+"/run", nil, 200)
			waitUntil(t, ts, "new results", func() bool { return results() > collected })
			all := results()
			waitUntil(t, ts, "one execution per result", func() bool { return len(backfilledRuns(t, c, w.ID, "workflows/new-post")) == all })
			got := backfill(t, c, w.ID, map[string]any{}, 202)
			if *got.Queued != 0 || got.AlreadyFired != all {
				t.Fatalf("backfill after live events %+v, want all %d fired", got, all)
			}
			time.Sleep(1500 * time.Millisecond) // a tick: nothing fires twice
			if n := len(backfilledRuns(t, c, w.ID, "workflows/new-post")); n != all {
				t.Fatalf("%d executions, want %d", n, all)
			}
		})
	})
}

// TestBackfillEngagements: a workflow on a topic that has linked
// engagements runs once per stored engagement on a backfill, keyed as
// live dispatch keys them.
func TestBackfillEngagements(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
		clk := clock.NewFake(start)
		ts := topicServer(t, engine, clk)
		c := ts.Client
		tp := createTopic(t, c, map[string]any{"name": "revops", "keywords": []string{"revops"}, "max_results": 10})
		day1 := start.Add(24 * time.Hour).Format(apiTime)
		waitUntil(t, ts, "every first hydration", func() bool {
			posts, _ := listAll[topicPost](t, c, "/v1/topics/"+tp.ID+"/posts")
			for _, p := range posts {
				if p.NextFollowUpAt == nil || *p.NextFollowUpAt != day1 {
					return false
				}
			}
			return len(posts) > 0
		})
		linked := int(getTopic(t, c, tp.ID).EngagementsCount)

		def := `{"trigger":{"kind":"workflows/engagement","inputs":{"topic_id":"` + tp.ID + `"}},
			"actions":[{"id":"who","kind":"builtin:set","inputs":{"values":{"name":"{{ trigger.prospect.full_name }}"}}}],
			"edges":[{"from":"$source","to":"who"}]}`
		w := createWorkflow(t, c, map[string]any{"name": "engaged", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		if xs := backfilledRuns(t, c, w.ID, "workflows/engagement"); len(xs) != 0 {
			t.Fatalf("%d executions before any backfill", len(xs))
		}
		dry := backfill(t, c, w.ID, map[string]any{"dry_run": true, "limit": 10000}, 200)
		if dry.Events != linked || *dry.WouldRun != linked || dry.Trigger != "workflows/engagement" {
			t.Fatalf("dry run %+v, want %d engagements", dry, linked)
		}
		got := backfill(t, c, w.ID, map[string]any{"limit": 10000}, 202)
		if *got.Queued != linked || len(got.ExecutionIDs) != min(linked, 100) {
			t.Fatalf("backfill %+v, want %d queued", got, linked)
		}
		x := waitExecution(t, ts, c, w.ID, got.ExecutionIDs[0], ended)
		prospect, _ := x.Trigger["prospect"].(map[string]any)
		if x.Status != "completed" || x.Trigger["topic_id"] != tp.ID || prospect["full_name"] == "" || x.Trigger["post"] == nil {
			t.Fatalf("backfilled execution %+v", x)
		}
		if again := backfill(t, c, w.ID, map[string]any{"limit": 10000}, 202); *again.Queued != 0 || again.AlreadyFired != linked {
			t.Fatalf("second backfill %+v", again)
		}
	})
}

package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/workflow"
)

// TestBackfillNewPosts: a backfill reads the new-post events of the
// workflow's search (or of every search of its account) in the window,
// oldest first, with the keys live dispatch gives them: what it queues
// live dispatch does not fire again, what live dispatch fired it does not
// queue, and queuing twice queues once.
func TestBackfillNewPosts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		t0 := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
		clk := clock.NewFake(t0)
		s := storetest.Open(t, engine, clk.Now)
		a, b := newAccount(t, s, auth.PlanCustom), newAccount(t, s, auth.PlanCustom)
		mk := func(account string) search.Search {
			sr := search.Search{AccountID: account, Name: "n", Kind: search.KindPosts, Definition: search.Definition{
				Keywords: []string{"crm"}, Frequency: search.Daily}}
			if err := s.CreateSearch(ctx, &sr, credits.Charge{}, 0); err != nil {
				t.Fatal(err)
			}
			return sr
		}
		gen := seed.NewItems(t0.Add(-time.Hour), 1)
		next := 0
		collect := func(sr search.Search, n int) {
			t.Helper()
			var items []source.Item
			for range n {
				items = append(items, gen.Item(next))
				next++
			}
			if _, err := s.SaveRun(ctx, search.Run{SearchID: sr.ID, At: clk.Now(), Items: items, NextRunAt: clk.Now().Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		s1, s2, theirs := mk(a.ID), mk(a.ID), mk(b.ID)
		collect(s1, 5)
		clk.Advance(time.Hour)
		collect(s2, 3)
		collect(theirs, 2)
		clk.Advance(time.Hour)
		// Collection's events were dispatched before the workflow existed.
		if _, err := s.DispatchNewPosts(ctx, time.Minute, 100); err != nil {
			t.Fatal(err)
		}
		w := workflow.Workflow{AccountID: a.ID, Name: "late", Status: workflow.StatusPublished, Enabled: true, SearchID: s1.ID,
			Definition: workflow.Definition{Trigger: &workflow.Trigger{Kind: workflow.TriggerNewPost}}}
		if err := s.CreateWorkflow(ctx, &w, nil); err != nil {
			t.Fatal(err)
		}
		all := workflow.BackfillWindow{Since: time.UnixMilli(0), Until: clk.Now()}
		events := func(src workflow.BackfillSource, win workflow.BackfillWindow, limit int) ([]workflow.BackfillEvent, bool) {
			t.Helper()
			evs, more, err := s.BackfillEvents(ctx, store.BackfillQuery{AccountID: a.ID, Source: src, Window: win, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			return evs, more
		}
		keys := func(evs []workflow.BackfillEvent) []string {
			out := make([]string, len(evs))
			for i, ev := range evs {
				out[i] = ev.Key
			}
			return out
		}
		linked := workflow.BackfillSource{Kind: workflow.TriggerNewPost, SearchID: s1.ID}
		evs, more := events(linked, all, 100)
		if len(evs) != 5 || more {
			t.Fatalf("%d events of the linked search (more %v), want 5", len(evs), more)
		}
		for i, ev := range evs {
			if !strings.HasPrefix(ev.Key, "event:") || ev.Payload["search_id"] != s1.ID || ev.Payload["result"] == nil || !ev.At.Equal(t0) ||
				(i > 0 && ev.Key <= evs[i-1].Key) {
				t.Fatalf("event %d: %+v", i, ev)
			}
		}
		if got, more := events(linked, all, 2); len(got) != 2 || !more || got[1].Key != evs[1].Key {
			t.Fatalf("limit 2: %d events, more %v", len(got), more)
		}
		// The cursor walks past events stored in the same millisecond.
		var walked []string
		var after *workflow.BackfillCursor
		for {
			page, more, err := s.BackfillEvents(ctx, store.BackfillQuery{AccountID: a.ID, Source: linked, Window: all, After: after, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range page {
				walked = append(walked, ev.Key)
			}
			if !more {
				break
			}
			last := page[len(page)-1]
			after = &workflow.BackfillCursor{At: last.At, ID: last.ID}
		}
		if len(walked) != 5 || strings.Join(walked, " ") != strings.Join(keys(evs), " ") {
			t.Fatalf("walked %v, want %v", walked, keys(evs))
		}
		// Unlinked: every search of the account, never another account's.
		unlinked := workflow.BackfillSource{Kind: workflow.TriggerNewPost}
		if got, _ := events(unlinked, all, 100); len(got) != 8 {
			t.Fatalf("%d events of the account's searches, want 8", len(got))
		}
		// The window is by when an event was stored, both ends included.
		if got, _ := events(unlinked, workflow.BackfillWindow{Since: t0.Add(time.Hour), Until: t0.Add(time.Hour)}, 100); len(got) != 3 || got[0].Payload["search_id"] != s2.ID {
			t.Fatalf("%d events of the second hour, want s2's 3", len(got))
		}
		if got, _ := events(linked, workflow.BackfillWindow{Since: t0.Add(time.Millisecond), Until: clk.Now()}, 100); len(got) != 0 {
			t.Fatalf("%d events after the linked search collected", len(got))
		}

		if fired, err := s.FiredEventKeys(ctx, w.ID, keys(evs)); err != nil || len(fired) != 0 {
			t.Fatalf("fired before the backfill: %v, %v", fired, err)
		}
		// A backfill that died after its first batch: the retry queues
		// the rest, and only the rest.
		first, err := s.QueueBackfill(ctx, w, workflow.TriggerNewPost, evs[:2], time.Minute)
		if err != nil || len(first) != 2 {
			t.Fatalf("queued %d, %v; want 2", len(first), err)
		}
		ids, err := s.QueueBackfill(ctx, w, workflow.TriggerNewPost, evs, time.Minute)
		if err != nil || len(ids) != 3 {
			t.Fatalf("queued %d on the retry, %v; want 3", len(ids), err)
		}
		x, _, err := s.Execution(ctx, first[0])
		if err != nil || x.EventKey != evs[0].Key || x.EventName != workflow.TriggerNewPost || x.Status != workflow.ExecutionRunning ||
			x.Trigger["search_id"] != s1.ID || x.Version != w.Version {
			t.Fatalf("queued execution %+v, %v", x, err)
		}
		if again, err := s.QueueBackfill(ctx, w, workflow.TriggerNewPost, evs, time.Minute); err != nil || len(again) != 0 {
			t.Fatalf("queued %d again, %v; want none", len(again), err)
		}

		// A result collected after: live dispatch fires it once, and a
		// backfill over everything then finds all fired.
		clk.Advance(time.Hour)
		collect(s1, 2)
		if _, err := s.DispatchNewPosts(ctx, time.Minute, 100); err != nil {
			t.Fatal(err)
		}
		everything, _ := events(linked, workflow.BackfillWindow{Since: time.UnixMilli(0), Until: clk.Now()}, 100)
		fired, err := s.FiredEventKeys(ctx, w.ID, keys(everything))
		if err != nil || len(everything) != 7 || len(fired) != 7 {
			t.Fatalf("%d events, %d fired, %v; want 7 and 7", len(everything), len(fired), err)
		}
		if again, err := s.QueueBackfill(ctx, w, workflow.TriggerNewPost, everything, time.Minute); err != nil || len(again) != 0 {
			t.Fatalf("queued %d after live dispatch, %v; want none", len(again), err)
		}
		if _, total, err := s.ListExecutions(ctx, a.ID, w.ID, "", "", 1, 100); err != nil || total != 7 {
			t.Fatalf("%d executions, %v; want 7", total, err)
		}
	})
}

// TestBackfillEngagements: a backfill of an engagement workflow reads its
// topic's linked engagements with the keys live dispatch gives them, so
// that live dispatch, armed before them all, then fires none again.
func TestBackfillEngagements(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		f := newMappingFixture(t, engine)
		s := f.Store
		topics, _, err := s.ListTopics(ctx, f.Account.ID, "", 1, 10)
		if err != nil || len(topics) == 0 {
			t.Fatalf("topics %d, %v", len(topics), err)
		}
		// The topic that linked the most engagements.
		var (
			tp     = topics[0]
			linked int
		)
		for _, cand := range topics {
			var n int
			if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM topic_engagements WHERE topic_id = $1`, cand.ID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > linked {
				tp, linked = cand, n
			}
		}
		if linked == 0 {
			t.Fatal("no topic links an engagement")
		}
		src := workflow.BackfillSource{Kind: workflow.TriggerEngagement, TopicID: tp.ID}
		all := workflow.BackfillWindow{Since: time.UnixMilli(0), Until: f.Now()}
		evs, more, err := s.BackfillEvents(ctx, store.BackfillQuery{AccountID: f.Account.ID, Source: src, Window: all, Limit: 1000})
		if err != nil || more || len(evs) != linked {
			t.Fatalf("%d events (more %v), %v; want %d", len(evs), more, err, linked)
		}
		for i, ev := range evs {
			if ev.Key != "engagement:"+tp.ID+"/"+ev.ID || ev.Payload["topic_id"] != tp.ID || ev.Payload["post"] == nil ||
				(i > 0 && ev.At.Before(evs[i-1].At)) {
				t.Fatalf("event %d: %+v", i, ev)
			}
		}
		// Another account sees nothing of the topic.
		other := newAccount(t, s, auth.PlanCustom)
		if theirs, _, err := s.BackfillEvents(ctx, store.BackfillQuery{AccountID: other.ID, Source: src, Window: all, Limit: 1000}); err != nil || len(theirs) != 0 {
			t.Fatalf("another account's backfill read %d events, %v", len(theirs), err)
		}

		w := workflow.Workflow{AccountID: f.Account.ID, Name: "engaged", Status: workflow.StatusPublished, Enabled: true,
			Definition: workflow.Definition{Trigger: &workflow.Trigger{Kind: workflow.TriggerEngagement, Inputs: map[string]any{"topic_id": tp.ID}}}}
		if err := s.CreateWorkflow(ctx, &w, nil); err != nil {
			t.Fatal(err)
		}
		ids, err := s.QueueBackfill(ctx, w, workflow.TriggerEngagement, evs, time.Minute)
		if err != nil || len(ids) != linked {
			t.Fatalf("queued %d, %v; want %d", len(ids), err, linked)
		}
		// Armed since the beginning, live dispatch would fire every
		// pending link: the backfill's keys are its keys, so none fires.
		if _, err := s.DB().ExecContext(ctx, `UPDATE workflows SET armed_at = 0 WHERE id = $1`, w.ID); err != nil {
			t.Fatal(err)
		}
		var pending int
		if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM topic_engagements WHERE topic_id = $1 AND pending = 1`, tp.ID).Scan(&pending); err != nil || pending != linked {
			t.Fatalf("%d pending links, %v; want %d", pending, err, linked)
		}
		if _, err := s.DispatchEngagements(ctx, time.Minute, 10000); err != nil {
			t.Fatal(err)
		}
		if _, total, err := s.ListExecutions(ctx, f.Account.ID, w.ID, "", "", 1, 100); err != nil || total != int64(linked) {
			t.Fatalf("%d executions after live dispatch, %v; want %d", total, err, linked)
		}
	})
}

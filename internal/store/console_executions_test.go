package store_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/workflow"
)

// TestAccountExecutions: the console's list of every execution of an
// account, newest first across its workflows (a deleted one's included,
// with its name), narrowed by workflow, status and event, paged by cursor;
// another account's never shows.
func TestAccountExecutions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := t.Context()
		clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		s := storetest.Open(t, engine, clk.Now)
		a, other := newAccount(t, s, auth.PlanCustom), newAccount(t, s, auth.PlanCustom)
		mkWorkflow := func(account, name, trigger string) workflow.Workflow {
			t.Helper()
			w := workflow.Workflow{AccountID: account, Name: name, Status: workflow.StatusPublished,
				Definition: workflow.Definition{Trigger: &workflow.Trigger{Kind: trigger}}}
			if err := s.CreateWorkflow(ctx, &w, nil); err != nil {
				t.Fatal(err)
			}
			return w
		}
		hooks, posts := mkWorkflow(a.ID, "hooks", workflow.TriggerWebhook), mkWorkflow(a.ID, "posts", workflow.TriggerNewPost)
		theirs := mkWorkflow(other.ID, "theirs", workflow.TriggerWebhook)
		run := func(w workflow.Workflow, status workflow.ExecutionStatus) string {
			t.Helper()
			clk.Advance(time.Second)
			x := workflow.Execution{WorkflowID: w.ID, AccountID: w.AccountID, Version: 1, Definition: w.Definition,
				EventName: w.Definition.Trigger.Kind, Trigger: map[string]any{}, Status: status}
			if status != workflow.ExecutionRunning {
				end := clk.Now()
				x.EndedAt = &end
			}
			if _, err := s.CreateExecution(ctx, &x, nil, time.Minute, true); err != nil {
				t.Fatal(err)
			}
			return x.ID
		}
		// Oldest first: h1 completed, p1 failed, t1 (other account), h2 failed, p2 running.
		h1 := run(hooks, workflow.ExecutionCompleted)
		p1 := run(posts, workflow.ExecutionFailed)
		run(theirs, workflow.ExecutionFailed)
		h2 := run(hooks, workflow.ExecutionFailed)
		p2 := run(posts, workflow.ExecutionRunning)
		if err := s.DeleteWorkflow(ctx, a.ID, hooks.ID); err != nil {
			t.Fatal(err)
		}

		ids := func(p store.ExecutionPage) string {
			var out []string
			for _, r := range p.Rows {
				out = append(out, r.ID)
			}
			return strings.Join(out, ",")
		}
		for _, c := range []struct {
			name string
			f    store.ExecutionFilter
			want []string
		}{
			{"all", store.ExecutionFilter{}, []string{p2, h2, p1, h1}},
			{"failed", store.ExecutionFilter{Status: workflow.ExecutionFailed}, []string{h2, p1}},
			{"webhook", store.ExecutionFilter{EventName: workflow.TriggerWebhook}, []string{h2, h1}},
			{"posts workflow", store.ExecutionFilter{WorkflowID: posts.ID}, []string{p2, p1}},
			{"failed webhooks", store.ExecutionFilter{Status: workflow.ExecutionFailed, EventName: workflow.TriggerWebhook}, []string{h2}},
			{"none", store.ExecutionFilter{WorkflowID: theirs.ID}, nil},
		} {
			p, err := s.AccountExecutions(ctx, a.ID, c.f, 10, "")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := ids(p), strings.Join(c.want, ","); got != want || p.NextCursor != "" {
				t.Errorf("%s: %s (next %q), want %s", c.name, got, p.NextCursor, want)
			}
		}

		all, err := s.AccountExecutions(ctx, a.ID, store.ExecutionFilter{}, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		if r := all.Rows[1]; r.WorkflowName != "hooks" || !r.WorkflowDeleted || r.Status != workflow.ExecutionFailed || r.EventName != workflow.TriggerWebhook {
			t.Errorf("the deleted workflow's execution: %+v", r)
		}
		if r := all.Rows[0]; r.WorkflowName != "posts" || r.WorkflowDeleted || r.Status != workflow.ExecutionRunning || r.EndedAt != nil {
			t.Errorf("the running execution: %+v", r)
		}

		// Pages of two keep the filter and end where the list does.
		var seen []string
		cursor, pages := "", 0
		for {
			p, err := s.AccountExecutions(ctx, a.ID, store.ExecutionFilter{}, 2, cursor)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			seen = append(seen, ids(p))
			if cursor = p.NextCursor; cursor == "" {
				break
			}
		}
		if got, want := strings.Join(seen, "|"), p2+","+h2+"|"+p1+","+h1; got != want || pages != 2 {
			t.Errorf("pages %s (%d), want %s", got, pages, want)
		}
		if _, err := s.AccountExecutions(ctx, a.ID, store.ExecutionFilter{}, 2, "not a cursor!"); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("a bad cursor: %v", err)
		}
	})
}

package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestConsoleFigures: the Overview's credits per UTC day and feature (the
// last millisecond of a day on that day, another account's spends apart),
// engagements collected in a window, active topics.
func TestConsoleFigures(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		s := storetest.Open(t, engine, clk.Now)
		a := newAccount(t, s, auth.PlanEnterprise)
		other := newAccount(t, s, auth.PlanEnterprise)
		spend := func(acct string, f credits.Feature, n int64) {
			t.Helper()
			if _, err := s.Spend(ctx, acct, f, n, 1000, "x"); err != nil {
				t.Fatal(err)
			}
		}
		spend(a.ID, credits.SearchCreate, 1)
		spend(a.ID, credits.SearchCreate, 1)
		spend(other.ID, credits.SearchCreate, 7)
		clk.Set(time.Date(2026, 11, 3, 23, 59, 59, 999e6, time.UTC))
		spend(a.ID, credits.WorkflowExecution, 1)
		clk.Set(time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC))
		spend(a.ID, credits.WorkflowExecution, 3)

		got, err := s.CreditsByDay(ctx, a.ID, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), clk.Now().Add(time.Millisecond))
		want := []store.DayCredits{
			{Day: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), Feature: credits.SearchCreate, Credits: 2},
			{Day: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), Feature: credits.WorkflowExecution, Credits: 1},
			{Day: time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC), Feature: credits.WorkflowExecution, Credits: 3},
		}
		if err != nil || len(got) != len(want) {
			t.Fatalf("CreditsByDay = %+v, %v; want %+v", got, err, want)
		}
		for i := range want {
			if !got[i].Day.Equal(want[i].Day) || got[i].Feature != want[i].Feature || got[i].Credits != want[i].Credits {
				t.Errorf("CreditsByDay[%d] = %+v, want %+v", i, got[i], want[i])
			}
		}
		// The window's end is excluded.
		if got, err := s.CreditsByDay(ctx, a.ID, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), clk.Now()); err != nil || len(got) != 2 {
			t.Errorf("CreditsByDay before Nov 4 = %+v, %v", got, err)
		}

		// Engagements billed to the account, each once, in the window.
		for i, at := range []time.Time{time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC), time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC)} {
			if _, err := s.DB().ExecContext(ctx, `INSERT INTO topic_billing (account_id, kind, subject_id, charged_at) VALUES ($1, 'engagement', $2, $3)`,
				a.ID, "e"+string(rune('0'+i)), at.UnixMilli()); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO topic_billing (account_id, kind, subject_id, charged_at) VALUES ($1, 'post', 'p', $2)`,
			a.ID, time.Date(2026, 11, 4, 1, 0, 0, 0, time.UTC).UnixMilli()); err != nil {
			t.Fatal(err)
		}
		day := time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC)
		if n, err := s.EngagementsCollected(ctx, a.ID, day, day.Add(24*time.Hour)); err != nil || n != 2 {
			t.Errorf("EngagementsCollected on Nov 4 = %d, %v; want 2", n, err)
		}
		if n, err := s.EngagementsCollected(ctx, other.ID, day, day.Add(24*time.Hour)); err != nil || n != 0 {
			t.Errorf("another account's engagements = %d, %v", n, err)
		}

		// Active topics: a paused one does not count.
		if n, err := s.CountActiveTopics(ctx, a.ID); err != nil || n != 0 {
			t.Fatalf("CountActiveTopics with none = %d, %v", n, err)
		}
		var tps []*topic.Topic
		for _, name := range []string{"revops", "gtm"} {
			tp := &topic.Topic{AccountID: a.ID, Name: name, Definition: topic.Definition{Keywords: []string{name},
				TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
			if err := s.CreateTopic(ctx, tp, 0); err != nil {
				t.Fatal(err)
			}
			tps = append(tps, tp)
		}
		tps[1].Status = topic.StatusPaused
		if err := s.UpdateTopic(ctx, tps[1], 0); err != nil {
			t.Fatal(err)
		}
		if n, err := s.CountActiveTopics(ctx, a.ID); err != nil || n != 1 {
			t.Errorf("CountActiveTopics = %d, %v; want 1", n, err)
		}
		if n, err := s.CountActiveTopics(ctx, other.ID); err != nil || n != 0 {
			t.Errorf("another account's active topics = %d, %v", n, err)
		}
	})
}

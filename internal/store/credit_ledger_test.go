package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// TestLedgerNamesWhatEachSpendPaidFor: a spend's action, workflow and saved
// search are read back newest first, paged, and summed per feature; a spend
// the balance cannot cover says what it needed and what was left.
func TestLedgerNamesWhatEachSpendPaidFor(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		s := storetest.Open(t, engine, clk.Now)
		a := newAccount(t, s, auth.PlanStarter)
		start := clk.Now()
		sr := search.Search{AccountID: a.ID, Name: "n", Kind: search.KindPosts, Definition: search.Definition{Keywords: []string{"crm"}, Frequency: search.Daily}}
		if err := s.CreateSearch(ctx, &sr, credits.Charge{AccountID: a.ID, Feature: credits.SearchCreate, Amount: 1, Allocation: 10, Action: "create"}, 0); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
		wf := "0190f5a2-0000-7000-8000-000000000001"
		if _, err := s.SpendCharge(ctx, credits.Charge{AccountID: a.ID, Feature: credits.WorkflowExecution, Amount: 3, Allocation: 10, Action: "step", WorkflowID: wf}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
		if _, err := s.Spend(ctx, a.ID, credits.WorkflowExecution, 2, 10, "x"); err != nil {
			t.Fatal(err)
		}
		_, err := s.Spend(ctx, a.ID, credits.ProfileEnrich, 5, 10, "y")
		var short *credits.ShortError
		if !errors.As(err, &short) || !errors.Is(err, credits.ErrInsufficient) || short.Needed != 5 || short.Available != 4 {
			t.Fatalf("overspend: %v, want 5 needed and 4 left", err)
		}
		got, total, err := s.Ledger(ctx, a.ID, start, 2, 0)
		if err != nil || total != 3 || len(got) != 2 || got[0].Amount != 2 || got[0].Action != "" ||
			got[1].WorkflowID != wf || got[1].Action != "step" || got[1].SearchID != "" {
			t.Fatalf("first page %+v, total %d, %v", got, total, err)
		}
		got, _, err = s.Ledger(ctx, a.ID, start, 2, 2)
		if err != nil || len(got) != 1 || got[0].SearchID != sr.ID || got[0].Action != "create" || got[0].WorkflowID != "" || !got[0].CreatedAt.Equal(start) {
			t.Fatalf("second page %+v, %v", got, err)
		}
		if got, _, err := s.Ledger(ctx, a.ID, start.Add(time.Second), 10, 0); err != nil || len(got) != 2 {
			t.Fatalf("since a second later: %+v, %v", got, err)
		}
		by, err := s.LedgerByFeature(ctx, a.ID, start)
		want := []credits.FeatureTotal{{Feature: credits.WorkflowExecution, Total: 5, Count: 2}, {Feature: credits.SearchCreate, Total: 1, Count: 1}}
		if err != nil || len(by) != 2 || by[0] != want[0] || by[1] != want[1] {
			t.Fatalf("by feature %+v, %v", by, err)
		}
	})
}

// TestSearchLimitHoldsUnderConcurrentCreates: creates racing for the last
// places of a quota: exactly the quota's number succeed, the rest change
// nothing (no search, no charge).
func TestSearchLimitHoldsUnderConcurrentCreates(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		s := storetest.Open(t, engine, time.Now)
		a := newAccount(t, s, auth.PlanStarter)
		const limit, tries = 3, 8
		var (
			wg               sync.WaitGroup
			mu               sync.Mutex
			created, refused int
		)
		for range tries {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sr := search.Search{AccountID: a.ID, Name: "n", Kind: search.KindPosts, Definition: search.Definition{Keywords: []string{"crm"}, Frequency: search.Daily}}
				err := s.CreateSearchWithin(ctx, &sr, credits.Charge{AccountID: a.ID, Feature: credits.SearchCreate, Amount: 1, Allocation: 100}, 0, limit)
				var le *store.LimitError
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					created++
				case errors.As(err, &le) && le.Limit == limit && le.Used == limit:
					refused++
				default:
					t.Errorf("create: %v", err)
				}
			}()
		}
		wg.Wait()
		n, err := s.CountSearches(ctx, a.ID)
		if err != nil || created != limit || refused != tries-limit || n != limit {
			t.Fatalf("created %d, refused %d, stored %d (%v); want %d created", created, refused, n, err, limit)
		}
		if b, err := s.Balance(ctx, a.ID, 100); err != nil || b.Used != limit {
			t.Fatalf("balance %+v, %v: refused creates must not charge", b, err)
		}
	})
}

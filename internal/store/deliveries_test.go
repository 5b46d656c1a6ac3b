package store_test

import (
	"context"
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
)

// TestDeliveriesClaimRetryAndLease: SaveRun writes a search's deliveries
// with its new results, a batch of at most 100 each, and none for a search
// without a webhook_url; a claimed delivery is nobody else's until its lease
// ends, so one whose process died is claimed again then; a retried one is
// due again at its next attempt.
func TestDeliveriesClaimRetryAndLease(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		s := storetest.Open(t, engine, clk.Now)
		a := newAccount(t, s, auth.PlanCustom)
		mk := func(webhook string) search.Search {
			sr := search.Search{AccountID: a.ID, Name: "n", Kind: search.KindPosts, Definition: search.Definition{
				Keywords: []string{"crm"}, Frequency: search.Daily, WebhookURL: webhook, WebhookSecret: "c2VhbGVk"}}
			if err := s.CreateSearch(ctx, &sr, credits.Charge{}, 0); err != nil {
				t.Fatal(err)
			}
			return sr
		}
		hooked, plain := mk("https://example.com/hook"), mk("")
		gen := seed.NewItems(clk.Now().Add(-time.Hour), 1)
		var items []source.Item
		for n := range 250 {
			items = append(items, gen.Item(n))
		}
		for _, sr := range []search.Search{hooked, plain} {
			if _, err := s.SaveRun(ctx, search.Run{SearchID: sr.ID, At: clk.Now(), Items: items, NextRunAt: clk.Now().Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		// Stored again: nothing new, nothing to deliver.
		if _, err := s.SaveRun(ctx, search.Run{SearchID: hooked.ID, At: clk.Now(), Items: items, NextRunAt: clk.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if page, err := s.ListDeliveries(ctx, plain.ID, 10, ""); err != nil || len(page.Deliveries) != 0 {
			t.Fatalf("deliveries of a search without webhook = %+v, %v", page, err)
		}

		lease := time.Minute
		claimed, err := s.ClaimDeliveries(ctx, clk.Now(), lease, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(claimed) != 3 {
			t.Fatalf("claimed %d deliveries, want 3 (100+100+50)", len(claimed))
		}
		sum := 0
		for _, d := range claimed {
			if d.URL != "https://example.com/hook" || d.Secret != "c2VhbGVk" || d.AccountID != a.ID || len(d.Results) != d.ResultsCount || d.ResultsCount > 100 {
				t.Fatalf("claimed %+v", d)
			}
			sum += d.ResultsCount
		}
		if sum != 250 {
			t.Fatalf("claimed %d results, want 250", sum)
		}
		if again, err := s.ClaimDeliveries(ctx, clk.Now(), lease, 10); err != nil || len(again) != 0 {
			t.Fatalf("claimed leased deliveries again: %d, %v", len(again), err)
		}

		// One delivered, one retried in 30 s, one claimed by a process that died.
		if err := s.RecordDeliveryAttempt(ctx, claimed[0].ID, store.DeliveryAttempt{At: clk.Now(), Status: store.DeliveryDelivered, StatusCode: 200}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordDeliveryAttempt(ctx, claimed[1].ID, store.DeliveryAttempt{At: clk.Now(), Status: store.DeliveryPending,
			StatusCode: 503, Error: "the receiver answered 503", NextAt: clk.Now().Add(30 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(31 * time.Second)
		retried, err := s.ClaimDeliveries(ctx, clk.Now(), lease, 10)
		if err != nil || len(retried) != 1 || retried[0].ID != claimed[1].ID || retried[0].Attempts != 1 || *retried[0].LastStatusCode != 503 {
			t.Fatalf("retry claim = %+v, %v", retried, err)
		}
		clk.Advance(30 * time.Second)
		reclaimed, err := s.ClaimDeliveries(ctx, clk.Now(), lease, 10)
		if err != nil || len(reclaimed) != 1 || reclaimed[0].ID != claimed[2].ID || reclaimed[0].Attempts != 0 {
			t.Fatalf("claim after the lease = %+v, %v", reclaimed, err)
		}

		page, err := s.ListDeliveries(ctx, hooked.ID, 2, "")
		if err != nil || len(page.Deliveries) != 2 || page.NextCursor == "" {
			t.Fatalf("first page = %+v, %v", page, err)
		}
		rest, err := s.ListDeliveries(ctx, hooked.ID, 2, page.NextCursor)
		if err != nil || len(rest.Deliveries) != 1 || rest.NextCursor != "" {
			t.Fatalf("second page = %+v, %v", rest, err)
		}
		var delivered int
		for _, d := range append(page.Deliveries, rest.Deliveries...) {
			if d.Status == store.DeliveryDelivered {
				delivered++
				if d.NextAttemptAt != nil || d.Attempts != 1 {
					t.Fatalf("delivered = %+v", d)
				}
			}
		}
		if delivered != 1 {
			t.Fatalf("%d delivered, want 1", delivered)
		}
	})
}

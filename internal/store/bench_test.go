package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// Collection throughput: a stream of upstream pages of benchPageSize items,
// each page repeating the newest benchOverlap items of the page before (as
// overlapping runs and a moving time window do), stored with SaveRun —
// dedupe, outbox events and counters in one transaction per page.
const (
	benchPageSize = 100
	benchOverlap  = 20
)

// BenchmarkSaveRun reports results/s: new results stored per second of
// SaveRun, on every engine under test. One op is one page.
//
//	go test ./internal/store -run '^$' -bench SaveRun -benchtime 300x
func BenchmarkSaveRun(b *testing.B) {
	for _, engine := range storetest.Engines() {
		b.Run(string(engine), func(b *testing.B) { benchSaveRun(b, engine) })
	}
}

func benchSaveRun(b *testing.B, engine store.Dialect) {
	ctx := context.Background()
	s := storetest.Open(b, engine, nil)
	sr := benchSearch(b, s)
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	gen := seed.NewItems(base, 1)

	var stored, seen int
	page := make([]source.Item, benchPageSize)
	next := 0 // index of the oldest item of the next page
	for b.Loop() {
		for i := range page {
			page[i] = gen.Item(next + i)
		}
		at := base.Add(time.Duration(next) * time.Second)
		out, err := s.SaveRun(ctx, search.Run{
			SearchID: sr.ID, At: at, Items: page,
			NewestID: page[len(page)-1].ID, NextRunAt: at.Add(time.Hour),
		})
		if err != nil {
			b.Fatalf("save run: %v", err)
		}
		stored += out.NewResults
		seen += len(page)
		next += benchPageSize - benchOverlap
	}
	// Every page after the first repeats benchOverlap stored items.
	if want := seen - (b.N-1)*benchOverlap; stored != want {
		b.Fatalf("stored %d new results, want %d", stored, want)
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(stored)/secs, "results/s")
	b.ReportMetric(float64(seen)/secs, "items/s")
	if raw, err := json.Marshal(gen.Item(0)); err == nil {
		b.ReportMetric(float64(len(raw)), "B/item")
	}
}

// benchSearch creates an account and an active search on it.
func benchSearch(b testing.TB, s *store.Store) search.Search {
	b.Helper()
	ctx := context.Background()
	a := auth.Account{Name: "bench", Plan: auth.PlanCustom}
	if err := s.CreateAccount(ctx, &a); err != nil {
		b.Fatalf("create account: %v", err)
	}
	sr := search.Search{AccountID: a.ID, Name: "bench", Kind: search.KindPosts, Definition: search.Definition{
		Keywords: []string{"golang"}, TimeFrame: search.DefaultTimeFrame, MaxResults: benchPageSize,
		Frequency: search.Hourly, SearchType: search.DefaultSearchType,
	}}
	if err := s.CreateSearch(ctx, &sr, credits.Charge{}, 0); err != nil {
		b.Fatalf("create search: %v", err)
	}
	return sr
}

// The bulk-loading helpers of the benchmarks must agree with the real
// paths: seeding skips stored posts, and a cursor made by
// seed.ResultCursorAfter is the one paging hands out at that point.
func TestSeedResultsAndCursorAfter(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		s := storetest.Open(t, engine, nil)
		sr := benchSearch(t, s)
		base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		gen := seed.NewItems(base, 3) // ties on the page key
		var items []source.Item
		for n := range 25 {
			items = append(items, gen.Item(n))
		}
		if _, err := seed.Results(ctx, s, sr.ID, base, items[:15]); err != nil {
			t.Fatal(err)
		}
		total, err := seed.Results(ctx, s, sr.ID, base, items[10:])
		if err != nil || total != 25 {
			t.Fatalf("seeded total %d, %v; want 25 (overlap skipped)", total, err)
		}
		got, err := s.SearchByID(ctx, sr.ID)
		if err != nil {
			t.Fatal(err)
		}
		cursor := ""
		for _, after := range []int{10, 20} {
			page, err := s.Results(ctx, got, 10, cursor, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			cursor = page.NextCursor
			direct, err := seed.ResultCursorAfter(ctx, s, sr.ID, after)
			if err != nil || direct != cursor {
				t.Fatalf("cursor after %d: %q, %v; paging gave %q", after, direct, err, cursor)
			}
		}
		last, err := s.Results(ctx, got, 10, cursor, time.Time{})
		if err != nil || len(last.Items) != 5 || last.Items[4].ID != items[0].ID {
			t.Fatalf("last page: %d items, %v; want the 5 oldest", len(last.Items), err)
		}
		if _, err := seed.ResultCursorAfter(ctx, s, sr.ID, 26); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("cursor after 26 of 25: %v, want ErrNotFound", err)
		}
	})
}

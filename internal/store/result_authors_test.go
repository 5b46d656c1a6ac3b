package store_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// TestFilteredTotalsAcrossCollections: a filtered table's total, counted
// over author profiles, stays the number of results that pass the filter
// as collections add results (some already stored, an author's bio that
// changes between two of them), with and without a from date; and a filter
// that keeps nothing answers an empty page.
func TestFilteredTotalsAcrossCollections(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		st := storetest.Open(t, engine, nil)
		a := auth.Account{Name: "totals", Plan: auth.PlanCustom}
		if err := st.CreateAccount(ctx, &a); err != nil {
			t.Fatal(err)
		}
		sr := search.Search{AccountID: a.ID, Name: "s", Kind: search.KindPosts}
		if err := seed.Search(ctx, st, &sr); err != nil {
			t.Fatal(err)
		}
		base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		item := func(n int, bio string) source.Item {
			return source.Item{ID: strconv.Itoa(1000 + n), Source: "microblog", PublishedAt: base.Add(time.Duration(n) * time.Minute),
				Author: source.Author{Username: "u" + strconv.Itoa(n%3), Description: bio, Location: "Berlin, Germany"}}
		}
		var first, second []source.Item
		for n := range 30 {
			first = append(first, item(n, "Founder at Acme"))
		}
		// Ten already stored (not counted twice), twenty new by the same
		// authors, whose bio no longer says founder.
		for n := 20; n < 50; n++ {
			second = append(second, item(n, "Engineer at Acme"))
		}
		stale := sr // as a caller read it before the results came
		for i, items := range [][]source.Item{first, second} {
			if _, err := seed.Results(ctx, st, sr.ID, base, items); err != nil {
				t.Fatal(err)
			}
			// Counted after each collection: a kept total must not outlive it.
			page, err := st.FilteredResults(ctx, stale, store.ResultQuery{Author: store.AuthorFilter{Company: "acme"}}, 10, "")
			if err != nil {
				t.Fatal(err)
			}
			if want := []int64{30, 50}[i]; page.TotalCount != want {
				t.Errorf("after collection %d: total %d, want %d", i+1, page.TotalCount, want)
			}
		}
		sr, err := st.SearchByID(ctx, sr.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			q    store.ResultQuery
			want int64
		}{
			{store.ResultQuery{Author: store.AuthorFilter{JobTitle: "founder"}}, 30},
			{store.ResultQuery{Author: store.AuthorFilter{JobTitle: "engineer"}}, 20},
			{store.ResultQuery{Author: store.AuthorFilter{Company: "acme", Country: "DE"}}, 50},
			{store.ResultQuery{Author: store.AuthorFilter{JobTitle: "founder"}, From: base.Add(25 * time.Minute)}, 5},
			{store.ResultQuery{Author: store.AuthorFilter{JobTitle: "nobody"}}, 0},
		} {
			page, err := st.FilteredResults(ctx, sr, c.q, 100, "")
			if err != nil {
				t.Fatal(err)
			}
			if page.TotalCount != c.want || int64(len(page.Items)) != c.want || page.NextCursor != "" {
				t.Errorf("%+v: total %d, %d results, next %q; want %d, all on one page", c.q, page.TotalCount, len(page.Items), page.NextCursor, c.want)
			}
		}
		// Paged by 7, the pages hold every match once and each says the total.
		var seen int
		for cursor, pages := "", 0; pages == 0 || cursor != ""; pages++ {
			page, err := st.FilteredResults(ctx, sr, store.ResultQuery{Author: store.AuthorFilter{JobTitle: "founder"}}, 7, cursor)
			if err != nil {
				t.Fatal(err)
			}
			if page.TotalCount != 30 {
				t.Fatalf("page %d says %d results, want 30", pages+1, page.TotalCount)
			}
			seen += len(page.Items)
			cursor = page.NextCursor
		}
		if seen != 30 {
			t.Errorf("the pages held %d results, want 30", seen)
		}
	})
}

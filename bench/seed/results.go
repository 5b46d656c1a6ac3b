// Package seed fills a store with synthetic data in bulk, for the benchmark
// programs under bench/ and for tests: searches and their results, topics'
// posts and engagements, and the social mapping pool, with generators of
// realistic rows. Collection never calls it, and the trawl binary does not
// link it (cmd/trawl's TestImportsReadTopDown). It writes through the
// store's bulk loader surface (store.Bulk): the rows collection would leave
// behind, with multi-row INSERTs in one transaction per call, but no
// credits, no billing, no outbox events and no jobs.
package seed

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

// Search stores a paused search that is never due, for benchmarks and tests
// that fill it with Results while a server runs (bench/csvexport, the
// results export tests): nothing collects into it, so its results are
// exactly the seeded ones. Its kind may be any platform's. It charges
// nothing.
func Search(ctx context.Context, st *store.Store, sr *search.Search) error {
	def, err := json.Marshal(sr.Definition)
	if err != nil {
		return fmt.Errorf("seed: search: %w", err)
	}
	err = st.InBulk(ctx, func(b *store.Bulk) error {
		now := b.Now().UTC().Truncate(time.Millisecond)
		sr.ID, sr.Status, sr.CreatedAt, sr.UpdatedAt, sr.NextRunAt = ident.New(), search.StatusPaused, now, now, nil
		_, err := b.Tx().ExecContext(ctx,
			`INSERT INTO searches (id, account_id, name, kind, status, definition, created_at, updated_at)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
			sr.ID, sr.AccountID, sr.Name, string(sr.Kind), string(sr.Status), string(def), ms(now))
		return err
	})
	if err != nil {
		return fmt.Errorf("seed: search: %w", err)
	}
	return nil
}

// Results bulk-loads items as results of a search, for benchmarks and load
// tests that need millions of stored results in little time (see
// bench/resultspage). Unlike a collection run it writes no outbox events
// and leaves the schedule and watermark alone. Post ids already stored are
// skipped; the new ones are added to the search's total_results, which is
// returned. Items without a collection time get at.
func Results(ctx context.Context, st *store.Store, searchID string, at time.Time, items []source.Item) (int64, error) {
	var total int64
	err := st.InBulk(ctx, func(b *store.Bulk) error {
		inserted, err := b.InsertResults(ctx, searchID, at, items)
		if err != nil {
			return err
		}
		err = b.Tx().QueryRowContext(ctx,
			`UPDATE searches SET total_results = total_results + $2 WHERE id = $1 RETURNING total_results`,
			searchID, inserted).Scan(&total)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("seed: results of %s: %w", searchID, err)
	}
	return total, nil
}

// ResultCursorAfter returns the cursor store.Results hands out after the
// first n (n >= 1) results of the search, newest first, without reading the
// n results: a benchmark's quick way to a deep page. store.ErrNotFound when
// the search has fewer than n results.
func ResultCursorAfter(ctx context.Context, st *store.Store, searchID string, n int) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("seed: cursor after %d results: want at least 1", n)
	}
	var (
		at int64
		id string
	)
	err := st.DB().QueryRowContext(ctx,
		`SELECT published_at, post_id FROM search_results WHERE search_id = $1
		  ORDER BY published_at DESC, post_id DESC LIMIT 1 OFFSET $2`, searchID, n-1).Scan(&at, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("seed: cursor after %d results of %s: %w", n, searchID, store.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("seed: cursor after %d results of %s: %w", n, searchID, err)
	}
	return store.ResultCursor(time.UnixMilli(at), id), nil
}

// ms is a time as the store keeps it: Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// Items makes realistic microblog results (about 1 KB of JSON each) for
// benchmarks. Item n is the same whenever it is asked for; it has a larger
// id than item n-1 and is published at the same time or later, as upstream
// posts are. With perSecond > 1, that many items share a second, so paging
// relies on the post-id tie-break.
type Items struct {
	base      time.Time
	perSecond int
	texts     []string
}

// NewItems returns the generator of items published from base on.
func NewItems(base time.Time, perSecond int) Items {
	words := strings.Fields(`shipping a new release of our go service today with faster queries,
		better observability and a cleaner api; thanks to everyone who filed issues and reviewed
		pull requests over the last month #golang #opensource`)
	texts := make([]string, 97)
	for i := range texts {
		var sb strings.Builder
		for j := 0; sb.Len() < 340+i%100; j++ {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[(i*7+j)%len(words)])
		}
		texts[i] = sb.String()
	}
	return Items{base: base, perSecond: max(perSecond, 1), texts: texts}
}

// ItemID is the post id of item n: 19 digits, so text order is number order.
func ItemID(n int) string {
	return strconv.FormatInt(1_800_000_000_000_000_000+int64(n)*4096, 10)
}

// Item returns item n.
func (g Items) Item(n int) source.Item {
	id := ItemID(n)
	user := "user" + strconv.Itoa(n%5000)
	followers, shares := 1000+n%90_000, n%40
	return source.Item{
		ID:     id,
		Source: "microblog",
		Author: source.Author{
			Name:       "Bench User " + strconv.Itoa(n%5000),
			Username:   user,
			ProfileURL: "https://x.com/" + user,
			Avatar:     "https://pbs.twimg.com/profile_images/1790000000000000000/" + user + "_normal.jpg",
			Followers:  &followers,
		},
		Content: source.Content{
			Text: g.texts[n%len(g.texts)],
			URL:  "https://x.com/" + user + "/status/" + id,
			Media: []source.Media{
				{Type: "photo", URL: "https://pbs.twimg.com/media/GbEnch" + strconv.Itoa(n) + "AAAAAA.jpg"},
				{Type: "video", URL: "https://pbs.twimg.com/ext_tw_video_thumb/" + id + "/pu/img/bench.jpg",
					PreviewURL: "https://pbs.twimg.com/ext_tw_video_thumb/" + id + "/pu/img/bench.jpg"},
			},
		},
		Engagement:  source.Engagement{Likes: n % 500, Comments: n % 37, Shares: &shares},
		PublishedAt: g.base.Add(time.Duration(n/g.perSecond) * time.Second),
	}
}

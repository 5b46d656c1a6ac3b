package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/topic"
)

// seedPool loads the people, the posts and the engagements, each in batches
// whose generation overlaps the writing of the previous one.
func seedPool(ctx context.Context, st *store.Store, g *pool, t *truth, o options, out io.Writer) error {
	seedPeople := func(b []topic.Profile) (int64, error) { return seed.People(ctx, st, benchNow.Add(-31*24*time.Hour), b) }
	seedPosts := func(b []seed.PoolPost) (int64, error) { return seed.PoolPosts(ctx, st, b) }
	seedEngagements := func(b []seed.PoolEngagement) (int64, error) { return seed.PoolEngagements(ctx, st, b) }
	if o.reuse != "" {
		// Generate (for the benchmark's own count) without writing.
		o.keepIndexes = true
		seedPeople = func(b []topic.Profile) (int64, error) { return int64(len(b)), nil }
		seedPosts = func(b []seed.PoolPost) (int64, error) { return int64(len(b)), nil }
		seedEngagements = func(b []seed.PoolEngagement) (int64, error) { return int64(len(b)), nil }
	}
	if st.Dialect() == store.SQLite {
		// The loader's own connection (the writer, the only one) keeps the
		// indexes it grows in memory; the readers keep the default.
		if _, err := st.DB().ExecContext(ctx, `PRAGMA cache_size = -1048576`); err != nil {
			return err
		}
		defer func() { _, _ = st.DB().ExecContext(context.Background(), `PRAGMA cache_size = -2000`) }()
	}
	restore := func(context.Context) error { return nil }
	if !o.keepIndexes {
		var err error
		if restore, err = seed.DeferPoolIndexes(ctx, st); err != nil {
			return err
		}
	}
	all := time.Now()

	start := time.Now()
	n, err := pipe(ctx, func(emit func([]topic.Profile) bool) {
		for lo := 0; lo < g.people; lo += o.batch {
			b := make([]topic.Profile, 0, o.batch)
			for i := lo; i < min(lo+o.batch, g.people); i++ {
				p := g.person(i)
				t.person(i, p)
				b = append(b, p)
			}
			if !emit(b) {
				return
			}
		}
	}, seedPeople)
	if err != nil {
		return err
	}
	if n != int64(g.people) {
		return fmt.Errorf("seeded %d people, want %d", n, g.people)
	}
	report(out, "people", n, time.Since(start))

	start = time.Now()
	masks := make([]uint32, g.posts)
	n, err = pipe(ctx, func(emit func([]seed.PoolPost) bool) {
		batch := max(1, o.batch/4) // a post is about 2 KB with its text indexed
		for lo := 0; lo < g.posts; lo += batch {
			b := make([]seed.PoolPost, 0, batch)
			for i := lo; i < min(lo+batch, g.posts); i++ {
				p, text := g.post(i)
				masks[i] = t.postMask(text)
				b = append(b, p)
			}
			if !emit(b) {
				return
			}
		}
	}, seedPosts)
	if err != nil {
		return err
	}
	if n != int64(g.posts) {
		return fmt.Errorf("seeded %d posts, want %d", n, g.posts)
	}
	report(out, "posts", n, time.Since(start))

	start = time.Now()
	n, err = pipe(ctx, func(emit func([]seed.PoolEngagement) bool) {
		var who []int32
		b := make([]seed.PoolEngagement, 0, o.batch+perPostCap)
		for i := range g.posts {
			from := len(b)
			b, who = g.postEngagements(i, b, who)
			t.engagementsOf(masks[i], b[from:], who[from:])
			if len(b) >= o.batch || i == g.posts-1 {
				if !emit(b) {
					return
				}
				b, who = make([]seed.PoolEngagement, 0, o.batch+perPostCap), who[:0]
			}
		}
	}, seedEngagements)
	if err != nil {
		return err
	}
	if n != int64(g.engagements) {
		return fmt.Errorf("seeded %d engagements, want %d", n, g.engagements)
	}
	report(out, "engagements", n, time.Since(start))

	// What collection precomputes as it stores (the loaders bypass it),
	// before the secondary indexes come back.
	start = time.Now()
	done, err := st.PrecomputeMapping(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  precomputed for social mapping in %s: %d posts indexed, %d engagement lists packed, %d people folded\n",
		time.Since(start).Round(time.Millisecond), done.Posts, done.Packed, done.People)
	if !o.keepIndexes {
		start = time.Now()
		if err := restore(ctx); err != nil {
			return err
		}
		fmt.Fprintf(out, "  secondary indexes built in %s\n", time.Since(start).Round(time.Millisecond))
	}
	start = time.Now()
	if st.Dialect() == store.Postgres {
		// What autovacuum does within a minute of a bulk load: without it
		// the planner has no statistics and no page is all-visible.
		if _, err := st.DB().ExecContext(ctx, `VACUUM ANALYZE`); err != nil {
			return fmt.Errorf("vacuum analyze: %w", err)
		}
		fmt.Fprintf(out, "  vacuumed and analyzed in %s\n", time.Since(start).Round(time.Millisecond))
	} else {
		// What the service's writer does on its own sooner or later.
		if _, err := st.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		fmt.Fprintf(out, "  checkpointed in %s\n", time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintf(out, "seeded in %s\n", time.Since(all).Round(time.Second))
	return nil
}

// packPostings builds the keyword posting lists as trawl serve's tick does
// (a few blocks per tick), all of them, and prints what they hold, then
// logs `logged` random posts as changed; or, with pack false, drops them
// (PostgreSQL; nothing on SQLite).
func packPostings(ctx context.Context, st *store.Store, pack bool, logged int, out io.Writer) error {
	if !st.PacksKeywordPostings() {
		return nil
	}
	if !pack {
		fmt.Fprintln(out, "  keyword posting lists dropped: first calls ask the GIN index")
		return st.ForgetKeywordPostings(ctx)
	}
	start := time.Now()
	for {
		n, err := st.PackKeywordPostings(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	held, err := st.KeywordPostingsHeld(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  keyword posting lists packed in %s: %d blocks, %d posts, %s of lists\n",
		time.Since(start).Round(time.Millisecond), held.Blocks, held.Posts, mib(held.Bytes))
	if logged > 0 {
		if _, err := st.DB().ExecContext(ctx, `INSERT INTO mapping_posts_log (id) SELECT id FROM mapping_posts ORDER BY random() LIMIT $1`, logged); err != nil {
			return fmt.Errorf("log posts: %w", err)
		}
		fmt.Fprintf(out, "  %d posts logged as changed since: every first call decides them by their text\n", logged)
	}
	return nil
}

func report(out io.Writer, what string, n int64, took time.Duration) {
	fmt.Fprintf(out, "  %d %s in %s (%.0f/s)\n", n, what, took.Round(time.Millisecond), float64(n)/took.Seconds())
}

// pipe inserts the batches produce emits, generating the next one while the
// current one is written, and returns how many rows were stored.
func pipe[T any](ctx context.Context, produce func(emit func([]T) bool), insert func([]T) (int64, error)) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []T, 1)
	go func() {
		defer close(batches)
		produce(func(b []T) bool {
			select {
			case batches <- b:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	var total int64
	for b := range batches {
		n, err := insert(b)
		if err != nil {
			cancel()
			for range batches { // let the producer finish
			}
			return total, err
		}
		total += n
	}
	return total, ctx.Err()
}

// printSize prints the database's size: the SQLite files, or the pool
// tables' total relation sizes on PostgreSQL; and the pool tables' share.
func printSize(ctx context.Context, st *store.Store, path string, out io.Writer) error {
	tables := append(slices.Clone(seed.PoolTables), "mapping_engagers", "mapping_people", "mapping_postings")
	if st.Dialect() == store.Postgres {
		var total int64
		for _, tbl := range tables {
			var data, idx, all int64
			if err := st.DB().QueryRowContext(ctx,
				`SELECT pg_table_size($1::regclass), pg_indexes_size($1::regclass), pg_total_relation_size($1::regclass)`,
				tbl).Scan(&data, &idx, &all); err != nil {
				return fmt.Errorf("size of %s: %w", tbl, err)
			}
			fmt.Fprintf(out, "  %-20s %s (table %s, indexes %s)\n", tbl, mib(all), mib(data), mib(idx))
			total += all
		}
		fmt.Fprintf(out, "database size: %s (pg_total_relation_size of the pool tables)\n", mib(total))
		return nil
	}
	var files int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			files += fi.Size()
		}
	}
	// Per table, when the driver has the dbstat table.
	rows, err := st.DB().QueryContext(ctx,
		`SELECT m.tbl_name, SUM(d.pgsize) FROM dbstat d JOIN sqlite_master m ON m.name = d.name GROUP BY m.tbl_name ORDER BY 2 DESC`)
	if err == nil {
		sizes := map[string]int64{}
		for rows.Next() {
			var name string
			var size int64
			if rows.Scan(&name, &size) == nil {
				if strings.HasPrefix(name, "mapping_terms") {
					name = "mapping_terms" // the keyword index's shadow tables
				}
				sizes[name] += size
			}
		}
		rows.Close()
		for _, name := range append(tables, "mapping_terms") {
			if sizes[name] > 0 {
				fmt.Fprintf(out, "  %-20s %s (with its indexes)\n", name, mib(sizes[name]))
			}
		}
	}
	fmt.Fprintf(out, "database size: %s (SQLite file with its WAL)\n", mib(files))
	return nil
}

func mib(n int64) string {
	if n >= 10<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
}

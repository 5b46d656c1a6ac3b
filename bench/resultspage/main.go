// Command resultspage measures the latency of
// GET /v1/searches/{id}/results?limit=50 with many stored results: it seeds
// one search with -rows results, starts the real HTTP API in-process on
// loopback, and prints p50/p95/p99 for the first page and for a deep cursor.
//
//	go run ./bench/resultspage -engine sqlite
//	go run ./bench/resultspage -engine postgres -rows 1000000
//
// PostgreSQL runs in a fresh schema of -postgres-url (default
// $TRAWL_TEST_POSTGRES_URL, else the CI database), dropped at the end.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for the schema set-up

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

type options struct {
	engine      string
	rows        int
	deep        int
	requests    int
	warmup      int
	batch       int
	limit       int
	postgresURL string
	keep        bool
}

func main() {
	var o options
	flag.StringVar(&o.engine, "engine", "sqlite", "sqlite or postgres")
	flag.IntVar(&o.rows, "rows", 1_000_000, "results to store")
	flag.IntVar(&o.deep, "deep", 900_000, "results before the deep page's cursor")
	flag.IntVar(&o.requests, "requests", 1000, "timed requests per scenario")
	flag.IntVar(&o.warmup, "warmup", 50, "untimed requests before each scenario")
	flag.IntVar(&o.batch, "batch", 5000, "results per seeding transaction")
	flag.IntVar(&o.limit, "limit", 50, "page size asked for")
	flag.StringVar(&o.postgresURL, "postgres-url", "", "PostgreSQL server (default $TRAWL_TEST_POSTGRES_URL or "+benchkit.DefaultPostgresURL+")")
	flag.BoolVar(&o.keep, "keep", false, "keep the database (to EXPLAIN queries) and print where it is")
	flag.Parse()
	// Interrupted, it still removes its database on the way out.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "resultspage:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	if o.rows < 1 || o.deep < 0 || o.deep >= o.rows || o.requests < 1 || o.batch < 1 || o.limit < 1 {
		return errors.New("want rows >= 1, 0 <= deep < rows, requests >= 1, batch >= 1, limit >= 1")
	}
	dbURL, cleanup, err := benchkit.Database(ctx, o.engine, o.postgresURL, "resultspage", o.keep)
	if err != nil {
		return err
	}
	defer cleanup()

	st, err := benchkit.OpenStore(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	key, sr, err := fixture(ctx, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "engine %s, %d results, page size %d, %d timed requests per scenario\n", o.engine, o.rows, o.limit, o.requests)

	start := time.Now()
	if err := seedResults(ctx, st, sr.ID, o.rows, o.batch); err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Fprintf(out, "seeded in %s (%.0f results/s)\n", took.Round(time.Millisecond), float64(o.rows)/took.Seconds())

	if sr, err = st.SearchByID(ctx, sr.ID); err != nil {
		return err
	}
	// The deep page's cursor; checkPage verifies that it lands where it should.
	deepCursor := ""
	if o.deep > 0 {
		if deepCursor, err = seed.ResultCursorAfter(ctx, st, sr.ID, o.deep); err != nil {
			return err
		}
	}
	fmt.Fprintln(out)

	api, stop, err := benchkit.Serve(st)
	if err != nil {
		return err
	}
	defer stop()

	// Newest first: the page after `skip` results starts with item rows-1-skip.
	scenarios := []scenario{
		{name: "HTTP first page", cursor: "", firstItem: o.rows - 1},
		{name: fmt.Sprintf("HTTP deep page (after %d)", o.deep), cursor: deepCursor, firstItem: o.rows - 1 - o.deep},
	}
	c := &client{http: &http.Client{Timeout: 30 * time.Second}, base: api, key: key, searchID: sr.ID, limit: o.limit}
	var rows []benchkit.Result
	for _, sc := range scenarios {
		r, err := c.measure(ctx, sc, o.warmup, o.requests)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		rows = append(rows, r)
	}
	// The same pages straight from the store: what the query costs without
	// HTTP, authentication, rate limiting and encoding.
	for _, sc := range scenarios {
		r, err := measureStore(ctx, st, sr, sc, o.limit, o.warmup, o.requests)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		rows = append(rows, r)
	}
	benchkit.PrintTable(out, rows, 20*time.Millisecond)
	if o.keep {
		fmt.Fprintf(out, "\nkept database: %s (search %s)\n", dbURL, sr.ID)
	}
	return nil
}

// fixture creates a CUSTOM account, an all-permission key and a search.
func fixture(ctx context.Context, st *store.Store) (string, search.Search, error) {
	a := auth.Account{Name: "bench", Plan: auth.PlanCustom}
	if err := st.CreateAccount(ctx, &a); err != nil {
		return "", search.Search{}, err
	}
	key, err := st.CreateKey(ctx, &auth.Key{AccountID: a.ID, Permissions: []auth.Permission{auth.PermAll}})
	if err != nil {
		return "", search.Search{}, err
	}
	sr := search.Search{AccountID: a.ID, Name: "bench", Kind: search.KindPosts, Definition: search.Definition{
		Keywords: []string{"golang"}, TimeFrame: search.DefaultTimeFrame, MaxResults: search.DefaultMaxResults,
		Frequency: search.Daily, SearchType: search.DefaultSearchType,
	}}
	if err := st.CreateSearch(ctx, &sr, credits.Charge{}, 0); err != nil {
		return "", search.Search{}, err
	}
	return key, sr, nil
}

// seedResults stores n generated results, oldest first, in batches; generation of
// the next batch overlaps the writing of the current one.
func seedResults(ctx context.Context, st *store.Store, searchID string, n, batch int) error {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	gen := seed.NewItems(base, 2)
	batches := make(chan []source.Item, 1)
	go func() {
		defer close(batches)
		for start := 0; start < n; start += batch {
			items := make([]source.Item, 0, batch)
			for i := start; i < min(start+batch, n); i++ {
				items = append(items, gen.Item(i))
			}
			select {
			case batches <- items:
			case <-ctx.Done():
				return
			}
		}
	}()
	var total int64
	for items := range batches {
		var err error
		if total, err = seed.Results(ctx, st, searchID, base.AddDate(1, 0, 0), items); err != nil {
			return err
		}
	}
	if total != int64(n) {
		return fmt.Errorf("seeded %d results, want %d", total, n)
	}
	return nil
}

type scenario struct {
	name      string
	cursor    string
	firstItem int // generator index of the page's first result
}

type client struct {
	http     *http.Client
	base     string
	key      string
	searchID string
	limit    int
}

type pageBody struct {
	Success bool          `json:"success"`
	Data    []source.Item `json:"data"`
}

// measure times warmup+n sequential requests for the scenario's page and
// keeps the last n. Every answer must be a full page starting where the
// scenario says; the check happens outside the timed part.
func (c *client) measure(ctx context.Context, sc scenario, warmup, n int) (benchkit.Result, error) {
	u := c.base + "/v1/searches/" + c.searchID + "/results?limit=" + strconv.Itoa(c.limit)
	if sc.cursor != "" {
		u += "&cursor=" + url.QueryEscape(sc.cursor)
	}
	res := benchkit.Result{Name: sc.name, Latencies: make([]time.Duration, 0, n)}
	for i := range warmup + n {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return benchkit.Result{}, err
		}
		req.Header.Set("x-api-key", c.key)
		start := time.Now()
		resp, err := c.http.Do(req)
		if err != nil {
			return benchkit.Result{}, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		if err != nil {
			return benchkit.Result{}, err
		}
		if resp.StatusCode != http.StatusOK {
			return benchkit.Result{}, fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		if i == 0 || i == warmup+n-1 {
			if err := checkPage(body, sc.firstItem, c.limit); err != nil {
				return benchkit.Result{}, err
			}
		}
		if i >= warmup {
			res.Latencies = append(res.Latencies, took)
		}
	}
	return res, nil
}

func checkPage(body []byte, firstItem, limit int) error {
	var p pageBody
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Errorf("decode page: %w", err)
	}
	want := min(limit, firstItem+1)
	if !p.Success || len(p.Data) != want {
		return fmt.Errorf("page has %d results, want %d", len(p.Data), want)
	}
	if id := seed.ItemID(firstItem); p.Data[0].ID != id {
		return fmt.Errorf("page starts at %s, want %s", p.Data[0].ID, id)
	}
	return nil
}

func measureStore(ctx context.Context, st *store.Store, sr search.Search, sc scenario, limit, warmup, n int) (benchkit.Result, error) {
	res := benchkit.Result{Name: strings.Replace(sc.name, "HTTP", "store", 1), Latencies: make([]time.Duration, 0, n)}
	for i := range warmup + n {
		start := time.Now()
		page, err := st.Results(ctx, sr, limit, sc.cursor, time.Time{})
		took := time.Since(start)
		if err != nil {
			return benchkit.Result{}, err
		}
		if len(page.Items) == 0 || page.Items[0].ID != seed.ItemID(sc.firstItem) {
			return benchkit.Result{}, fmt.Errorf("store page does not start at %s", seed.ItemID(sc.firstItem))
		}
		if i >= warmup {
			res.Latencies = append(res.Latencies, took)
		}
	}
	return res, nil
}

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
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for the schema set-up

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/httpapi"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

const defaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

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
	flag.StringVar(&o.postgresURL, "postgres-url", "", "PostgreSQL server (default $TRAWL_TEST_POSTGRES_URL or "+defaultPostgresURL+")")
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
	dbURL, cleanup, err := database(ctx, o)
	if err != nil {
		return err
	}
	defer cleanup()

	st, err := store.Open(ctx, dbURL, time.Now)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	key, sr, err := fixture(ctx, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "engine %s, %d results, page size %d, %d timed requests per scenario\n", o.engine, o.rows, o.limit, o.requests)

	start := time.Now()
	if err := seed(ctx, st, sr.ID, o.rows, o.batch); err != nil {
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
		if deepCursor, err = st.ResultCursorAfter(ctx, sr.ID, o.deep); err != nil {
			return err
		}
	}
	fmt.Fprintln(out)

	api, stop, err := serve(st)
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
	var rows []result
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
	printTable(out, rows)
	if o.keep {
		fmt.Fprintf(out, "\nkept database: %s (search %s)\n", dbURL, sr.ID)
	}
	return nil
}

// database returns the URL of a fresh database of the engine and a function
// that removes it.
func database(ctx context.Context, o options) (string, func(), error) {
	switch o.engine {
	case "sqlite":
		dir, err := os.MkdirTemp("", "trawl-resultspage-")
		if err != nil {
			return "", nil, err
		}
		cleanup := func() {
			if !o.keep {
				os.RemoveAll(dir)
			}
		}
		return "sqlite://" + filepath.Join(dir, "trawl.db"), cleanup, nil
	case "postgres":
		base := o.postgresURL
		if base == "" {
			base = cmpOr(os.Getenv("TRAWL_TEST_POSTGRES_URL"), defaultPostgresURL)
		}
		var b [6]byte
		_, _ = rand.Read(b[:])
		schema := "trawl_bench_" + hex.EncodeToString(b[:])
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return "", nil, err
		}
		if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
			admin.Close()
			return "", nil, fmt.Errorf("create schema: %w", err)
		}
		cleanup := func() {
			if !o.keep {
				_, _ = admin.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`)
			}
			admin.Close()
		}
		u, err := url.Parse(base)
		if err != nil {
			cleanup()
			return "", nil, err
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String(), cleanup, nil
	}
	return "", nil, fmt.Errorf("unknown engine %q: want sqlite or postgres", o.engine)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
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
	if err := st.CreateSearch(ctx, &sr, store.Charge{}, 0); err != nil {
		return "", search.Search{}, err
	}
	return key, sr, nil
}

// seed stores n generated results, oldest first, in batches; generation of
// the next batch overlaps the writing of the current one.
func seed(ctx context.Context, st *store.Store, searchID string, n, batch int) error {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	gen := store.NewSyntheticItems(base, 2)
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
		if total, err = st.SeedResults(ctx, searchID, base.AddDate(1, 0, 0), items); err != nil {
			return err
		}
	}
	if total != int64(n) {
		return fmt.Errorf("seeded %d results, want %d", total, n)
	}
	return nil
}

// serve starts the real API on a loopback port.
func serve(st *store.Store) (string, func(), error) {
	cfg := &config.Config{
		Addr: "127.0.0.1:0", DataDir: os.TempDir(), DatabaseURL: "unused",
		// The benchmark is one key making thousands of requests a minute.
		RateLimitStarter: 1 << 30, RateLimitEnterprise: 1 << 30, RateLimitCustom: 1 << 30,
		CreditsStarter: 1000, CreditsEnterprise: 25000, CreditsCustom: 100000,
		MicroblogHosts: []string{"x.com", "twitter.com"}, PronetHosts: []string{"linkedin.com"},
	}
	// Access logs are encoded as in production, then dropped.
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	api := httpapi.New(httpapi.Deps{Config: cfg, Store: st, Log: log, Now: time.Now})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}

type scenario struct {
	name      string
	cursor    string
	firstItem int // generator index of the page's first result
}

type result struct {
	name      string
	latencies []time.Duration
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
func (c *client) measure(ctx context.Context, sc scenario, warmup, n int) (result, error) {
	u := c.base + "/v1/searches/" + c.searchID + "/results?limit=" + strconv.Itoa(c.limit)
	if sc.cursor != "" {
		u += "&cursor=" + url.QueryEscape(sc.cursor)
	}
	res := result{name: sc.name, latencies: make([]time.Duration, 0, n)}
	for i := range warmup + n {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return result{}, err
		}
		req.Header.Set("x-api-key", c.key)
		start := time.Now()
		resp, err := c.http.Do(req)
		if err != nil {
			return result{}, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		if err != nil {
			return result{}, err
		}
		if resp.StatusCode != http.StatusOK {
			return result{}, fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		if i == 0 || i == warmup+n-1 {
			if err := checkPage(body, sc.firstItem, c.limit); err != nil {
				return result{}, err
			}
		}
		if i >= warmup {
			res.latencies = append(res.latencies, took)
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
	if id := store.SyntheticItemID(firstItem); p.Data[0].ID != id {
		return fmt.Errorf("page starts at %s, want %s", p.Data[0].ID, id)
	}
	return nil
}

func measureStore(ctx context.Context, st *store.Store, sr search.Search, sc scenario, limit, warmup, n int) (result, error) {
	res := result{name: strings.Replace(sc.name, "HTTP", "store", 1), latencies: make([]time.Duration, 0, n)}
	for i := range warmup + n {
		start := time.Now()
		page, err := st.Results(ctx, sr, limit, sc.cursor, time.Time{})
		took := time.Since(start)
		if err != nil {
			return result{}, err
		}
		if len(page.Items) == 0 || page.Items[0].ID != store.SyntheticItemID(sc.firstItem) {
			return result{}, fmt.Errorf("store page does not start at %s", store.SyntheticItemID(sc.firstItem))
		}
		if i >= warmup {
			res.latencies = append(res.latencies, took)
		}
	}
	return res, nil
}

func printTable(out io.Writer, rows []result) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\trequests\tp50\tp95\tp99\tmax\tp95 < 20 ms\t")
	for _, r := range rows {
		l := slices.Clone(r.latencies)
		slices.Sort(l)
		ok := "yes"
		if percentile(l, 95) >= 20*time.Millisecond {
			ok = "NO"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.name, len(l),
			ms(percentile(l, 50)), ms(percentile(l, 95)), ms(percentile(l, 99)), ms(l[len(l)-1]), ok)
	}
	tw.Flush()
}

// percentile of sorted latencies, nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

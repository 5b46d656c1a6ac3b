// Command csvexport measures the CSV export of search results: it seeds one
// search with -rows results straight through the store, starts the real
// HTTP API in-process on loopback, streams
// GET /v1/searches/{id}/results?format=csv (and, with -filter, the same
// export narrowed by job_title) and prints rows/s and the process's memory:
// resident set size sampled along the export and its peak (VmHWM, reset
// after seeding), which must stay flat whatever the number of rows.
//
//	go run ./bench/csvexport -engine sqlite
//	go run ./bench/csvexport -engine postgres -rows 1000000
//
// The client reading the export runs in the same process (it parses every
// record with encoding/csv, reusing one record), so the figures include it.
// PostgreSQL runs in a fresh schema of -postgres-url (default
// $TRAWL_TEST_POSTGRES_URL, else the CI database), dropped at the end; its
// server processes are not part of the memory figures.
package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for the schema set-up

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

type options struct {
	engine      string
	rows        int
	batch       int
	filter      string
	postgresURL string
	keep        bool
}

func main() {
	var o options
	flag.StringVar(&o.engine, "engine", "sqlite", "sqlite or postgres")
	flag.IntVar(&o.rows, "rows", 1_000_000, "results to store and export")
	flag.IntVar(&o.batch, "batch", 5000, "results per seeding transaction")
	flag.StringVar(&o.filter, "filter", "founder", "job_title of a second, filtered export (one author in five has it); empty to skip")
	flag.StringVar(&o.postgresURL, "postgres-url", "", "PostgreSQL server (default $TRAWL_TEST_POSTGRES_URL or "+benchkit.DefaultPostgresURL+")")
	flag.BoolVar(&o.keep, "keep", false, "keep the database and print where it is")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "csvexport:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	if o.rows < 1 || o.batch < 1 {
		return errors.New("want rows >= 1 and batch >= 1")
	}
	dbURL, cleanup, err := benchkit.Database(ctx, o.engine, o.postgresURL, "csvexport", o.keep)
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
	fmt.Fprintf(out, "engine %s, %d results, %d CPUs\n", o.engine, o.rows, runtime.NumCPU())
	start := time.Now()
	if err := seedResults(ctx, st, sr.ID, o.rows, o.batch); err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Fprintf(out, "seeded in %s (%.0f results/s)\n", took.Round(time.Millisecond), float64(o.rows)/took.Seconds())

	api, stopAPI, err := benchkit.Serve(st)
	if err != nil {
		return err
	}
	defer stopAPI()
	u := api + "/v1/searches/" + sr.ID + "/results?format=csv"
	if err := export(ctx, out, "all results", u, key, o.rows); err != nil {
		return err
	}
	if o.filter != "" {
		if err := export(ctx, out, "job_title="+o.filter, u+"&job_title="+url.QueryEscape(o.filter), key, -1); err != nil {
			return err
		}
	}
	if o.keep {
		fmt.Fprintf(out, "\nkept database: %s (search %s)\n", dbURL, sr.ID)
	}
	return nil
}

// export streams one CSV export and prints its rate and the memory it took;
// want is the number of rows it must have (-1: any).
func export(ctx context.Context, out io.Writer, name, u, key string, want int) error {
	// Seeding and earlier exports leave garbage and a high-water mark behind:
	// start from a collected heap and a peak reset to the current RSS.
	runtime.GC()
	debug.FreeOSMemory()
	peakReset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	before := memStatus()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", key)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: status %d: %s", name, resp.StatusCode, body)
	}
	counted := &countingReader{r: resp.Body}
	r := csv.NewReader(bufio.NewReaderSize(counted, 64<<10))
	r.ReuseRecord = true
	if _, err := r.Read(); err != nil {
		return fmt.Errorf("%s: header: %w", name, err)
	}
	firstRow := time.Duration(0)
	rows, next := 0, 0
	var samples []string
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: after %d rows: %w", name, rows, err)
		}
		if rows == 0 {
			firstRow = time.Since(start)
		}
		rows++
		// RSS along the export: flat means it does not grow with the rows.
		if want > 0 && rows >= next {
			samples = append(samples, fmt.Sprintf("%d%%: %s", rows*100/want, mib(memStatus().rss)))
			next += want / 5
		}
	}
	took := time.Since(start)
	if want >= 0 && rows != want {
		return fmt.Errorf("%s: %d rows, want %d", name, rows, want)
	}
	after := memStatus()
	fmt.Fprintf(out, "\n%s: %d rows, %.1f MiB of CSV in %s: %.0f rows/s, first row after %s\n", name, rows,
		float64(counted.n)/(1<<20), took.Round(time.Millisecond), float64(rows)/took.Seconds(), firstRow.Round(time.Millisecond))
	peak := "VmHWM " + mib(after.hwm)
	if !peakReset {
		peak += " (not reset after seeding: /proc/self/clear_refs refused, so it includes the seeding)"
	}
	fmt.Fprintf(out, "  RSS before %s, after %s, peak during the export %s\n", mib(before.rss), mib(after.rss), peak)
	if len(samples) > 0 {
		fmt.Fprintf(out, "  RSS along the export: %s\n", strings.Join(samples, ", "))
	}
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type mem struct{ rss, hwm int64 }

// memStatus reads VmRSS and VmHWM (kB) from /proc/self/status.
func memStatus() mem {
	var m mem
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(raw), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			m.rss = n << 10
		case "VmHWM":
			m.hwm = n << 10
		}
	}
	return m
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// fixture creates a CUSTOM account, an all-permission key and a paused
// search that nothing collects into.
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
	if err := seed.Search(ctx, st, &sr); err != nil {
		return "", search.Search{}, err
	}
	return key, sr, nil
}

// Authors' bios and locations, so that the filtered export has work to do.
var (
	benchTitles    = []string{"Founder", "Head of Sales", "Staff Engineer", "Marketing Lead", "Product Manager"}
	benchLocations = []string{"Berlin, Germany", "Austin, TX", "London, UK", "Paris, France", ""}
)

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
				it := gen.Item(i)
				it.Author.Description = benchTitles[i%len(benchTitles)] + " at Company " + strconv.Itoa(i%977) + ", writing about go and databases"
				it.Author.Location = benchLocations[i%len(benchLocations)]
				items = append(items, it)
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

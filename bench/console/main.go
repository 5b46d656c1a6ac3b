// Command console measures the web console's results table over a search
// holding a million results: it builds one account and one microblog
// search with -rows results (or reuses the database a previous run built
// with the same count), serves the real console and API on loopback as the
// binary does, signs in with a key into a console session, and times
// GET /searches/{id}: the first page again and again, pages 1..-pages by
// following the table's rel=next link, pages far into the table (a cursor
// after 10%..99.99% of the results), and, when the results page has author
// filters, a filtered table. Each request is timed from its start to the
// last byte of the answer; p50/p95/p99 are printed per scenario.
//
//	go run ./bench/console -engine sqlite
//	go run ./bench/console -engine postgres -rows 1000000
//
// SQLite keeps its file under -dir (console-<rows>.db); PostgreSQL keeps the
// schema trawl_bench_console_<rows> of -pg (default
// $TRAWL_TEST_POSTGRES_URL, else the CI database). -rebuild builds it again;
// -drop removes it at the end.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for the schema set-up

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/internal/auth"
)

type options struct {
	engine   string
	rows     int
	pg       string
	pages    int
	requests int
	warmup   int
	batch    int
	filter   string
	dir      string
	rebuild  bool
	drop     bool
}

func main() {
	var o options
	flag.StringVar(&o.engine, "engine", "sqlite", "sqlite or postgres")
	flag.IntVar(&o.rows, "rows", 1_000_000, "results of the search")
	flag.StringVar(&o.pg, "pg", "", "PostgreSQL server (default $TRAWL_TEST_POSTGRES_URL or "+benchkit.DefaultPostgresURL+")")
	flag.IntVar(&o.pages, "pages", 200, "pages read by following rel=next from the first")
	flag.IntVar(&o.requests, "requests", 200, "timed requests of the first page, and of each far page's scenario")
	flag.IntVar(&o.warmup, "warmup", 20, "untimed requests before each scenario")
	flag.IntVar(&o.batch, "batch", 5000, "results per building transaction")
	flag.StringVar(&o.filter, "filter", "job_title=founder", "query of the filtered table (when the results page has author filters); empty to skip")
	flag.StringVar(&o.dir, "dir", filepath.Join(os.TempDir(), "trawl-bench-console"), "folder of the SQLite database")
	flag.BoolVar(&o.rebuild, "rebuild", false, "build the data set again even if a built one is there")
	flag.BoolVar(&o.drop, "drop", false, "remove the database at the end")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "console:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	if o.rows < 1 || o.pages < 1 || o.requests < 1 || o.warmup < 0 || o.batch < 1 {
		return errors.New("want rows, pages, requests and batch >= 1 and warmup >= 0")
	}
	dbURL, where, drop, err := database(ctx, o)
	if err != nil {
		return err
	}
	if o.rebuild {
		if err := drop(); err != nil {
			return err
		}
	}
	st, err := benchkit.OpenStore(ctx, dbURL)
	if err != nil {
		return err
	}
	// st may be reopened below: close the one open at the end.
	defer func() {
		if st != nil {
			st.Close()
		}
		if o.drop {
			if err := drop(); err != nil {
				fmt.Fprintln(out, "could not remove the database:", err)
			}
		}
	}()

	sr, ok, err := built(ctx, st, o.rows)
	if err != nil {
		return err
	}
	if ok {
		fmt.Fprintf(out, "reusing the data set built before with %d results (%s)\n", o.rows, where)
	} else {
		// Whatever is there is an interrupted build: start again.
		st.Close()
		st = nil
		if err := drop(); err != nil {
			return err
		}
		reopened, err := benchkit.OpenStore(ctx, dbURL)
		if err != nil {
			return err
		}
		st = reopened
		fmt.Fprintf(out, "building %d results (%s)\n", o.rows, where)
		if sr, err = build(ctx, st, o, out); err != nil {
			return err
		}
	}
	secret, err := st.CreateKey(ctx, &auth.Key{AccountID: sr.AccountID, Permissions: []auth.Permission{auth.PermAll}})
	if err != nil {
		return err
	}

	base, stopServer, err := serve(st)
	if err != nil {
		return err
	}
	defer stopServer()
	b, err := signIn(ctx, base, secret)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "engine %s, search %s with %d results, GET /searches/{id} (50 a page), timed to the last byte\n\n", o.engine, sr.ID, sr.TotalResults)

	fmt.Fprintln(out, "load average before:", loadAverage())
	results, err := measure(ctx, b, st, sr, o, out)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "load average after:", loadAverage())
	fmt.Fprintln(out)
	benchkit.PrintTable(out, results, 50*time.Millisecond)
	if !o.drop {
		fmt.Fprintf(out, "\nkept the data set (%s); -drop removes it\n", where)
	}
	return nil
}

// loadAverage is the machine's 1, 5 and 15 minute load averages: the
// figures of a shared machine are read with them.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// Package benchkit holds what the bench/ programs share: a fresh database
// of either engine, the real API on a loopback port, and latency tables.
package benchkit

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for the schema set-up

	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/httpapi"
	"github.com/trawlhq/trawl/internal/store"
)

// DefaultPostgresURL is the CI database, used when neither a flag nor
// TRAWL_TEST_POSTGRES_URL names one.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Database returns the URL of a fresh database of the engine ("sqlite" or
// "postgres") and a function that removes it, unless keep: a file in a
// temporary folder, or a schema of its own on postgresURL.
func Database(ctx context.Context, engine, postgresURL, name string, keep bool) (string, func(), error) {
	switch engine {
	case "sqlite":
		dir, err := os.MkdirTemp("", "trawl-"+name+"-")
		if err != nil {
			return "", nil, err
		}
		cleanup := func() {
			if !keep {
				os.RemoveAll(dir)
			}
		}
		return "sqlite://" + filepath.Join(dir, "trawl.db"), cleanup, nil
	case "postgres":
		base := cmp.Or(postgresURL, os.Getenv("TRAWL_TEST_POSTGRES_URL"), DefaultPostgresURL)
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
			if !keep {
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
	return "", nil, fmt.Errorf("unknown engine %q: want sqlite or postgres", engine)
}

// Serve starts the real API over st on a loopback port and returns its
// base URL and a function that stops it. Rate limits are off: a benchmark
// is one key making thousands of requests a minute.
func Serve(st *store.Store) (string, func(), error) {
	cfg, err := config.Default()
	if err != nil {
		return "", nil, err
	}
	cfg.Addr, cfg.DataDir, cfg.DatabaseURL = "127.0.0.1:0", os.TempDir(), "unused"
	cfg.RateLimitStarter, cfg.RateLimitEnterprise, cfg.RateLimitCustom = 1<<30, 1<<30, 1<<30
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

// Result is the latencies of one scenario.
type Result struct {
	Name      string
	Latencies []time.Duration
}

// PrintTable prints p50, p95, p99 and max per scenario, and whether p95
// is within target.
func PrintTable(out io.Writer, rows []Result, target time.Duration) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scenario\tcalls\tp50\tp95\tp99\tmax\tp95 <= %s\t\n", Ms(target))
	for _, r := range rows {
		l := slices.Clone(r.Latencies)
		slices.Sort(l)
		ok := "yes"
		if Percentile(l, 95) > target {
			ok = "NO"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.Name, len(l),
			Ms(Percentile(l, 50)), Ms(Percentile(l, 95)), Ms(Percentile(l, 99)), Ms(l[len(l)-1]), ok)
	}
	tw.Flush()
}

// Percentile of sorted latencies, nearest rank.
func Percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

// Ms formats d in milliseconds.
func Ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// OpenStore opens the database at url and brings its schema up to date,
// as the service does at start-up.
func OpenStore(ctx context.Context, url string) (*store.Store, error) {
	st, err := store.Open(ctx, url, time.Now)
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

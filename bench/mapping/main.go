// Command mapping measures social mapping (mapping.Engine.SocialMapping, behind
// POST /v1/social/mapping; the store call alone, without HTTP, credits or
// encoding) over a realistic pool. It seeds -people people with
// firmographics, -posts posts published over the 30 days before "now"
// whose text is drawn from a vocabulary with a long tail, and -engagements
// engagements spread over the posts with a heavy tail (seed.People,
// seed.PoolPosts, seed.PoolEngagements), and prints the seeding
// time and the database size. Then it runs typical queries (2-3 keywords,
// 30 days, 0-2 firmographic filters; a narrow, a broad, a strength-3 and a
// 7-day one beside them) for each page of -pages, -reps times each, and
// prints p50/p95 with the exact totals, which it checks against its own
// count over the generated data. The pool is loaded without collection's
// precomputation, which store.PrecomputeMapping then makes (timed
// apart); on PostgreSQL store.PackKeywordPostings then builds the keyword
// posting lists (timed apart too; -postings=false drops them, so that
// first calls ask GIN). Each call also records how long its steps took
// (mapping.WithSteps): the keyword match, the engagements to one row
// per person (the distinct count without filters), the filters, the page;
// and how many qualifying engagements each query has, from which
// TRAWL_MAPPING_MAX_CANDIDATES is chosen. Each query and page starts with
// the keyword matches emptied (the process's and those the processes
// share), and that first call, which asks the keyword index, is printed
// apart from the timed ones; so is a last call with only the process's
// emptied, as another process's first call.
//
//	go run ./bench/mapping -engine sqlite -scale 0.1
//	go run ./bench/mapping -engine postgres -scale 0.1
//	go run ./bench/mapping -engine sqlite   # 1,000,000 people, 2,000,000 posts, 10,000,000 engagements
//
// Secondary indexes of the pool tables are dropped during the load and
// built at the end (-keep-indexes keeps them). PostgreSQL runs in a fresh
// schema of -postgres-url (default $TRAWL_TEST_POSTGRES_URL, else the CI
// database), dropped at the end.
//
// The files: pool.go and vocabulary.go generate the pool, seed.go loads it
// (through bench/seed), oracle.go counts each scenario's true answer while
// the pool is generated, measure.go times the calls and checks them
// against that answer, report.go prints the figures.
package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for the schema set-up

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/internal/mapping"
)

const defaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// target is the p95 the issue asks for.
const target = 50 * time.Millisecond

// benchNow is the benchmark's "now": the posts are published in the 30
// days before it.
var benchNow = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)

type options struct {
	engine      string
	people      int
	posts       int
	engagements int
	scale       float64
	reps        int
	warmup      int
	batch       int
	pages       string
	split       bool
	creators    bool
	budget      time.Duration
	keepIndexes bool
	queries     string
	postgresURL string
	keep        bool
	reuse       string
	cpuprofile  string
	postings    bool
	logged      int
}

func main() {
	var o options
	flag.StringVar(&o.engine, "engine", "sqlite", "sqlite or postgres")
	flag.IntVar(&o.people, "people", 1_000_000, "people in the pool")
	flag.IntVar(&o.posts, "posts", 2_000_000, "posts in the pool, published over 30 days")
	flag.IntVar(&o.engagements, "engagements", 10_000_000, "engagements of the posts")
	flag.Float64Var(&o.scale, "scale", 1, "multiplies -people, -posts and -engagements (0.1: a tenth of the pool)")
	flag.IntVar(&o.reps, "reps", 20, "timed calls per query and page (fewer, at least 5, when they would take over -budget)")
	flag.DurationVar(&o.budget, "budget", 30*time.Second, "time a query's timed calls may take, roughly")
	flag.IntVar(&o.warmup, "warmup", 2, "untimed calls before each query and page")
	flag.IntVar(&o.batch, "batch", 20_000, "rows per seeding transaction")
	flag.StringVar(&o.pages, "pages", "1x50,20x10", "pages measured, PAGExPAGE_SIZE, comma-separated")
	flag.BoolVar(&o.split, "split", true, "also print where the time goes: the p50 of each step of the calls")
	flag.BoolVar(&o.creators, "creators", true, "also time creator discovery (mapping.Engine.DiscoverCreators) on the same keywords, windows and filters")
	flag.StringVar(&o.queries, "queries", "", "measure only the queries whose name matches this regular expression")
	flag.BoolVar(&o.keepIndexes, "keep-indexes", false, "seed with every index in place instead of building the secondary ones at the end")
	flag.StringVar(&o.postgresURL, "postgres-url", "", "PostgreSQL server (default $TRAWL_TEST_POSTGRES_URL or "+defaultPostgresURL+")")
	flag.BoolVar(&o.keep, "keep", false, "keep the database (to EXPLAIN queries) and print where it is")
	flag.StringVar(&o.reuse, "reuse", "", "a database a run with the same sizes kept (-keep): the SQLite file, or the PostgreSQL schema; "+
		"measures it without seeding (what is missing is still precomputed)")
	flag.BoolVar(&o.postings, "postings", true, "PostgreSQL: pack the keyword posting lists as the tick does; false drops them, so that first calls ask the GIN index")
	flag.IntVar(&o.logged, "logged", 0, "PostgreSQL: posts logged as changed after the posting lists were packed (texts unchanged), "+
		"which a first call decides by their text; the tick builds a block again after 200 of its posts changed")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the timed queries (not the seeding) to this file")
	flag.Parse()
	// Interrupted, it still removes its database on the way out.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mapping:", err)
		stop()
		os.Exit(1)
	}
}

type pageSpec struct{ page, size int }

func parsePages(s string) ([]pageSpec, error) {
	var out []pageSpec
	for _, f := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(f), "x")
		page, err1 := strconv.Atoi(a)
		size, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || page < 1 || size < 1 {
			return nil, fmt.Errorf("page %q: want PAGExPAGE_SIZE, e.g. 20x10", f)
		}
		out = append(out, pageSpec{page, size})
	}
	return out, nil
}

func run(ctx context.Context, o options, out io.Writer) error {
	o.people = int(math.Round(float64(o.people) * o.scale))
	o.posts = int(math.Round(float64(o.posts) * o.scale))
	o.engagements = int(math.Round(float64(o.engagements) * o.scale))
	pages, err := parsePages(o.pages)
	if err != nil {
		return err
	}
	only, err := regexp.Compile(o.queries)
	if err != nil {
		return fmt.Errorf("-queries: %w", err)
	}
	if o.people < 100 || o.posts < 1 || o.engagements < 0 || o.engagements > o.posts*min(perPostCap, o.people/4) ||
		o.reps < 1 || o.warmup < 0 || o.batch < 1 {
		return errors.New("want people >= 100, posts >= 1, 0 <= engagements <= posts * min(20000, people/4), " +
			"reps >= 1, warmup >= 0, batch >= 1")
	}
	dbURL, path, cleanup, err := database(ctx, o)
	if err != nil {
		return err
	}
	defer cleanup()

	st, err := benchkit.OpenStore(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(out, "engine %s: %d people, %d posts over 30 days, %d engagements; %d timed calls per query and page\n",
		o.engine, o.people, o.posts, o.engagements, o.reps)

	start := time.Now()
	g := newPool(benchNow, o.people, o.posts, o.engagements)
	sc := scenarios()
	t := newTruth(sc, g)
	fmt.Fprintf(out, "generator ready in %s (largest post: %d engagements)\n",
		time.Since(start).Round(time.Millisecond), slices.Max(g.counts))
	if err := seedPool(ctx, st, g, t, o, out); err != nil {
		return err
	}
	if err := packPostings(ctx, st, o.postings, o.logged, out); err != nil {
		return err
	}
	if err := printSize(ctx, st, path, out); err != nil {
		return err
	}
	fmt.Fprintln(out)

	// As trawl serve does at start-up: the first query does not load them.
	start = time.Now()
	eng := mapping.NewEngine(st.MappingPool())
	if err := eng.Load(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "in-memory copies loaded in %s\n\n", time.Since(start).Round(time.Millisecond))
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var rows []result
	for i, s := range sc {
		if !only.MatchString(s.name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "measuring %s\n", s.name)
		for _, p := range pages {
			r, err := measure(ctx, st, eng, sc, i, p, t.people(i), o.warmup, o.reps, o.budget)
			if err != nil {
				return fmt.Errorf("%s, page %d of %d: %w", s.name, p.page, p.size, err)
			}
			rows = append(rows, r)
		}
	}
	printResults(out, sc, t, rows)

	if o.split {
		fmt.Fprintln(out)
		for _, r := range rows {
			st := r.steps[len(r.steps)-1]
			if st.Engagements != t.engagements[r.sc] || sc[r.sc].q.Filters.Empty() && int64(st.People) != t.people(r.sc) {
				return fmt.Errorf("%s: the steps count %d engagements and %d people, want %d and %d",
					sc[r.sc].name, st.Engagements, st.People, t.engagements[r.sc], t.people(r.sc))
			}
		}
		printSplit(out, sc, rows)
	}
	if o.creators {
		fmt.Fprintln(out)
		if err := measureCreators(ctx, st, eng, sc, only, pages[0], o, out); err != nil {
			return err
		}
	}
	if o.keep {
		fmt.Fprintf(out, "\nkept database: %s\n", dbURL)
	}
	return nil
}

// database returns the URL of a fresh database of the engine, the SQLite
// file ("" for PostgreSQL) and a function that removes it.
func database(ctx context.Context, o options) (string, string, func(), error) {
	switch o.engine {
	case "sqlite":
		if o.reuse != "" {
			return "sqlite://" + o.reuse, o.reuse, func() {}, nil
		}
		dir, err := os.MkdirTemp("", "trawl-mapping-")
		if err != nil {
			return "", "", nil, err
		}
		cleanup := func() {
			if !o.keep {
				os.RemoveAll(dir)
			}
		}
		path := filepath.Join(dir, "trawl.db")
		return "sqlite://" + path, path, cleanup, nil
	case "postgres":
		base := o.postgresURL
		if base == "" {
			base = cmp.Or(os.Getenv("TRAWL_TEST_POSTGRES_URL"), defaultPostgresURL)
		}
		var b [6]byte
		_, _ = rand.Read(b[:])
		schema := "trawl_bench_" + hex.EncodeToString(b[:])
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return "", "", nil, err
		}
		if o.reuse != "" {
			schema = o.reuse
		} else if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
			admin.Close()
			return "", "", nil, fmt.Errorf("create schema: %w", err)
		}
		cleanup := func() {
			if !o.keep && o.reuse == "" {
				_, _ = admin.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`)
			}
			admin.Close()
		}
		u, err := url.Parse(base)
		if err != nil {
			cleanup()
			return "", "", nil, err
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String(), "", cleanup, nil
	}
	return "", "", nil, fmt.Errorf("unknown engine %q: want sqlite or postgres", o.engine)
}

// scenario is a query measured.
type scenario struct {
	name string
	q    mapping.Query
}

func scenarios() []scenario {
	q := func(days, strength int, f mapping.Filters, keywords ...string) mapping.Query {
		return mapping.Query{Keywords: keywords, Days: days, Strength: strength, Filters: f}
	}
	sizes := []string{"51-200", "201-500"}
	return []scenario{
		{"narrow, no filter", q(30, 1, mapping.Filters{}, "plg", "product led growth")},
		{"typical, no filter", q(30, 1, mapping.Filters{}, "revops", "sales ops")},
		{"typical, 1 filter", q(30, 1, mapping.Filters{CompanySizes: sizes}, "revops", "sales ops", "crm")},
		{"typical, 2 filters", q(30, 1, mapping.Filters{CompanySizes: sizes, Countries: []string{"US"}}, "revops", "sales ops", "crm")},
		{"typical, 2 filters (titles)", q(30, 1, mapping.Filters{JobTitles: []string{"sales", "sdr"}, Countries: []string{"US", "GB"}},
			"cold email", "outbound", "sdr")},
		{"typical, strength 3", q(30, 3, mapping.Filters{}, "revops", "sales ops", "crm")},
		{"typical, 7 days, 1 filter", q(7, 1, mapping.Filters{CompanySizes: sizes}, "revops", "sales ops", "crm")},
		{"broad, no filter", q(30, 1, mapping.Filters{}, "automation", "fundraising")},
		{"broad, 2 filters", q(30, 1, mapping.Filters{JobTitles: []string{"founder", "ceo"}, Countries: []string{"DE"}},
			"automation", "fundraising")},
		{"very broad, no filter", q(30, 1, mapping.Filters{}, "ai")},
	}
}

// describe writes a query's keywords, window and filters.
func describe(q mapping.Query) string {
	parts := []string{strings.Join(q.Keywords, ", "), strconv.Itoa(q.Days) + "d"}
	if q.Strength > 1 {
		parts = append(parts, "strength "+strconv.Itoa(q.Strength))
	}
	f := q.Filters
	for _, x := range []struct {
		name string
		vals []string
	}{{"sizes", f.CompanySizes}, {"countries", f.Countries}, {"titles", f.JobTitles}, {"industries", f.Industries}} {
		if len(x.vals) > 0 {
			parts = append(parts, x.name+" "+strings.Join(x.vals, "/"))
		}
	}
	return strings.Join(parts, "; ")
}

// The pool.

// The vocabulary and the lists people are made of.

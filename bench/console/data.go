package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

// searchName names the one search this program builds, so a later run
// finds it in a database it kept.
const searchName = "bench-console"

// database is the URL of the engine's database for o.rows results: a file
// (SQLite) or a schema (PostgreSQL) named after the row count, kept between
// runs so that the next run with the same count reuses it.
func database(ctx context.Context, o options) (dbURL, where string, drop func() error, err error) {
	switch o.engine {
	case "sqlite":
		if err := os.MkdirAll(o.dir, 0o700); err != nil {
			return "", "", nil, err
		}
		file := filepath.Join(o.dir, fmt.Sprintf("console-%d.db", o.rows))
		drop := func() error {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(file + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
			return nil
		}
		return "sqlite://" + file, file, drop, nil
	case "postgres":
		base := cmp.Or(o.pg, os.Getenv("TRAWL_TEST_POSTGRES_URL"), benchkit.DefaultPostgresURL)
		schema := fmt.Sprintf("trawl_bench_console_%d", o.rows)
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return "", "", nil, err
		}
		defer admin.Close()
		if _, err := admin.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema); err != nil {
			return "", "", nil, fmt.Errorf("create schema: %w", err)
		}
		drop := func() error {
			admin, err := sql.Open("pgx", base)
			if err != nil {
				return err
			}
			defer admin.Close()
			if _, err := admin.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`); err != nil {
				return err
			}
			_, err = admin.ExecContext(ctx, `CREATE SCHEMA `+schema)
			return err
		}
		u, err := url.Parse(base)
		if err != nil {
			return "", "", nil, err
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String(), "schema " + schema, drop, nil
	}
	return "", "", nil, fmt.Errorf("unknown engine %q: want sqlite or postgres", o.engine)
}

// built finds the search a previous run left with exactly rows results;
// ok is false when there is none (or it holds another count: a run that was
// interrupted while seeding).
func built(ctx context.Context, st *store.Store, rows int) (search.Search, bool, error) {
	var id string
	var total int64
	err := st.DB().QueryRowContext(ctx, `SELECT id, total_results FROM searches WHERE name = $1`, searchName).Scan(&id, &total)
	if errors.Is(err, sql.ErrNoRows) {
		return search.Search{}, false, nil
	}
	if err != nil {
		return search.Search{}, false, fmt.Errorf("find the built search: %w", err)
	}
	if total != int64(rows) {
		return search.Search{}, false, nil
	}
	sr, err := st.SearchByID(ctx, id)
	return sr, err == nil, err
}

// build creates the account and its search and stores rows results in
// batches, one transaction each, while the next batch is generated.
func build(ctx context.Context, st *store.Store, o options, out io.Writer) (search.Search, error) {
	a := auth.Account{Name: "bench-console", Plan: auth.PlanCustom}
	if err := st.CreateAccount(ctx, &a); err != nil {
		return search.Search{}, err
	}
	sr := search.Search{AccountID: a.ID, Name: searchName, Kind: search.KindPosts, Definition: search.Definition{
		Keywords: []string{"golang"}, TimeFrame: search.DefaultTimeFrame, MaxResults: search.DefaultMaxResults,
		Frequency: search.Daily, SearchType: search.DefaultSearchType,
	}}
	if err := seed.Search(ctx, st, &sr); err != nil {
		return search.Search{}, err
	}
	start := time.Now()
	gen := newItems()
	batches := make(chan []source.Item, 1)
	go func() {
		defer close(batches)
		for n := 0; n < o.rows; n += o.batch {
			items := make([]source.Item, 0, o.batch)
			for i := n; i < min(n+o.batch, o.rows); i++ {
				items = append(items, gen.next(i))
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
		if total, err = seed.Results(ctx, st, sr.ID, gen.at, items); err != nil {
			return search.Search{}, err
		}
		if total%100_000 < int64(len(items)) {
			fmt.Fprintf(out, "  %d results stored\n", total)
		}
	}
	if err := ctx.Err(); err != nil {
		return search.Search{}, err
	}
	if total != int64(o.rows) {
		return search.Search{}, fmt.Errorf("stored %d results, want %d", total, o.rows)
	}
	took := time.Since(start)
	fmt.Fprintf(out, "built in %s (%.0f results/s)\n", took.Round(time.Second), float64(o.rows)/took.Seconds())
	// Fresh statistics, as autovacuum would leave them some time later.
	if st.Dialect() == store.Postgres {
		if _, err := st.DB().ExecContext(ctx, `ANALYZE search_results`); err != nil {
			return search.Search{}, err
		}
	}
	return st.SearchByID(ctx, sr.ID)
}

// items generates a search's results as a busy keyword search collects
// them: 20,000 authors of whom a few post most (Zipf), bios with a job title
// and a company, locations, heavy-tailed likes, and publication times about
// a minute apart on average over the last two years, whole seconds as the
// microblog gives them (several results often share one).
type items struct {
	rng     *rand.Rand
	authors *rand.Zipf
	at      time.Time // collection time of every result
	pub     time.Time // publication of the last result made
}

var (
	titles = []string{"Software Engineer", "Senior Software Engineer", "Staff Engineer", "Founder", "Co-founder & CEO",
		"Product Manager", "Head of Growth", "Data Scientist", "Engineering Manager", "CTO", "Developer Advocate",
		"Marketing Lead", "Designer", "Student", "SRE", "Consultant"}
	companies = []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Enterprises",
		"Pied Piper", "Vandelay Industries", "Soylent", "Cyberdyne", "Tyrell"}
	locations = []string{"Berlin, Germany", "San Francisco, CA", "London, UK", "Paris, France", "New York, NY",
		"Toronto, Canada", "Bangalore, India", "São Paulo, Brasil", "Remote", "", "", "Amsterdam, Netherlands"}
	words = strings.Fields(`shipping a new release of our go service today with faster queries better observability
		and a cleaner api thanks to everyone who filed issues and reviewed pull requests over the last month
		postgres sqlite index latency benchmark golang generics concurrency channels goroutines profiling`)
)

const authorCount = 20_000

func newItems() *items {
	rng := rand.New(rand.NewPCG(39, 1))
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	return &items{rng: rng, authors: rand.NewZipf(rng, 1.2, 10, authorCount-1), at: at, pub: at.AddDate(-2, 0, 0)}
}

// next is result n; results come oldest first, ids growing with time.
func (g *items) next(n int) source.Item {
	g.pub = g.pub.Add(time.Duration(g.rng.ExpFloat64()*60) * time.Second)
	a := int(g.authors.Uint64())
	user := "author" + strconv.Itoa(a)
	followers := int(math.Exp(g.rng.NormFloat64()*1.8 + 6))
	likes := int(math.Exp(g.rng.NormFloat64()*1.6 + 1.5))
	comments, shares := likes/8, likes/5
	var text strings.Builder
	for text.Len() < 80+g.rng.IntN(200) {
		if text.Len() > 0 {
			text.WriteByte(' ')
		}
		text.WriteString(words[g.rng.IntN(len(words))])
	}
	id := seed.ItemID(n)
	return source.Item{
		ID:     id,
		Source: "microblog",
		Author: source.Author{
			Name:        "Author " + strconv.Itoa(a),
			Username:    user,
			ProfileURL:  "https://x.com/" + user,
			Avatar:      "https://pbs.twimg.com/profile_images/" + strconv.Itoa(a) + "/" + user + "_normal.jpg",
			Followers:   &followers,
			Description: titles[a%len(titles)] + " at " + companies[a/len(titles)%len(companies)] + ". Go, databases and open source.",
			Location:    locations[a%len(locations)],
		},
		Content: source.Content{
			Text:  text.String(),
			URL:   "https://x.com/" + user + "/status/" + id,
			Media: []source.Media{{Type: "photo", URL: "https://pbs.twimg.com/media/" + id + ".jpg"}},
		},
		Engagement:  source.Engagement{Likes: likes, Comments: comments, Shares: &shares},
		PublishedAt: g.pub,
	}
}

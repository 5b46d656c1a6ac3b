// Command topicengagers measures the latency of a topic's deduplicated
// engagers list, GET /v1/topics/{id}/engagements, with many engagers: it
// seeds one topic with -engagements engagements of distinct people on -posts
// posts (with seed.TopicPosts and seed.TopicEngagements), starts
// the real HTTP API in-process on loopback, then prints p50/p95/p99 for the
// first page and for a deep page, by page number and by cursor, each over
// HTTP and as the store call alone (store.TopicEngagers), and checks their
// contents.
//
//	go run ./bench/topicengagers -engine sqlite
//	go run ./bench/topicengagers -engine postgres -engagements 1000000 -deep-page 9000
//
// PostgreSQL runs in a fresh schema of -postgres-url (default
// $TRAWL_TEST_POSTGRES_URL, else the CI database), dropped at the end.
package main

import (
	"cmp"
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
	"slices"
	"strconv"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for the schema set-up

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/topic"
)

type options struct {
	engine      string
	engagements int
	posts       int
	pageSize    int
	deepPage    int
	requests    int
	warmup      int
	batch       int
	postgresURL string
	keep        bool
}

func main() {
	var o options
	flag.StringVar(&o.engine, "engine", "sqlite", "sqlite or postgres")
	flag.IntVar(&o.engagements, "engagements", 1_000_000, "engagements to store, each by a different person (a multiple of -posts)")
	flag.IntVar(&o.posts, "posts", 2000, "posts the engagements are spread over")
	flag.IntVar(&o.pageSize, "page-size", 100, "page size asked for")
	flag.IntVar(&o.deepPage, "deep-page", 9000, "page number (from 1) of the deep page")
	flag.IntVar(&o.requests, "requests", 200, "timed calls per scenario")
	flag.IntVar(&o.warmup, "warmup", 10, "untimed calls before each scenario")
	flag.IntVar(&o.batch, "batch", 20000, "engagements per seeding transaction")
	flag.StringVar(&o.postgresURL, "postgres-url", "", "PostgreSQL server (default $TRAWL_TEST_POSTGRES_URL or "+benchkit.DefaultPostgresURL+")")
	flag.BoolVar(&o.keep, "keep", false, "keep the database (to EXPLAIN queries) and print where it is")
	flag.Parse()
	// Interrupted, it still removes its database on the way out.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "topicengagers:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	if o.posts < 1 || o.engagements < o.posts || o.engagements%o.posts != 0 || o.pageSize < 1 || o.deepPage < 1 ||
		(o.deepPage-1)*o.pageSize >= o.engagements || o.requests < 1 || o.warmup < 0 || o.batch < 1 {
		return errors.New("want posts >= 1, engagements a multiple of posts, page-size >= 1, " +
			"1 <= deep-page with (deep-page-1)*page-size < engagements, requests >= 1, warmup >= 0, batch >= 1")
	}
	dbURL, cleanup, err := benchkit.Database(ctx, o.engine, o.postgresURL, "topicengagers", o.keep)
	if err != nil {
		return err
	}
	defer cleanup()

	st, err := benchkit.OpenStore(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	key, t, err := fixture(ctx, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "engine %s, %d engagements by as many people on %d posts, page size %d, %d timed calls per scenario\n",
		o.engine, o.engagements, o.posts, o.pageSize, o.requests)

	l := newLayout(o.engagements, o.posts)
	start := time.Now()
	if err := seedTopic(ctx, st, t.ID, l, o.batch); err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Fprintf(out, "seeded in %s (%.0f engagements/s)\n", took.Round(time.Millisecond), float64(o.engagements)/took.Seconds())
	if st.Dialect() == store.Postgres {
		// What autovacuum does within a minute of a bulk load: without it
		// the planner has no statistics and no page is all-visible.
		start := time.Now()
		if _, err := st.DB().ExecContext(ctx, `VACUUM ANALYZE`); err != nil {
			return fmt.Errorf("vacuum analyze: %w", err)
		}
		fmt.Fprintf(out, "vacuumed and analyzed in %s\n", time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintln(out)

	api, stopAPI, err := benchkit.Serve(st)
	if err != nil {
		return err
	}
	defer stopAPI()
	scenarios := []scenario{
		{name: "first page", page: 1},
		{name: fmt.Sprintf("deep page %d (skips %d)", o.deepPage, (o.deepPage-1)*o.pageSize), page: o.deepPage},
		{name: fmt.Sprintf("deep page %d by cursor", o.deepPage), page: o.deepPage, cursor: true},
	}
	hc := &http.Client{Timeout: time.Minute}
	var rows []benchkit.Result
	for _, overHTTP := range []bool{true, false} {
		for _, sc := range scenarios {
			sc.http = overHTTP
			call := storeCall(st, t.ID, o.pageSize)
			if overHTTP {
				call = httpCall(hc, api, key, t.ID, o.pageSize)
			}
			r, err := measure(ctx, call, l, sc, o.pageSize, o.warmup, o.requests)
			if err != nil {
				return fmt.Errorf("%s: %w", sc.name, err)
			}
			rows = append(rows, r)
		}
	}
	benchkit.PrintTable(out, rows, 20*time.Millisecond)
	if o.keep {
		fmt.Fprintf(out, "\nkept database: %s (topic %s)\n", dbURL, t.ID)
	}
	return nil
}

// fixture creates a CUSTOM account, an all-permission key and an active
// topic on it.
func fixture(ctx context.Context, st *store.Store) (string, topic.Topic, error) {
	a := auth.Account{Name: "bench", Plan: auth.PlanCustom}
	if err := st.CreateAccount(ctx, &a); err != nil {
		return "", topic.Topic{}, err
	}
	key, err := st.CreateKey(ctx, &auth.Key{AccountID: a.ID, Permissions: []auth.Permission{auth.PermAll}})
	if err != nil {
		return "", topic.Topic{}, err
	}
	t := topic.Topic{AccountID: a.ID, Name: "bench", Definition: topic.Definition{
		Keywords: []string{"revops"}, TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy,
	}}
	if err := st.CreateTopic(ctx, &t, 0); err != nil {
		return "", topic.Topic{}, err
	}
	return key, t, nil
}

// layout places the engagements: posts linked one every `spacing` over 25
// days, each hydrated half a spacing later with perPost engagements by new
// people, 30% of them comments made between the link and the hydration, the
// rest reactions, which carry the hydration's time (so hundreds share it).
// A post's engagements are all newer than the previous post's, so the
// engagers list, newest first, is the posts from the last, each sorted on
// its own.
type layout struct {
	data    seed.TopicData
	base    time.Time
	spacing time.Duration
	posts   int
	perPost int
}

func newLayout(engagements, posts int) layout {
	base := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	return layout{data: seed.NewTopicData(base.Add(-24 * time.Hour)), base: base,
		spacing: 25 * 24 * time.Hour / time.Duration(posts), posts: posts, perPost: engagements / posts}
}

func (l layout) linkedAt(p int) time.Time {
	return l.base.Add(time.Duration(p) * l.spacing).Truncate(time.Millisecond)
}

func (l layout) hydratedAt(p int) time.Time { return l.linkedAt(p).Add(l.spacing / 2) }

// engagement returns engagement n (by person n) of post n / perPost.
func (l layout) engagement(n int) seed.Engagement {
	p := n / l.perPost
	urn := seed.PostURN(p)
	e := seed.Engagement{PostURN: urn, Person: l.data.Person(n), Type: "like", At: l.hydratedAt(p), Interval: topic.Rediscovery}
	if p == 0 {
		e.Interval = topic.Initial
	}
	if n%10 >= 7 {
		e.Type, e.Text = "comment", "Great point about pipeline hygiene — we saw the same after moving our SDRs to intent signals."
		e.CommentURN = "urn:li:comment:(activity:" + urn + "," + strconv.Itoa(7_000_000_000+n) + ")"
		// Spread over the first half of the window, a millisecond apart at least.
		e.At = l.linkedAt(p).Add(time.Second + time.Duration(n%l.perPost)*(l.spacing/2-2*time.Second)/time.Duration(l.perPost))
		e.At = e.At.Truncate(time.Millisecond)
	} else {
		e.ReactionType = []string{"LIKE", "LIKE", "LIKE", "PRAISE", "EMPATHY", "INTEREST", "APPRECIATION"}[n%7]
	}
	return e
}

// seedTopic stores the posts, then the engagements in batches; generation of the
// next batch overlaps the writing of the current one.
func seedTopic(ctx context.Context, st *store.Store, topicID string, l layout, batch int) error {
	posts := make([]seed.Post, l.posts)
	for p := range posts {
		posts[p] = seed.Post{Post: l.data.Post(p), LinkedAt: l.linkedAt(p), Interval: topic.Rediscovery, HydratedAt: l.hydratedAt(p)}
	}
	posts[0].Interval = topic.Initial
	if n, err := seed.TopicPosts(ctx, st, topicID, posts); err != nil {
		return err
	} else if n != int64(l.posts) {
		return fmt.Errorf("seeded %d posts, want %d", n, l.posts)
	}
	total := l.posts * l.perPost
	type chunk struct {
		es []seed.Engagement
		at time.Time // when they were linked: the hydration of the last one's post
	}
	batches := make(chan chunk, 1)
	go func() {
		defer close(batches)
		for start := 0; start < total; start += batch {
			end := min(start+batch, total)
			c := chunk{es: make([]seed.Engagement, 0, end-start), at: l.hydratedAt((end - 1) / l.perPost)}
			for n := start; n < end; n++ {
				c.es = append(c.es, l.engagement(n))
			}
			select {
			case batches <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	var stored int64
	for c := range batches {
		var err error
		if stored, err = seed.TopicEngagements(ctx, st, topicID, c.at, c.es); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if stored != int64(total) {
		return fmt.Errorf("seeded %d engagements, want %d", stored, total)
	}
	return nil
}

// engager returns the k-th engager (from 0) of the list, newest first:
// latest engagement first, ties by person URN, descending.
func (l layout) engager(k int) seed.Engagement {
	p := l.posts - 1 - k/l.perPost
	es := make([]seed.Engagement, l.perPost)
	for i := range es {
		es[i] = l.engagement(p*l.perPost + i)
	}
	slices.SortFunc(es, func(a, b seed.Engagement) int {
		return cmp.Or(b.At.Compare(a.At), cmp.Compare(b.Person.URN, a.Person.URN))
	})
	return es[k%l.perPost]
}

type scenario struct {
	name   string
	page   int
	cursor bool // start after the previous page's last engager instead of at a page number
	http   bool // through GET /v1/topics/{id}/engagements, not the store call
}

// engagerRow is what the check compares of an engager, read from the store
// or from an answer.
type engagerRow struct {
	person, post, kind string
	at                 time.Time
}

// pageCall reads one page: by number, or after cursor when it is not "".
type pageCall func(ctx context.Context, page int, cursor string) ([]engagerRow, int64, error)

func storeCall(st *store.Store, topicID string, pageSize int) pageCall {
	return func(ctx context.Context, page int, cursor string) ([]engagerRow, int64, error) {
		var (
			es    []store.Engagement
			total int64
			err   error
		)
		if cursor != "" {
			es, _, total, err = st.TopicEngagersAfter(ctx, topicID, cursor, pageSize)
		} else {
			es, total, err = st.TopicEngagers(ctx, topicID, page, pageSize)
		}
		rows := make([]engagerRow, len(es))
		for i, e := range es {
			rows[i] = engagerRow{e.Person.URN, e.PostURN, e.Type, e.CreatedAt}
		}
		return rows, total, err
	}
}

func httpCall(hc *http.Client, api, key, topicID string, pageSize int) pageCall {
	return func(ctx context.Context, page int, cursor string) ([]engagerRow, int64, error) {
		u := fmt.Sprintf("%s/v1/topics/%s/engagements?page_size=%d", api, topicID, pageSize)
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		} else {
			u += "&page=" + strconv.Itoa(page)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, 0, err
		}
		req.Header.Set("x-api-key", key)
		resp, err := hc.Do(req)
		if err != nil {
			return nil, 0, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, 0, fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		var answer struct {
			Data []struct {
				ProspectID   string `json:"prospect_id"`
				PronetPostID string `json:"pronet_post_id"`
				Created      string `json:"created"`
				Engagement   struct {
					Type string `json:"type"`
				} `json:"engagement"`
			} `json:"data"`
			Pagination struct {
				TotalCount int64 `json:"total_count"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal(body, &answer); err != nil {
			return nil, 0, err
		}
		rows := make([]engagerRow, len(answer.Data))
		for i, e := range answer.Data {
			at, err := time.Parse(time.RFC3339Nano, e.Created)
			if err != nil {
				return nil, 0, fmt.Errorf("engager %d: %w", i, err)
			}
			rows[i] = engagerRow{e.ProspectID, e.PronetPostID, e.Engagement.Type, at}
		}
		return rows, answer.Pagination.TotalCount, nil
	}
}

// measure times warmup+n sequential calls for the scenario's page and keeps
// the last n. The first and the last answer must be the full page the
// layout puts there, with the right total; the check is not timed.
func measure(ctx context.Context, call pageCall, l layout, sc scenario, pageSize, warmup, n int) (benchkit.Result, error) {
	name := "store " + sc.name
	if sc.http {
		name = "HTTP " + sc.name
	}
	res := benchkit.Result{Name: name, Latencies: make([]time.Duration, 0, n)}
	total := l.posts * l.perPost
	cursor := ""
	if sc.cursor && sc.page > 1 {
		prev := l.engager((sc.page-1)*pageSize - 1)
		cursor = store.EngagersCursor(prev.At, prev.Person.URN)
	}
	for i := range warmup + n {
		start := time.Now()
		page, count, err := call(ctx, sc.page, cursor)
		took := time.Since(start)
		if err != nil {
			return benchkit.Result{}, err
		}
		if i == 0 || i == warmup+n-1 {
			if err := checkPage(l, page, count, (sc.page-1)*pageSize, min(pageSize, total-(sc.page-1)*pageSize)); err != nil {
				return benchkit.Result{}, err
			}
		}
		if i >= warmup {
			res.Latencies = append(res.Latencies, took)
		}
	}
	return res, nil
}

func checkPage(l layout, page []engagerRow, total int64, skip, want int) error {
	if total != int64(l.posts*l.perPost) {
		return fmt.Errorf("total %d, want %d", total, l.posts*l.perPost)
	}
	if len(page) != want {
		return fmt.Errorf("page has %d engagers, want %d", len(page), want)
	}
	for i, e := range page {
		w := l.engager(skip + i)
		if e.person != w.Person.URN || e.post != w.PostURN || e.kind != w.Type || !e.at.Equal(w.At) {
			return fmt.Errorf("engager %d is %s (%s on %s at %s), want %s (%s on %s at %s)", skip+i,
				e.person, e.kind, e.post, e.at, w.Person.URN, w.Type, w.PostURN, w.At)
		}
	}
	return nil
}

// Command providers measures the pronet adapters against the sandbox of each vendor's
// protocol (issue 37):
//
//   - overhead: for every provider (the contract client, HarvestAPI, Apify) and every operation,
//     -calls calls one at a time, each on a new target so that nothing is served from a cache,
//     against the sandbox in a child process (so that its garbage collection does not land on
//     the adapter). Each call's requests are recorded and sent again by a bare HTTP client
//     that reads the bodies and decodes nothing: the upstream's own latency, loopback included.
//     A call's overhead is its time minus that replay's (building requests, decoding, checking,
//     translating). Prints p50/p95/p99 per operation.
//   - topic: for every provider, -runs times in turn, a fresh service (`trawl serve`
//     in-process, SQLite) creates a topic of -topic-posts posts and waits until every post has
//     been hydrated once (its first collection); prints the median time and engagements.
//
// The vendors' default rate and concurrency limits are lifted (-rate, -concurrency) so that the
// adapters are compared, not the limits.
//
//	go run ./bench/providers
//	go run ./bench/providers -calls 500 -runs 5
package main

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	_ "modernc.org/sqlite" // to read the hydration state of the bench's database

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/internal/app"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/apify"
	"github.com/trawlhq/trawl/internal/source/harvestapi"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

type options struct {
	calls, runs, topicPosts, concurrency int
	rate                                 float64
	providers                            []string
	keywords, sortBy, timeFrame          string
	skipOverhead, skipTopic              bool
}

func main() {
	var o options
	var providers string
	flag.IntVar(&o.calls, "calls", 200, "calls per provider and operation in the overhead scenario")
	flag.IntVar(&o.runs, "runs", 3, "first collections per provider in the topic scenario")
	flag.IntVar(&o.topicPosts, "topic-posts", 50, "posts of the topic (its max_results)")
	flag.Float64Var(&o.rate, "rate", 1e6, "TRAWL_PRONET_RATE_LIMIT of the topic scenario")
	flag.IntVar(&o.concurrency, "concurrency", 64, "TRAWL_PRONET_CONCURRENCY of the topic scenario")
	flag.StringVar(&providers, "providers", "sandbox,harvestapi,apify", "providers to measure")
	flag.BoolVar(&o.skipOverhead, "skip-overhead", false, "skip the overhead scenario")
	flag.BoolVar(&o.skipTopic, "skip-topic", false, "skip the topic scenario")
	flag.StringVar(&o.keywords, "keywords", "sales,revops,pipeline,crm", "keywords of the topic, comma-separated")
	flag.StringVar(&o.sortBy, "sort-by", "relevance", "sort_by of the topic: relevance or date_posted")
	flag.StringVar(&o.timeFrame, "time-frame", "past-week", "time_frame of the topic")
	serve := flag.String("serve-sandbox", "", "(internal) serve the sandbox on this address")
	flag.Parse()
	if *serve != "" {
		if err := benchkit.ServeSandbox(*serve); err != nil {
			fmt.Fprintln(os.Stderr, "providers:", err)
			os.Exit(1)
		}
		return
	}
	o.providers = strings.Split(providers, ",")
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "providers:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if !o.skipOverhead {
		if err := overhead(ctx, o); err != nil {
			return err
		}
	}
	if !o.skipTopic {
		return topicCollections(ctx, o)
	}
	return nil
}

func overhead(ctx context.Context, o options) error {
	base, stop, err := benchkit.StartSandbox(ctx, "/pronet/profile?username=x")
	if err != nil {
		return err
	}
	defer stop()
	sb := sandbox.New(sandbox.Config{Seed: 1}) // the same world, to pick targets from

	rec := &benchkit.Recorder{}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: rec}
	build := map[string]func() pronet.Provider{
		pronet.ContractName: func() pronet.Provider {
			return pronet.New(pronet.Config{BaseURL: base + "/pronet", APIKey: "bench", HTTP: hc})
		},
		"harvestapi": func() pronet.Provider {
			return harvestapi.New(harvestapi.Config{BaseURL: base + "/harvestapi", APIKey: "bench", HTTP: hc, Prices: harvestapi.DefaultPrices()})
		},
		"apify": func() pronet.Provider {
			return apify.New(apify.Config{BaseURL: base + "/apify", Token: "bench", HTTP: hc, Prices: apify.DefaultPrices()})
		},
	}
	people := sb.World().Roster()
	// Posts to read comments and reactions of: the newest posts of the first members.
	contract := build[pronet.ContractName]()
	var posts []string
	for _, p := range people {
		got, _, err := contract.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: p.PronetUsername})
		if err != nil {
			return fmt.Errorf("choose posts: %w", err)
		}
		for _, post := range got {
			if post.CommentsCount > 0 && post.TotalReactionCount > 0 {
				posts = append(posts, post.URN)
				break
			}
		}
		if len(posts) == o.calls {
			break
		}
	}
	var keywords []string
	for i := range sb.World().Topics() {
		keywords = append(keywords, sb.World().TopicKeywords(i)...)
	}
	ops := []struct {
		name string
		call func(p pronet.Provider, i int) error
	}{
		{"profile posts", func(p pronet.Provider, i int) error {
			_, _, err := p.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: people[i%len(people)].PronetUsername})
			return err
		}},
		{"post", func(p pronet.Provider, i int) error { _, err := p.Post(ctx, posts[i%len(posts)]); return err }},
		{"comments", func(p pronet.Provider, i int) error { _, err := p.Comments(ctx, posts[i%len(posts)], 1, 0); return err }},
		{"reactions", func(p pronet.Provider, i int) error {
			_, err := p.Reactions(ctx, posts[i%len(posts)], 1, 0)
			return err
		}},
		{"search", func(p pronet.Provider, i int) error {
			// A new query each call: a keyword, a window and a sort.
			kw := keywords[i%len(keywords)]
			date := []string{pronet.DatePastDay, pronet.DatePastWeek, pronet.DatePastMonth}[i/len(keywords)%3]
			sort := []string{pronet.SortRelevance, pronet.SortDate}[i/len(keywords)/3%2]
			_, err := p.SearchPosts(ctx, pronet.SearchParams{Keywords: `"` + kw + `"`, DatePosted: date, SortBy: sort, Page: 1})
			return err
		}},
		{"profile", func(p pronet.Provider, i int) error {
			_, err := p.Profile(ctx, people[i%len(people)].PronetUsername)
			return err
		}},
	}
	fmt.Printf("Adapter overhead per call beyond the upstream's own latency (%d calls each, one at a time, loopback):\n\n", o.calls)
	var rows []benchkit.Result
	for _, name := range o.providers {
		newProvider, ok := build[name]
		if !ok {
			return fmt.Errorf("unknown provider %q", name)
		}
		for _, op := range ops {
			p := newProvider() // a fresh client: no cache from another operation
			// One warm-up call opens the connection.
			if err := op.call(p, o.calls); err != nil {
				return fmt.Errorf("%s %s: %w", name, op.name, err)
			}
			r := benchkit.Result{Name: name + " " + op.name}
			rec.Take()
			for i := range o.calls {
				start := time.Now()
				if err := op.call(p, i); err != nil && !errors.Is(err, source.ErrNotFound) {
					return fmt.Errorf("%s %s #%d: %w", name, op.name, i, err)
				}
				took := time.Since(start)
				upstream, err := benchkit.Replay(ctx, rec.Take())
				if err != nil {
					return fmt.Errorf("%s %s #%d: replay: %w", name, op.name, i, err)
				}
				r.Latencies = append(r.Latencies, max(took-upstream, 0))
			}
			rows = append(rows, r)
		}
	}
	benchkit.PrintTable(os.Stdout, rows, time.Millisecond)
	fmt.Println()
	return nil
}

// topicCollections times a topic's first collection on each provider, runs interleaved so that
// the machine's load falls on all alike.
func topicCollections(ctx context.Context, o options) error {
	times := map[string][]time.Duration{}
	engagements := map[string][]int64{}
	for run := range o.runs {
		for _, name := range o.providers {
			d, n, err := firstCollection(ctx, o, name)
			if err != nil {
				return fmt.Errorf("%s run %d: %w", name, run+1, err)
			}
			times[name] = append(times[name], d)
			engagements[name] = append(engagements[name], n)
		}
	}
	fmt.Printf("A topic's first collection (%d posts, every post hydrated once), median of %d runs:\n\n", o.topicPosts, o.runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "provider\tmedian\truns\tengagements\tvs %s\t\n", o.providers[0])
	base := median(times[o.providers[0]])
	for _, name := range o.providers {
		m := median(times[name])
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%+.1f%%\t\n", name, benchkit.Ms(m), fmtRuns(times[name]), engagements[name],
			100*(float64(m)-float64(base))/float64(base))
	}
	return tw.Flush()
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func fmtRuns(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%.0f", float64(d.Milliseconds())))
	}
	return strings.Join(parts, "/") + " ms"
}

// firstCollection starts a fresh service on provider, creates a topic and waits until each of
// its posts has been hydrated once. It returns that time and the topic's engagements.
func firstCollection(ctx context.Context, o options, provider string) (time.Duration, int64, error) {
	dir, err := os.MkdirTemp("", "trawl-bench-providers")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg, err := config.Default()
	if err != nil {
		return 0, 0, err
	}
	cfg.Addr, cfg.DataDir, cfg.LogFormat, cfg.LogLevel = addr, dir, "json", "error"
	cfg.DatabaseURL = "sqlite://" + filepath.Join(dir, "trawl.db")
	cfg.PronetProvider, cfg.PronetRateLimit, cfg.PronetConcurrency = provider, o.rate, o.concurrency
	cfg.RateLimitStarter, cfg.RateLimitEnterprise, cfg.RateLimitCustom = 1<<30, 1<<30, 1<<30
	cfg.CreditsStarter, cfg.CreditsEnterprise, cfg.CreditsCustom = 1<<40, 1<<40, 1<<40
	cfg.ShutdownTimeout = 10 * time.Second
	ctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() {
		served <- app.Serve(ctx, cfg, app.Options{Now: time.Now, Log: slog.New(slog.NewJSONHandler(io.Discard, nil)), Stdout: io.Discard})
	}()
	defer func() {
		cancel()
		<-served
	}()
	base := "http://" + addr
	var key []byte
	for i := 0; ; i++ {
		if key, err = os.ReadFile(filepath.Join(dir, "bootstrap-key")); err == nil {
			if _, err = http.Get(base + "/healthz"); err == nil {
				break
			}
		}
		if i > 300 {
			return 0, 0, fmt.Errorf("server did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "trawl.db")+"?mode=ro")
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()

	start := time.Now()
	kw, _ := json.Marshal(strings.Split(o.keywords, ","))
	body := fmt.Sprintf(`{"name":"bench","keywords":%s,"time_frame":%q,"max_results":%d,"sort_by":%q}`, kw, o.timeFrame, o.topicPosts, o.sortBy)
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := call(base, strings.TrimSpace(string(key)), http.MethodPost, "/v1/topics", body, &created); err != nil {
		return 0, 0, err
	}
	for {
		var posts, hydrated int
		err := db.QueryRowContext(ctx, `SELECT count(*), count(p.last_hydrated_at) FROM topic_posts tp
			JOIN pronet_posts p ON p.urn = tp.post_urn WHERE tp.topic_id = ?`, created.Data.ID).Scan(&posts, &hydrated)
		if err != nil {
			return 0, 0, fmt.Errorf("hydration state: %w", err)
		}
		if posts > 0 && hydrated == posts {
			break
		}
		if time.Since(start) > 5*time.Minute {
			return 0, 0, fmt.Errorf("first collection not done after 5 minutes: %d of %d posts hydrated", hydrated, posts)
		}
		time.Sleep(5 * time.Millisecond)
	}
	took := time.Since(start)
	var topic struct {
		Data struct {
			Posts       int64 `json:"posts_count"`
			Engagements int64 `json:"engagements_count"`
		} `json:"data"`
	}
	if err := call(base, strings.TrimSpace(string(key)), http.MethodGet, "/v1/topics/"+created.Data.ID, "", &topic); err != nil {
		return 0, 0, err
	}
	if topic.Data.Posts != int64(o.topicPosts) {
		return 0, 0, fmt.Errorf("the topic collected %d posts, want %d", topic.Data.Posts, o.topicPosts)
	}
	return took, topic.Data.Engagements, nil
}

func call(base, key, method, path, body string, out any) error {
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", key)
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return json.Unmarshal(b, cmp.Or(out, any(&struct{}{})))
}

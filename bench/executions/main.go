// Command executions measures GET /v1/workflows/{id}/executions with many
// stored executions: it seeds one workflow with -rows executions over 30
// days (97% completed, 2% failed, 1% running), starts the real HTTP API
// in-process on loopback, and prints p50/p95/p99 per page and filter, each
// answer's total checked against what was seeded.
//
//	go run ./bench/executions -engine sqlite
//	go run ./bench/executions -engine postgres -rows 1000000
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/store"
)

type options struct {
	engine      string
	rows        int
	requests    int
	warmup      int
	batch       int
	postgresURL string
	keep        bool
}

func main() {
	var o options
	flag.StringVar(&o.engine, "engine", "sqlite", "sqlite or postgres")
	flag.IntVar(&o.rows, "rows", 1_000_000, "executions to store")
	flag.IntVar(&o.requests, "requests", 500, "timed requests per scenario")
	flag.IntVar(&o.warmup, "warmup", 20, "untimed requests before each scenario")
	flag.IntVar(&o.batch, "batch", 100, "executions per INSERT (the SQLite driver binds numbered parameters in time quadratic in their number)")
	flag.StringVar(&o.postgresURL, "postgres-url", "", "PostgreSQL server (default $TRAWL_TEST_POSTGRES_URL or "+benchkit.DefaultPostgresURL+")")
	flag.BoolVar(&o.keep, "keep", false, "keep the database (to EXPLAIN queries) and print where it is")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "executions:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, out io.Writer) error {
	if o.rows < 100 || o.requests < 1 || o.batch < 1 || o.batch > 1500 {
		return errors.New("want rows >= 100, requests >= 1, 1 <= batch <= 1500")
	}
	dbURL, cleanup, err := benchkit.Database(ctx, o.engine, o.postgresURL, "executions", o.keep)
	if err != nil {
		return err
	}
	defer cleanup()
	st, err := benchkit.OpenStore(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	api, stop, err := benchkit.Serve(st)
	if err != nil {
		return err
	}
	defer stop()
	c := &client{http: &http.Client{Timeout: 30 * time.Second}, base: api}
	accountID, err := c.fixture(ctx, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "engine %s, %d executions of one workflow, %d timed requests per scenario\n", o.engine, o.rows, o.requests)
	start := time.Now()
	seeded, err := seed(ctx, st, c.workflowID, accountID, o.rows, o.batch)
	if err != nil {
		return err
	}
	// Statistics as a live database has them (autovacuum on PostgreSQL).
	if _, err := st.DB().ExecContext(ctx, `ANALYZE workflow_executions`); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	took := time.Since(start)
	fmt.Fprintf(out, "seeded in %s (%.0f executions/s)\n\n", took.Round(time.Millisecond), float64(o.rows)/took.Seconds())

	deep := min(2000, o.rows/50) // OFFSET 99,950 at a million executions
	scenarios := []struct {
		name, query string
		total       int64
	}{
		{"first page (10)", "", int64(o.rows)},
		{"first page (100)", "?page_size=100", int64(o.rows)},
		{"page 20 (of 50)", "?page=20&page_size=50", int64(o.rows)},
		{"status=failed, first page", "?status=failed", seeded["failed"]},
		{"status=running, page 2", "?status=running&page=2", seeded["running"]},
		{"status=completed, event_name, first page", "?status=completed&event_name=workflows/webhook", seeded["completed"]},
		{fmt.Sprintf("page %d (of 50)", deep), fmt.Sprintf("?page=%d&page_size=50", deep), int64(o.rows)},
	}
	var rows []benchkit.Result
	for _, sc := range scenarios {
		r := benchkit.Result{Name: sc.name}
		for i := range o.warmup + o.requests {
			begin := time.Now()
			total, err := c.list(ctx, sc.query)
			took := time.Since(begin)
			if err != nil {
				return fmt.Errorf("%s: %w", sc.name, err)
			}
			if total != sc.total {
				return fmt.Errorf("%s: total %d, want %d", sc.name, total, sc.total)
			}
			if i >= o.warmup {
				r.Latencies = append(r.Latencies, took)
			}
		}
		rows = append(rows, r)
	}
	benchkit.PrintTable(out, rows, 20*time.Millisecond)
	if o.keep {
		fmt.Fprintf(out, "\nkept database: %s (workflow %s)\n", dbURL, c.workflowID)
	}
	return nil
}

type client struct {
	http       *http.Client
	base, key  string
	workflowID string
}

// fixture creates a CUSTOM account, a key and, through the API, a workflow.
func (c *client) fixture(ctx context.Context, st *store.Store) (string, error) {
	a := auth.Account{Name: "bench", Plan: auth.PlanCustom}
	if err := st.CreateAccount(ctx, &a); err != nil {
		return "", err
	}
	key, err := st.CreateKey(ctx, &auth.Key{AccountID: a.ID, Permissions: []auth.Permission{auth.PermAll}})
	if err != nil {
		return "", err
	}
	c.key = key
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	body := `{"name": "bench", "workflow": {"actions": [{"id": "a", "kind": "builtin:set", "inputs": {"values": {"x": 1}}}],
		"edges": [{"from": "$source", "to": "a"}]}}`
	if err := c.do(ctx, http.MethodPost, "/v1/workflows", body, http.StatusCreated, &created); err != nil {
		return "", fmt.Errorf("create workflow: %w", err)
	}
	c.workflowID = created.Data.ID
	return a.ID, nil
}

// list fetches a page of executions and returns the total it reports.
func (c *client) list(ctx context.Context, query string) (int64, error) {
	var page struct {
		Data       []json.RawMessage `json:"data"`
		Pagination struct {
			TotalCount int64 `json:"total_count"`
		} `json:"pagination"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/workflows/"+c.workflowID+"/executions"+query, "", http.StatusOK, &page); err != nil {
		return 0, err
	}
	if len(page.Data) == 0 {
		return 0, errors.New("empty page")
	}
	return page.Pagination.TotalCount, nil
}

func (c *client) do(ctx context.Context, method, path, body string, want int, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

// seed stores n executions of the workflow, oldest first, spread over the
// last 30 days, as the engine stores them (without their steps, which the
// list does not read), and returns how many it stored per status.
func seed(ctx context.Context, st *store.Store, workflowID, accountID string, n, batch int) (map[string]int64, error) {
	const cols = 14
	definition := `{"trigger":{"kind":"workflows/webhook"},"actions":[{"id":"a","kind":"builtin:set","inputs":{"values":{"x":1}}}],"edges":[{"from":"$source","to":"a"}]}`
	end := time.Now().Add(-time.Minute)
	step := (30 * 24 * time.Hour) / time.Duration(n)
	seeded := map[string]int64{}
	for startRow := 0; startRow < n; startRow += batch {
		rows := min(batch, n-startRow)
		var sb strings.Builder
		sb.WriteString(`INSERT INTO workflow_executions (id, workflow_id, account_id, version, definition, event_name, event_key,
			trigger, status, error, claim, created_at, started_at, ended_at) VALUES `)
		args := make([]any, 0, rows*cols)
		for r := range rows {
			i := startRow + r
			created := end.Add(-time.Duration(n-i) * step)
			status, errMsg, ended := "completed", any(nil), any(created.Add(3*time.Millisecond).UnixMilli())
			switch {
			case i%100 == 7:
				status, ended = "running", nil
			case i%50 == 3:
				status, errMsg = "failed", "step a: HTTP_ERROR: the server answered 503"
			}
			seeded[status]++
			if r > 0 {
				sb.WriteString(", ")
			}
			sb.WriteByte('(')
			for col := range cols {
				if col > 0 {
					sb.WriteString(", ")
				}
				fmt.Fprintf(&sb, "$%d", r*cols+col+1)
			}
			sb.WriteByte(')')
			args = append(args, ident.New(), workflowID, accountID, 1, definition, "workflows/webhook", fmt.Sprintf("webhook:msg_%d", i),
				fmt.Sprintf(`{"amount": %d, "email": "lead%d@example.com"}`, i%500, i), status, errMsg, ident.New(),
				created.UnixMilli(), created.UnixMilli(), ended)
		}
		if _, err := st.DB().ExecContext(ctx, sb.String(), args...); err != nil {
			return nil, fmt.Errorf("seed executions: %w", err)
		}
	}
	return seeded, nil
}

package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// TestKill9LosesAndDuplicatesNothing is issue 4's "done when": a trawl
// process killed with SIGKILL while search runs are in flight ends with
// every search run, each result stored once, and exactly one new-post event
// per stored result. Issue 33: the work the killed process held resumes at
// once, not when its 10-minute lease ends: within 15 s of a restart on
// SQLite, and within 45 s of the kill on PostgreSQL, where a second process
// runs all along (crashCluster). "Run now" on a search whose run the killed
// process held runs it.
func TestKill9LosesAndDuplicatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it; skipped with -short")
	}
	bin := crashBuildTrawl(t)
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		cl := newCrashCluster(t, bin, engine, nil)
		db := crashOpenDB(t, cl.env["TRAWL_DATABASE_URL"])

		// Round 1: kill right after the creations, while the first manual
		// runs answer and the scheduler's jobs start.
		p := cl.victim()
		ids := crashCreateSearches(t, p.Client, "CRM", "sales", "AI", "hiring", "cold email")
		answered := crashBurstRuns(p.Client, ids, 1, len(ids), 1, p.kill)
		t.Logf("%s: round 1 killed after %d answered POST /run; %d of %d searches had run",
			engine, len(answered), crashRanCount(t, db, ids), len(ids))
		crashCheckAnswers(t, answered)

		p, deadline := cl.recover()
		if id := crashFirstNotRun(t, db, ids); id != "" {
			r, err := p.Client.Do(ctx, http.MethodPost, "/v1/searches/"+id+"/run", nil)
			if err != nil || r.Status != http.StatusOK {
				t.Errorf("POST /v1/searches/%s/run on a search whose run the killed process held: %v %v", id, err, r)
			}
		}
		crashWaitAllRan(t, p, ids, deadline)
		cl.logRecovered("every search had run")
		crashCheckNoLossNoDuplicates(t, ctx, db, p.Client, ids)

		// Round 2: new searches (due now, so the scheduler races the manual
		// runs) and a burst of POST /run on all of them, killed mid-burst.
		p = cl.victim()
		ids = append(ids, crashCreateSearches(t, p.Client, "B2B", "SaaS", "marketing")...)
		answered = crashBurstRuns(p.Client, ids, 4, 8, 5, p.kill)
		t.Logf("%s: round 2 killed after %d answered POST /run; %d of %d searches had run",
			engine, len(answered), crashRanCount(t, db, ids), len(ids))
		crashCheckAnswers(t, answered)

		p, deadline = cl.recover()
		crashWaitAllRan(t, p, ids, deadline)
		cl.logRecovered("every search had run")
		crashCheckNoLossNoDuplicates(t, ctx, db, p.Client, ids)
	})
}

// crashCluster is the processes of a crash test. The one the test kills
// runs with a 10-minute lease, so only the recovery of issue 33 can
// resume its work in time: on SQLite a restart hands everything back at
// start; on PostgreSQL a survivor that runs all along takes the work over
// once the killed process's heartbeat is 3 s old.
type crashCluster struct {
	t        *testing.T
	bin      string
	engine   store.Dialect
	env      map[string]string
	current  *crashProcess
	survivor *crashProcess // PostgreSQL
	// killedAt is when the current victim was killed (zero while it
	// runs); lastKill and restartedAt (SQLite) time the last recovery.
	killedAt, lastKill, restartedAt time.Time
}

// Recovery bounds: issue 33's.
const (
	crashSQLiteRestartBound = 15 * time.Second
	crashPostgresKillBound  = 45 * time.Second
)

func newCrashCluster(t *testing.T, bin string, engine store.Dialect, env map[string]string) *crashCluster {
	t.Helper()
	settings := map[string]string{
		"TRAWL_TICK_INTERVAL":      "1s",
		"TRAWL_SEARCH_RUN_LEASE":   "10m",
		"TRAWL_HEARTBEAT_INTERVAL": "500ms",
		"TRAWL_HEARTBEAT_TIMEOUT":  "3s",
		// The test's polling must not be throttled.
		"TRAWL_RATE_LIMIT_CUSTOM": "1000000",
	}
	for k, v := range env {
		settings[k] = v
	}
	cl := &crashCluster{t: t, bin: bin, engine: engine, env: serverEnv(t, engine, settings)}
	if engine == store.Postgres {
		cl.survivor = crashStart(t, bin, cl.env)
	}
	return cl
}

// victim is the process the test kills next: the one a SQLite recovery
// restarted, else a new one. Its kill is timed.
func (cl *crashCluster) victim() *crashProcess {
	cl.t.Helper()
	if cl.current != nil && cl.killedAt.IsZero() {
		return cl.current
	}
	return cl.track(crashStart(cl.t, cl.bin, cl.env))
}

func (cl *crashCluster) track(p *crashProcess) *crashProcess {
	cl.current, cl.killedAt = p, time.Time{}
	kill := p.kill
	p.kill = func() {
		kill()
		if cl.killedAt.IsZero() {
			cl.killedAt = time.Now()
		}
	}
	return p
}

// recover returns the process that finishes the killed one's work, and
// the deadline of issue 33's bound for it.
func (cl *crashCluster) recover() (*crashProcess, time.Time) {
	cl.t.Helper()
	cl.current.kill()
	cl.lastKill = cl.killedAt
	if cl.engine == store.Postgres {
		return cl.survivor, cl.lastKill.Add(crashPostgresKillBound)
	}
	p := cl.track(crashStart(cl.t, cl.bin, cl.env))
	cl.restartedAt = time.Now()
	return p, cl.restartedAt.Add(crashSQLiteRestartBound)
}

// logRecovered logs how long the last recovery took.
func (cl *crashCluster) logRecovered(what string) {
	cl.t.Helper()
	msg := fmt.Sprintf("%s: %s %s after the kill", cl.engine, what, time.Since(cl.lastKill).Round(100*time.Millisecond))
	if cl.engine == store.SQLite {
		msg += fmt.Sprintf(", %s after the restart", time.Since(cl.restartedAt).Round(100*time.Millisecond))
	}
	cl.t.Log(msg)
}

// crashFirstNotRun is the first search that has no committed run.
func crashFirstNotRun(t *testing.T, db *sql.DB, ids []string) string {
	t.Helper()
	for _, id := range ids {
		if crashRanCount(t, db, []string{id}) == 0 {
			return id
		}
	}
	return ""
}

// crashBuildTrawl builds the trawl binary once for the test.
func crashBuildTrawl(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "trawl")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// crashProcess is a trawl serve subprocess.
type crashProcess struct {
	URL    string
	Client *client.Client
	cmd    *exec.Cmd
	stdout *output
	stderr *output
	exited chan struct{}
	err    error // Wait's result, set before exited closes
	once   sync.Once
	// kill sends SIGKILL and waits until the process is gone.
	kill func()
}

// crashStart runs `trawl serve` with env (on top of the test's own
// environment, minus its TRAWL_* settings) and waits until it listens.
func crashStart(t *testing.T, bin string, env map[string]string) *crashProcess {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TRAWL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &crashProcess{cmd: cmd, stdout: newOutput(), stderr: newOutput(), exited: make(chan struct{})}
	p.kill = p.sigkill
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.sigkill)
	done := make(chan error, 1)
	go func() {
		<-p.exited
		done <- fmt.Errorf("%v; stderr:\n%s", p.err, p.stderr)
	}()
	p.URL = p.stdout.waitFor(t, listeningRE, done)[1]
	key, err := os.ReadFile(filepath.Join(env["TRAWL_DATA_DIR"], "bootstrap-key"))
	if err != nil {
		t.Fatalf("read bootstrap key: %v", err)
	}
	p.Client = client.New(p.URL, strings.TrimSpace(string(key)))
	p.Client.HTTP = &http.Client{Timeout: 30 * time.Second}
	return p
}

func (p *crashProcess) sigkill() {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.exited
	})
}

// crashCreateSearches creates one keyword search per topic, max_results 100.
func crashCreateSearches(t *testing.T, c *client.Client, topics ...string) []string {
	t.Helper()
	ids := make([]string, 0, len(topics))
	for _, topic := range topics {
		body := map[string]any{"name": "crash " + topic, "keywords": []string{topic}, "max_results": 100}
		r, err := c.Do(context.Background(), http.MethodPost, "/v1/searches/microblog/posts", body)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != http.StatusCreated {
			t.Fatalf("create search %q: %d %s", topic, r.Status, r.Body)
		}
		var s struct{ ID string }
		if err := r.Data(&s); err != nil || s.ID == "" {
			t.Fatalf("create search %q: %v %s", topic, err, r.Body)
		}
		ids = append(ids, s.ID)
	}
	return ids
}

// crashRunAnswer is a POST /run that got an answer before the kill.
type crashRunAnswer struct {
	SearchID string
	Status   int
	Body     string
}

// crashBurstRuns sends rounds×len(ids) POST /run from workers goroutines and
// calls kill as soon as killAfter of them have been answered; it returns
// once every request has ended, with the answers received before the kill.
func crashBurstRuns(c *client.Client, ids []string, rounds, workers, killAfter int, kill func()) []crashRunAnswer {
	reqs := make(chan string)
	var (
		mu       sync.Mutex
		answered []crashRunAnswer
		killed   bool
		wg       sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range reqs {
				r, err := c.Do(context.Background(), http.MethodPost, "/v1/searches/"+id+"/run", nil)
				mu.Lock()
				if err == nil && !killed {
					answered = append(answered, crashRunAnswer{SearchID: id, Status: r.Status, Body: string(r.Body)})
					if len(answered) >= killAfter {
						killed = true
						kill()
					}
				}
				mu.Unlock()
			}
		}()
	}
	for range rounds {
		for _, id := range ids {
			reqs <- id
		}
	}
	close(reqs)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if !killed {
		kill() // every run finished before killAfter answers: still kill
	}
	return answered
}

// crashCheckAnswers: manual runs racing each other and the scheduler all succeed.
func crashCheckAnswers(t *testing.T, answered []crashRunAnswer) {
	t.Helper()
	for _, a := range answered {
		if a.Status != http.StatusOK {
			t.Errorf("POST /v1/searches/%s/run during the burst: %d %s", a.SearchID, a.Status, a.Body)
		}
	}
}

// crashSearch is the part of a saved search the test reads.
type crashSearch struct {
	ID           string  `json:"id"`
	TotalResults int64   `json:"total_results"`
	LastRunAt    *string `json:"last_run_at"`
	LastError    *string `json:"last_error"`
}

func crashGetSearch(c *client.Client, id string) (crashSearch, error) {
	var s crashSearch
	r, err := c.Do(context.Background(), http.MethodGet, "/v1/searches/"+id, nil)
	if err != nil {
		return s, err
	}
	if apiErr := r.Err(); apiErr != nil {
		return s, apiErr
	}
	return s, r.Data(&s)
}

// crashWaitAllRan polls until every search has run and found results, and
// fails at deadline: runs lost with the killed process resume at once.
func crashWaitAllRan(t *testing.T, p *crashProcess, ids []string, deadline time.Time) {
	t.Helper()
	c := p.Client
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		var pending []string
		for _, id := range ids {
			s, err := crashGetSearch(c, id)
			if err != nil {
				t.Fatalf("get search %s: %v", id, err)
			}
			if s.LastRunAt == nil || s.TotalResults == 0 {
				msg := fmt.Sprintf(" (total_results %d, last_run_at %v", s.TotalResults, crashDeref(s.LastRunAt))
				if s.LastError != nil {
					msg += ", last error: " + *s.LastError
				}
				pending = append(pending, id+msg+")")
			}
		}
		if len(pending) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("by the recovery deadline these searches still had not run with results: %v\nserver log:\n%s", pending, p.stderr)
		}
		<-tick.C
	}
}

func crashDeref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// crashOpenDB opens the server's database for the test's own queries.
func crashOpenDB(t *testing.T, databaseURL string) *sql.DB {
	t.Helper()
	var (
		db  *sql.DB
		err error
	)
	if path, ok := strings.CutPrefix(databaseURL, "sqlite://"); ok {
		db, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	} else {
		db, err = sql.Open("pgx", databaseURL)
	}
	if err != nil {
		t.Fatalf("open %s: %v", databaseURL, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// crashRanCount counts the searches that have a committed run.
func crashRanCount(t *testing.T, db *sql.DB, ids []string) int {
	t.Helper()
	n := 0
	for _, id := range ids {
		var ran bool
		if err := db.QueryRow(`SELECT last_run_at IS NOT NULL FROM searches WHERE id = $1`, id).Scan(&ran); err != nil {
			t.Fatalf("read search %s: %v", id, err)
		}
		if ran {
			n++
		}
	}
	return n
}

// crashCheckNoLossNoDuplicates asserts, in one database snapshot, that every
// search's counter equals its stored results and its new-post events, that
// every result has its event, and that no event is doubled; then, through
// the API, that paging a search's results yields total_results distinct ids.
func crashCheckNoLossNoDuplicates(t *testing.T, ctx context.Context, db *sql.DB, c *client.Client, ids []string) {
	t.Helper()
	opts := &sql.TxOptions{ReadOnly: true}
	if _, pg := db.Driver().(*stdlib.Driver); pg {
		// SQLite's read transactions are snapshots already.
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	defer tx.Rollback()
	count := func(q string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := tx.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	for _, id := range ids {
		total := count(`SELECT total_results FROM searches WHERE id = $1`, id)
		results := count(`SELECT COUNT(*) FROM search_results WHERE search_id = $1`, id)
		events := count(`SELECT COUNT(*) FROM events WHERE search_id = $1 AND kind = 'new-post'`, id)
		orphans := count(`SELECT COUNT(*) FROM search_results r WHERE r.search_id = $1 AND NOT EXISTS
		                    (SELECT 1 FROM events e WHERE e.search_id = r.search_id AND e.subject_id = r.post_id AND e.kind = 'new-post')`, id)
		if total == 0 || total != results || total != events || orphans != 0 {
			t.Errorf("search %s: total_results %d, stored results %d, new-post events %d, results without an event %d; want all equal and > 0, none without",
				id, total, results, events, orphans)
		}
	}
	dups := count(`SELECT COUNT(*) FROM (SELECT search_id, subject_id FROM events WHERE kind = 'new-post'
	                GROUP BY search_id, subject_id HAVING COUNT(*) > 1) d`)
	if dups != 0 {
		t.Errorf("%d (search_id, subject_id) pairs have more than one new-post event", dups)
	}
	_ = tx.Rollback()

	for _, id := range ids {
		crashCheckResultsPaging(t, c, id)
	}
}

// crashCheckResultsPaging pages all results of a search and compares them with
// its total_results, read before and after so a late run cannot skew it.
func crashCheckResultsPaging(t *testing.T, c *client.Client, id string) {
	t.Helper()
	for range 3 {
		before, err := crashGetSearch(c, id)
		if err != nil {
			t.Fatalf("get search %s: %v", id, err)
		}
		seen := map[string]int{}
		items, cursor := 0, ""
		for {
			path := "/v1/searches/" + id + "/results?limit=500"
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			r, err := c.Do(context.Background(), http.MethodGet, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
			}
			var page []struct{ ID string }
			if err := r.Data(&page); err != nil {
				t.Fatal(err)
			}
			for _, it := range page {
				seen[it.ID]++
			}
			items += len(page)
			var env struct {
				Pagination struct {
					NextCursor *string `json:"next_cursor"`
				} `json:"pagination"`
			}
			if err := json.Unmarshal(r.Body, &env); err != nil {
				t.Fatal(err)
			}
			if env.Pagination.NextCursor == nil {
				break
			}
			cursor = *env.Pagination.NextCursor
		}
		after, err := crashGetSearch(c, id)
		if err != nil {
			t.Fatalf("get search %s: %v", id, err)
		}
		if before.TotalResults != after.TotalResults {
			continue // a run landed while paging; page again
		}
		if int64(len(seen)) != after.TotalResults || items != len(seen) {
			t.Errorf("search %s: paging gave %d items, %d distinct ids; total_results %d", id, items, len(seen), after.TotalResults)
		}
		return
	}
	t.Errorf("search %s: total_results kept changing while paging", id)
}

// TestHeartbeatSettingsAreValidated: a heartbeat faster than 100 ms, or a
// timeout shorter than two beats, stops the start naming its variable.
func TestHeartbeatSettingsAreValidated(t *testing.T) {
	assertSettingsRefused(t, map[string]string{"TRAWL_HEARTBEAT_INTERVAL": "10ms", "TRAWL_HEARTBEAT_TIMEOUT": "9s"})
}

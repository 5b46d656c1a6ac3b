// Package app assembles a Trawl process from its parts: the store, the
// background runner, the sandbox and the HTTP API, started and stopped in
// order.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/console"
	"github.com/trawlhq/trawl/internal/delivery"
	"github.com/trawlhq/trawl/internal/httpapi"
	"github.com/trawlhq/trawl/internal/jobs"
	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/netguard"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/topic"
	wfengine "github.com/trawlhq/trawl/internal/workflow/engine"
)

// Options are what a process gets from outside besides its settings.
type Options struct {
	Now    func() time.Time
	Log    *slog.Logger
	Stdout io.Writer
}

// OpenStore opens and migrates the database of the settings.
func OpenStore(ctx context.Context, cfg *config.Config, opts Options) (*store.Store, error) {
	secureFiles(cfg, opts.Log)
	st, err := store.Open(ctx, cfg.DatabaseURL, opts.Now)
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx, opts.Log); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// Serve runs the roles of cfg until ctx is cancelled, then shuts down
// gracefully: stop accepting, let in-flight requests and jobs finish within
// the shutdown timeout, close the database.
func Serve(ctx context.Context, cfg *config.Config, opts Options) error {
	log := opts.Log
	st, err := OpenStore(ctx, cfg, opts)
	if err != nil {
		return err
	}
	defer st.Close()
	bootstrapped, err := bootstrap(ctx, st, cfg, opts)
	if err != nil {
		return err
	}
	// Before anything claims work: on SQLite the worker takes the database
	// over and hands back all that a killed process left claimed or running.
	handed, unregister, err := st.Register(ctx, cfg.RunsWorkers())
	if err != nil {
		return err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
		defer cancel()
		if err := unregister(ctx); err != nil {
			log.Warn("hand back this process's unfinished work", "error", err)
		}
	}()

	sources, err := OpenSources(ctx, cfg, opts)
	if err != nil {
		return err
	}
	defer sources.Close()
	// A wrong key is found now rather than at the first lookup; the service starts anyway, as
	// the other sources work, and /readyz says what is wrong until it is fixed.
	pronetReady := pronet.NewReadiness(sources.Pronet, pronet.ReadinessConfig{
		Secret: cfg.PronetAPIKey, Now: opts.Now, Log: log})
	checkPronet(ctx, pronetReady, log)
	collector := &search.Collector{Repo: st, Microblog: sources.Microblog, Pronet: sources.Pronet, People: st,
		Now: opts.Now, Log: log, QueryMaxLength: cfg.QueryMaxLength}

	topics := &topic.Collector{Repo: st, Pronet: sources.Pronet, Now: opts.Now, Log: log,
		Allocation: cfg.MonthlyCredits, Lease: cfg.SearchRunLease}

	box, err := cfg.SecretBox()
	if err != nil {
		return err
	}
	if err := checkSecretKey(ctx, st, box); err != nil {
		return err
	}
	connector, err := newConnector(cfg, st, box, sources, opts)
	if err != nil {
		return err
	}
	engine := newEngine(cfg, st, sources, box, opts)
	engine.Connection = connector.Open

	var runner *jobs.Runner
	enqueue := func(ctx context.Context, args river.JobArgs, o *river.InsertOpts) error {
		return runner.Enqueue(ctx, args, o)
	}
	scheduler := &search.Scheduler{Repo: st, Lease: cfg.SearchRunLease, Enqueue: enqueue}
	topicScheduler := &topic.Scheduler{Repo: st, Collector: topics, Enqueue: enqueue, Lease: cfg.SearchRunLease}
	// Saved searches' new results go to their webhook_url through the
	// same outbound policy as workflow actions.
	deliverer := delivery.New(st, netguard.NewClient(netguard.Options{Allow: cfg.PrivateNetworks()}), box, opts.Now, log)
	runner, err = jobs.New(jobs.Config{
		Store: st, Log: log, Now: opts.Now, Work: cfg.RunsWorkers(),
		TickInterval: cfg.TickInterval, Workers: 10, ID: st.ProcessID(), Lease: cfg.SearchRunLease, WorkBegin: st.AdoptJob,
		Register: func(w *river.Workers) {
			river.AddWorker(w, &search.RunWorker{Collector: collector})
			topic.AddWorkers(w, topics, enqueue)
			river.AddWorker(w, &wfengine.Worker{Engine: engine})
		},
		Scanners: []jobs.Scanner{rateWindowPruner{st}, consoleSessionPruner{st}, scheduler, topicScheduler,
			&wfengine.Scheduler{Repo: st, Lease: cfg.SearchRunLease, Retention: cfg.ExecutionRetention, Enqueue: enqueue},
			mappingMaintainer{st: st, sharedBudget: cfg.MappingCacheBytes}, deliverer},
	})
	if err != nil {
		return err
	}
	st.SetJobInserter(runner)
	// Workflows fire on new outbox events as soon as they are committed;
	// the tick is the safety net.
	dispatcher := wfengine.NewDispatcher(st, cfg.SearchRunLease, log)
	st.SetEventHook(func() { dispatcher.Kick(); deliverer.Kick() })
	go dispatcher.Run(ctx)
	go deliverer.Run(ctx)
	if cfg.RunsWorkers() {
		if err := runner.Start(ctx); err != nil {
			return err
		}
		log.Info("workers started", "tick_interval", cfg.TickInterval.String())
	}
	if handed > 0 {
		// Not waiting for the leader's tick: a killed leader holds River's
		// leadership for seconds after its death.
		log.Info("handed back the work of a process that is gone", "claims_and_jobs", handed)
		if err := runner.Kick(ctx); err != nil {
			return err
		}
	}
	if st.Dialect() == store.Postgres {
		hb := &jobs.Heartbeat{Now: opts.Now, Interval: cfg.HeartbeatInterval, Log: log, Kick: runner.Kick,
			Beat: func(ctx context.Context, now time.Time) (int64, error) {
				return st.Beat(ctx, now, cfg.HeartbeatTimeout)
			}}
		hb.Start(ctx)
		defer hb.Stop()
	}

	var srv *http.Server
	serveErr := make(chan error, 1)
	if cfg.ServesAPI() {
		ln, err := net.Listen("tcp", cfg.Addr)
		if err != nil {
			stopRunner(runner, cfg, log)
			return fmt.Errorf("listen on %s (TRAWL_ADDR): %w", cfg.Addr, err)
		}
		// The process's one mapping engine: its copies and keyword matches
		// are loaded and warmed below, and the API answers from them.
		mapper := mapping.NewEngine(st.MappingPool())
		mapper.SetKeywordMatchBudget(cfg.MappingCacheBytes)
		publicURL := cmp.Or(cfg.PublicURL, "http://"+ln.Addr().String())
		// The web console serves every path the API does not, and exports
		// CSV through the API as the session's key.
		web := console.New(console.Deps{Config: cfg, Store: st, Log: log, Now: opts.Now})
		api := httpapi.New(httpapi.Deps{Config: cfg, Store: st, Log: log, Now: opts.Now,
			Microblog: sources.Microblog, Pronet: sources.Pronet, PronetReadiness: pronetReady, Enrich: sources.Enrich, Collector: collector,
			Secrets: box, Connector: connector, Engine: engine, Mapping: mapper, PublicURL: publicURL, Console: web})
		web.API, web.AsPrincipal = api, httpapi.WithPrincipal
		srv = newHTTPServer(cfg, api, log)
		go func() { serveErr <- srv.Serve(ln) }()
		go func() {
			if err := mapper.Load(ctx); err != nil && ctx.Err() == nil {
				log.Warn("social mapping copies not loaded ahead; the first query loads them", "err", err)
			}
			// Then on every tick (a topic created since, by any process),
			// and at once when this process creates one.
			tick := time.NewTicker(cfg.TickInterval)
			defer tick.Stop()
			for {
				if _, err := mapper.WarmKeywordMatches(ctx); err != nil && ctx.Err() == nil {
					log.Warn("topics' keyword matches not asked ahead; the first query over each asks the index", "err", err)
				}
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				case <-st.TopicCreated():
				}
			}
		}()
		fmt.Fprintf(opts.Stdout, "Trawl is listening on http://%s (role %s, database %s)\n", ln.Addr(), cfg.Role, st.Dialect())
		if bootstrapped {
			fmt.Fprintf(opts.Stdout, "Sign in to the web console at %s/ with that key.\n", strings.TrimSuffix(publicURL, "/"))
		}
		log.Info("listening", "addr", ln.Addr().String(), "role", cfg.Role, "database", string(st.Dialect()))
	}

	if !cfg.ServesAPI() {
		fmt.Fprintf(opts.Stdout, "Trawl worker is running (role %s, database %s)\n", cfg.Role, st.Dialect())
	}
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		if !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server stopped", "error", err)
		}
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	if srv != nil {
		if err := srv.Shutdown(shutdownCtx); err != nil {
			log.Warn("http shutdown", "error", err)
		}
	}
	if cfg.RunsWorkers() {
		stopRunner(runner, cfg, log)
	}
	return nil
}

// checkPronet checks the pronet provider's key within pronet.CheckTimeout and logs a failure
// once, naming the provider and the vendor's reason; the reason never holds the key.
func checkPronet(ctx context.Context, r *pronet.Readiness, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, pronet.CheckTimeout)
	defer cancel()
	var ce *pronet.CheckError
	if err := r.Check(ctx); errors.As(err, &ce) {
		log.Error("pronet provider check failed: pronet lookups, searches and topics fail until it is fixed; /readyz answers 503",
			"provider", ce.Provider, "reason", ce.Reason)
		return
	}
	log.Info("pronet provider key accepted", "provider", r.Provider())
}

// headerTimeout is how long a client may take to send a request's headers.
const headerTimeout = 10 * time.Second

// newHTTPServer bounds every connection: headers, then the body (huma
// holds each route's body to TRAWL_READ_TIMEOUT), the answer (the API
// re-arms TRAWL_WRITE_TIMEOUT when it starts answering and on every flush,
// so the server's own deadline only backs it up) and the wait for the next
// request.
func newHTTPServer(cfg *config.Config, h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: headerTimeout, ReadTimeout: headerTimeout + cfg.ReadTimeout,
		WriteTimeout: cfg.WriteTimeout, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
}

func stopRunner(r *jobs.Runner, cfg *config.Config, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := r.Stop(ctx); err != nil {
		log.Warn("stop workers", "error", err)
	}
}

// bootstrapKeyFile is where the first key is left in the data directory.
const bootstrapKeyFile = "bootstrap-key"

// secureFiles keeps what Trawl stores on disk to the service's user: the
// database holds webhook tokens, the key files the secret key and an API
// key. The data directory is 0700 and these files 0600 (each is created
// so); what is found looser, as an earlier version left it, is tightened,
// and the log says so. Only Trawl's own files and the directory's
// group and other bits are touched; a mode that cannot be changed (a
// directory the service does not own) is a warning, not a failed start.
func secureFiles(cfg *config.Config, log *slog.Logger) {
	var tightened []string
	tighten := func(path string, mode fs.FileMode) {
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode().Perm()&^mode == 0) {
			return
		}
		if err == nil {
			err = os.Chmod(path, fi.Mode()&^(fs.ModePerm&^mode))
		}
		if err != nil {
			log.Warn("file mode not tightened", "path", path, "want", mode.String(), "error", err)
			return
		}
		tightened = append(tightened, path)
	}
	tighten(cfg.DataDir, 0o700)
	for _, f := range append([]string{filepath.Join(cfg.DataDir, secret.KeyFile), filepath.Join(cfg.DataDir, bootstrapKeyFile)}, store.Files(cfg.DatabaseURL)...) {
		tighten(f, 0o600)
	}
	if len(tightened) > 0 {
		log.Warn("tightened file modes: the data directory is for the service's user alone", "paths", tightened)
	}
}

// bootstrap creates the default account and its key on an empty database,
// prints the key once and leaves it in <data dir>/bootstrap-key.
func bootstrap(ctx context.Context, st *store.Store, cfg *config.Config, opts Options) (bool, error) {
	acct := auth.Account{Name: "default", Plan: auth.PlanCustom}
	secret, created, err := st.Bootstrap(ctx, &acct)
	if err != nil || !created {
		return false, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return false, fmt.Errorf("bootstrap: create data dir (TRAWL_DATA_DIR): %w", err)
	}
	path := filepath.Join(cfg.DataDir, bootstrapKeyFile)
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return false, fmt.Errorf("bootstrap: write %s: %w", path, err)
	}
	fmt.Fprintf(opts.Stdout, "Created account %q (plan CUSTOM) and its API key. It is shown only this once:\n\n    %s\n\nIt is also in %s.\n\n", acct.Name, secret, path)
	opts.Log.Info("bootstrap account created", "account_id", acct.ID, "key_file", path)
	return true, nil
}

// rateWindowPruner drops rate-limit windows nobody will read again.
type rateWindowPruner struct{ st *store.Store }

func (rateWindowPruner) Name() string { return "rate-window-pruner" }

func (p rateWindowPruner) ScanDue(ctx context.Context, now time.Time) error {
	_, err := p.st.PruneRateWindows(ctx, now.Add(-5*time.Minute))
	return err
}

// consoleSessionPruner deletes the web console's expired sessions (they
// are refused from their expiry on; this only keeps the table small).
type consoleSessionPruner struct{ st *store.Store }

func (consoleSessionPruner) Name() string { return "console-session-pruner" }

func (p consoleSessionPruner) ScanDue(ctx context.Context, now time.Time) error {
	_, err := p.st.PruneConsoleSessions(ctx, now)
	return err
}

// mappingMaintainer keeps social mapping's logs short and, on PostgreSQL,
// its posting lists up to date: after the other scans, as building blocks
// can take seconds, and packing before pruning, so that the log is not
// pruned past the blocks. The keyword matches the processes share are kept
// within sharedBudget, a process's budget of them
// (TRAWL_MAPPING_CACHE_BYTES).
type mappingMaintainer struct {
	st           *store.Store
	sharedBudget int
}

func (mappingMaintainer) Name() string { return "mapping-maintainer" }

func (m mappingMaintainer) ScanDue(ctx context.Context, _ time.Time) error {
	if _, err := m.st.PackKeywordPostings(ctx); err != nil {
		return err
	}
	_, err := m.st.PruneMappingLog(ctx, m.sharedBudget)
	return err
}

// checkSecretKey refuses a key that is not the one the database's secrets
// are sealed with: a process with another key would seal secrets the
// others cannot open, and fail on theirs. The first process to start
// stores a value sealed under its key, once that key opens a secret stored
// before the check existed, if there is one.
func checkSecretKey(ctx context.Context, st *store.Store, box *secret.Box) error {
	accountID, name, sealed, err := st.AnySecret(ctx)
	if err != nil {
		return err
	}
	if sealed != nil {
		if _, err := box.Open(sealed, secret.AccountContext(accountID, name)); err != nil {
			return secret.ErrOtherKey
		}
	}
	check, err := st.SettingOnce(ctx, "secret_key_check", box.Check())
	if err != nil {
		return err
	}
	return box.Verify(check)
}

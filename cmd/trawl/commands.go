package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/trawlhq/trawl/internal/app"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/httpapi"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[cfg.LogLevel]
	opts := &slog.HandlerOptions{Level: level}
	format := cfg.LogFormat
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				format = "text"
			}
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func appOptions(cfg *config.Config, e env) app.Options {
	return app.Options{Now: e.now, Log: newLogger(cfg, e.stderr), Stdout: e.stdout}
}

// serveCmd takes every setting as a flag of its own. Run reports every bad
// setting at once, the environment's unparsable values included.
type serveCmd struct {
	config.Config `embed:""`
}

func (c *serveCmd) Run(e env, fromEnv *envResolver) error {
	if err := fromEnv.settingsError(&c.Config); err != nil {
		return err
	}
	return app.Serve(e.ctx, &c.Config, appOptions(&c.Config, e))
}

type migrateCmd struct {
	storeFlags `embed:""`
}

func (migrateCmd) Run(cfg *config.Config, e env) error {
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(e.stdout, "Database %s is up to date.\n", st.Dialect())
	return nil
}

type versionCmd struct{}

func (versionCmd) Run(e env) error {
	fmt.Fprintf(e.stdout, "trawl %s (API %s)\n", version, httpapi.Version)
	return nil
}

// sandboxCmd serves the sandbox alone, on the address of --addr, for people
// who build against the upstream protocols.
type sandboxCmd struct {
	Addr        string `name:"addr" placeholder:"HOST:PORT" help:"Address to listen on (TRAWL_ADDR; default 127.0.0.1:8080)."`
	SandboxSeed *int64 `name:"sandbox-seed" placeholder:"N" help:"Seed of the synthetic world (TRAWL_SANDBOX_SEED; default 1)."`
}

func (c *sandboxCmd) applyTo(cfg *config.Config) {
	if c.Addr != "" {
		cfg.Addr = c.Addr
	}
	if c.SandboxSeed != nil {
		cfg.SandboxSeed = *c.SandboxSeed
	}
}

func (sandboxCmd) Run(cfg *config.Config, e env) error {
	log := newLogger(cfg, e.stderr)
	srv, err := sandbox.Start(e.ctx, cfg.Addr, sandbox.Config{Seed: cfg.SandboxSeed, Now: e.now, Logger: log})
	if err != nil {
		return fmt.Errorf("start sandbox on %s (TRAWL_ADDR): %w", cfg.Addr, err)
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "Sandbox (seed %d) is listening:\n  TRAWL_MICROBLOG_API_URL=%s\n  TRAWL_PRONET_API_URL=%s\n"+
		"    (with TRAWL_PRONET_PROVIDER=harvestapi: %s; with apify: %s)\n  TRAWL_ENRICH_API_URL=%s\n  TRAWL_LLM_API_URL=%s\n"+
		"Any non-empty token or key is accepted (a pronet key that starts with \"invalid\" is refused, to try a wrong one).\n",
		cfg.SandboxSeed, srv.MicroblogURL(), srv.PronetURL(), srv.HarvestAPIURL(), srv.ApifyURL(), srv.EnrichURL(), srv.LLMURL())
	<-e.ctx.Done()
	return nil
}

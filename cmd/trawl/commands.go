package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trawlhq/trawl/internal/app"
	"github.com/trawlhq/trawl/internal/auth"
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

type serveCmd struct{}

func (serveCmd) Run(cfg *config.Config, e env) error {
	return app.Serve(e.ctx, cfg, appOptions(cfg, e))
}

type migrateCmd struct{}

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

type accountsCmd struct {
	Create accountsCreateCmd `cmd:"" help:"Create an account."`
	List   accountsListCmd   `cmd:"" help:"List accounts."`
}

type accountsCreateCmd struct {
	Name    string `required:"" help:"Account name."`
	Plan    string `required:"" enum:"STARTER,ENTERPRISE,CUSTOM,starter,enterprise,custom" help:"Plan: STARTER, ENTERPRISE or CUSTOM."`
	Credits *int64 `help:"Monthly credits, overriding the plan's allocation."`
	JSON    bool   `name:"json" help:"Print JSON."`
}

func (c accountsCreateCmd) Run(cfg *config.Config, e env) error {
	if strings.TrimSpace(c.Name) == "" {
		return fmt.Errorf("--name must not be empty")
	}
	if c.Credits != nil && *c.Credits < 0 {
		return fmt.Errorf("--credits must not be negative")
	}
	plan, err := auth.ParsePlan(c.Plan)
	if err != nil {
		return fmt.Errorf("--plan: %w", err)
	}
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	a := auth.Account{Name: c.Name, Plan: plan, MonthlyCredits: c.Credits}
	if err := st.CreateAccount(e.ctx, &a); err != nil {
		return err
	}
	if c.JSON {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"id": a.ID, "name": a.Name, "plan": a.Plan, "monthly_credits": cfg.MonthlyCredits(a)})
	}
	fmt.Fprintf(e.stdout, "Created account %s (%s, plan %s, %d credits a month).\n", a.ID, a.Name, a.Plan, cfg.MonthlyCredits(a))
	return nil
}

type accountsListCmd struct {
	JSON bool `name:"json" help:"Print JSON."`
}

func (c accountsListCmd) Run(cfg *config.Config, e env) error {
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	accts, err := st.Accounts(e.ctx)
	if err != nil {
		return err
	}
	if c.JSON {
		out := make([]map[string]any, 0, len(accts))
		for _, a := range accts {
			out = append(out, map[string]any{"id": a.ID, "name": a.Name, "plan": a.Plan, "monthly_credits": cfg.MonthlyCredits(a), "created_at": a.CreatedAt})
		}
		return json.NewEncoder(e.stdout).Encode(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPLAN\tMONTHLY CREDITS\tCREATED")
	for _, a := range accts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", a.ID, a.Name, a.Plan, cfg.MonthlyCredits(a), a.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

type keysCmd struct {
	Create keysCreateCmd `cmd:"" help:"Create an API key; the key is printed once."`
	List   keysListCmd   `cmd:"" help:"List an account's keys."`
	Revoke keysRevokeCmd `cmd:"" help:"Revoke a key; it stops working on the next request."`
}

type keysCreateCmd struct {
	Account     string `required:"" help:"Account id."`
	Permissions string `required:"" help:"Comma-separated permissions, or '*' for all."`
	FullArchive bool   `name:"full-archive" help:"Allow use_full_archive searches."`
	JSON        bool   `name:"json" help:"Print JSON."`
}

func (c keysCreateCmd) Run(cfg *config.Config, e env) error {
	perms, err := auth.ParsePermissions(c.Permissions)
	if err != nil {
		return fmt.Errorf("--permissions: %w (known: *, %s)", err, joinPerms(auth.Permissions()))
	}
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	k := auth.Key{AccountID: c.Account, Permissions: perms, FullArchive: c.FullArchive}
	secret, err := st.CreateKey(e.ctx, &k)
	if err != nil {
		return err
	}
	if c.JSON {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"id": k.ID, "key": secret, "prefix": k.Prefix, "account_id": k.AccountID, "permissions": k.Permissions, "full_archive": k.FullArchive})
	}
	fmt.Fprintf(e.stdout, "Created key %s for account %s. It is shown only this once:\n\n    %s\n\n", k.ID, k.AccountID, secret)
	return nil
}

func joinPerms(ps []auth.Permission) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

type keysListCmd struct {
	Account string `required:"" help:"Account id."`
	JSON    bool   `name:"json" help:"Print JSON."`
}

func (c keysListCmd) Run(cfg *config.Config, e env) error {
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := st.Keys(e.ctx, c.Account)
	if err != nil {
		return err
	}
	if c.JSON {
		out := make([]map[string]any, 0, len(keys))
		for _, k := range keys {
			out = append(out, map[string]any{"id": k.ID, "prefix": k.Prefix, "permissions": k.Permissions, "full_archive": k.FullArchive,
				"created_at": k.CreatedAt, "last_used_at": k.LastUsedAt, "revoked_at": k.RevokedAt})
		}
		return json.NewEncoder(e.stdout).Encode(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPREFIX\tPERMISSIONS\tFULL ARCHIVE\tLAST USED\tREVOKED")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%s\t%s\n", k.ID, k.Prefix, joinPerms(k.Permissions), k.FullArchive, orDash(k.LastUsedAt), orDash(k.RevokedAt))
	}
	return tw.Flush()
}

func orDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.RFC3339)
}

type keysRevokeCmd struct {
	KeyID string `arg:"" name:"key-id" help:"Id of the key to revoke."`
}

func (c keysRevokeCmd) Run(cfg *config.Config, e env) error {
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.RevokeKey(e.ctx, c.KeyID); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Revoked key %s.\n", c.KeyID)
	return nil
}

// sandboxCmd serves the sandbox alone, on the address of --addr, for people
// who build against the upstream protocols.
type sandboxCmd struct{}

func (sandboxCmd) Run(cfg *config.Config, e env) error {
	log := newLogger(cfg, e.stderr)
	srv, err := sandbox.Start(e.ctx, cfg.Addr, sandbox.Config{Seed: cfg.SandboxSeed, Now: e.now, Logger: log})
	if err != nil {
		return fmt.Errorf("start sandbox on %s (TRAWL_ADDR): %w", cfg.Addr, err)
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "Sandbox (seed %d) is listening:\n  TRAWL_MICROBLOG_API_URL=%s\n  TRAWL_PRONET_API_URL=%s\n  TRAWL_ENRICH_API_URL=%s\n  TRAWL_LLM_API_URL=%s\nAny non-empty token or key is accepted.\n",
		cfg.SandboxSeed, srv.MicroblogURL(), srv.PronetURL(), srv.EnrichURL(), srv.LLMURL())
	<-e.ctx.Done()
	return nil
}

// Command trawl runs the Trawl service and administers it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
	_ "time/tzdata" // scheduled triggers name IANA zones; hosts without zoneinfo still know them

	"github.com/alecthomas/kong"

	"github.com/trawlhq/trawl/internal/config"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		var exit exitCode
		if errors.As(err, &exit) {
			os.Exit(int(exit))
		}
		fmt.Fprintln(os.Stderr, "trawl:", err)
		os.Exit(1)
	}
}

// exitCode ends run without an error message (after --help, say).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// cli is the command tree. Each command declares only its own flags, so
// that its --help shows what it takes: serve takes every setting as a flag,
// the others read the settings from their TRAWL_* variables (settings.go).
type cli struct {
	Serve    serveCmd    `cmd:"" help:"Run the API, the scheduler and the workers. Every setting is a flag here and a TRAWL_* variable."`
	Wait     waitCmd     `cmd:"" help:"Wait until a trawl serve answers /readyz (for scripts: start serve, then wait)."`
	Migrate  migrateCmd  `cmd:"" help:"Apply database migrations and exit."`
	Accounts accountsCmd `cmd:"" help:"Manage accounts."`
	Keys     keysCmd     `cmd:"" help:"Manage API keys."`
	Sandbox  sandboxCmd  `cmd:"" help:"Serve the sandbox's synthetic upstreams alone, on --addr."`
	OpenAPI  openapiCmd  `cmd:"" name:"openapi" help:"Print the OpenAPI document the API serves (no database needed)."`
	Version  versionCmd  `cmd:"" help:"Print the version."`
}

// env is what commands get besides their flags.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	now    func() time.Time
	getenv func(string) string
}

// run parses args and runs the command. getenv replaces os.Getenv so that
// tests can run many configurations in one process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return execute(ctx, args, getenv, stdout, stderr, time.Now)
}

// execute is run with the clock injected, so that end-to-end tests can move
// time instead of waiting for it.
func execute(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, now func() time.Time) (err error) {
	var c cli
	flagsFromEnv := newEnvResolver(getenv)
	parser, err := kong.New(&c,
		kong.Name("trawl"),
		kong.Description("Trawl: social monitoring, lead discovery and workflow automation.\n\n"+
			"Every command reads the TRAWL_* settings (`trawl serve --help` lists them); serve also takes them as flags."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitCode(code)) }),
		kong.Resolvers(flagsFromEnv),
		kong.Bind(flagsFromEnv),
		// A command that takes *config.Config gets every setting from the
		// environment, with its own flags over them; asked for only then.
		kong.BindToProvider(func(kctx *kong.Context) (*config.Config, error) {
			return loadSettings(getenv, selectedSettings(kctx))
		}),
		kong.UsageOnError(),
	)
	if err != nil {
		return fmt.Errorf("build command line: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			code, ok := r.(exitCode)
			if !ok {
				panic(r)
			}
			if code != 0 {
				err = code
			}
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		return err
	}
	return kctx.Run(env{ctx: ctx, stdout: stdout, stderr: stderr, now: now, getenv: getenv})
}

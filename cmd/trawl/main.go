// Command trawl runs the Trawl service and administers it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
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

// cli is the command tree. The settings are global flags, each also read
// from its TRAWL_* environment variable.
type cli struct {
	config.Config `embed:""`

	Serve    serveCmd    `cmd:"" help:"Run the API, the scheduler and the workers."`
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
	parser, err := kong.New(&c,
		kong.Name("trawl"),
		kong.Description("Trawl: social monitoring, lead discovery and workflow automation."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitCode(code)) }),
		kong.Resolvers(envResolver(getenv)),
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
	if err := c.Config.Validate(); err != nil {
		return fmt.Errorf("invalid settings:\n%w", err)
	}
	return kctx.Run(&c.Config, env{ctx: ctx, stdout: stdout, stderr: stderr, now: now})
}

// envResolver supplies a setting from its TRAWL_* variable when the flag
// was not given.
func envResolver(getenv func(string) string) kong.Resolver {
	settings := map[string]bool{}
	t := reflect.TypeOf(config.Config{})
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("name"); name != "" {
			settings[name] = true
		}
	}
	return kong.ResolverFunc(func(_ *kong.Context, _ *kong.Path, flag *kong.Flag) (any, error) {
		if !settings[flag.Name] {
			return nil, nil
		}
		if v := getenv(config.EnvName(flag.Name)); v != "" {
			return v, nil
		}
		return nil, nil
	})
}

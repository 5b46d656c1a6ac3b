package main

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/trawlhq/trawl/internal/config"
)

// envResolver supplies a setting's flag from its TRAWL_* variable when the
// flag was not given. A value that does not parse is kept aside, named by
// its variable (the user never typed the flag), and the flag keeps its
// default, so that every bad setting is reported at once with the
// validation's findings.
type envResolver struct {
	getenv   func(string) string
	settings map[string]bool
	bad      []error
}

func newEnvResolver(getenv func(string) string) *envResolver {
	r := &envResolver{getenv: getenv, settings: map[string]bool{}}
	t := reflect.TypeFor[config.Config]()
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("name"); name != "" {
			r.settings[name] = true
		}
	}
	return r
}

func (r *envResolver) Validate(*kong.Application) error { return nil }

func (r *envResolver) Resolve(_ *kong.Context, _ *kong.Path, flag *kong.Flag) (any, error) {
	if !r.settings[flag.Name] {
		return nil, nil
	}
	name := config.EnvName(flag.Name)
	v := r.getenv(name)
	if v == "" {
		return nil, nil
	}
	if err := checkSetting(flag, v); err != nil {
		r.bad = append(r.bad, fmt.Errorf("%s: %w", name, err))
		return nil, nil
	}
	return v, nil
}

// checkSetting decodes v as the flag would, and says in the setting's own
// terms what is wrong with it.
func checkSetting(flag *kong.Flag, v string) error {
	target := reflect.New(flag.Target.Type()).Elem()
	err := flag.Mapper.Decode(&kong.DecodeContext{Value: flag.Value, Scan: kong.Scan().PushTyped(v, kong.FlagValueToken)}, target)
	t := flag.Target.Type()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case err != nil && t == reflect.TypeFor[time.Duration]():
		return fmt.Errorf("must be a duration such as 500ms, 10s, 1m or 1h30m, got %q", v)
	case err != nil && reflect.Zero(t).CanInt():
		return fmt.Errorf("must be a whole number, got %q", v)
	case err != nil:
		return fmt.Errorf("%q: %w", v, err)
	}
	if enum := flag.EnumSlice(); flag.Enum != "" && !slices.Contains(enum, v) {
		return fmt.Errorf("must be one of %s, got %q", strings.Join(enum, ", "), v)
	}
	return nil
}

// settingsError is every problem of the settings, or nil.
func (r *envResolver) settingsError(cfg *config.Config) error {
	err := errors.Join(append(slices.Clone(r.bad), cfg.Check())...)
	if err != nil {
		return fmt.Errorf("invalid settings:\n%w", err)
	}
	return nil
}

// settingsFlags is a command that takes a few settings as flags of its own
// (given on the command line or by their TRAWL_* variables); applyTo puts
// those given over the settings read from the environment.
type settingsFlags interface {
	applyTo(cfg *config.Config)
}

// selectedSettings is the selected command's settings flags, if it has any.
func selectedSettings(kctx *kong.Context) settingsFlags {
	n := kctx.Selected()
	if n == nil {
		return nil
	}
	v := n.Target
	if v.Kind() != reflect.Pointer {
		if !v.CanAddr() {
			return nil
		}
		v = v.Addr()
	}
	f, _ := v.Interface().(settingsFlags)
	return f
}

// loadSettings reads every setting from its TRAWL_* variable (or its
// default), puts the command's own flags over them and validates the
// result.
func loadSettings(getenv func(string) string, own settingsFlags) (*config.Config, error) {
	var cfg config.Config
	r := newEnvResolver(getenv)
	p, err := kong.New(&cfg, kong.Resolvers(r), kong.Exit(func(int) {}))
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	if _, err := p.Parse(nil); err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	if own != nil {
		own.applyTo(&cfg)
	}
	if err := r.settingsError(&cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// storeFlags are the settings that say which deployment a command acts
// on; every command that opens the database takes them.
type storeFlags struct {
	DataDir     string `name:"data-dir" placeholder:"DIR" help:"Data directory (TRAWL_DATA_DIR; default ./trawl-data)."`
	DatabaseURL string `name:"database-url" placeholder:"URL" help:"sqlite://PATH or postgres://… (TRAWL_DATABASE_URL; default sqlite://<data dir>/trawl.db)."`
}

func (f *storeFlags) applyTo(cfg *config.Config) {
	if f.DataDir != "" {
		cfg.DataDir = f.DataDir
	}
	if f.DatabaseURL != "" {
		cfg.DatabaseURL = f.DatabaseURL
	}
}

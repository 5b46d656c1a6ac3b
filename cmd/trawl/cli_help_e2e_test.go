package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// TestSubcommandHelpShowsOwnFlags: each command's --help lists its own
// flags and not the service's settings, which only serve takes as flags.
func TestSubcommandHelpShowsOwnFlags(t *testing.T) {
	env := serverEnv(t, store.SQLite, nil)
	getenv := func(k string) string { return env[k] }
	settings := []string{"--read-timeout", "--rate-limit-starter", "--microblog-api-url", "--role", "--log-level", "--tick-interval"}
	cases := []struct {
		cmd  []string
		want []string
	}{
		{[]string{"accounts", "create"}, []string{"--name", "--plan", "--credits", "--json", "--data-dir", "--database-url"}},
		{[]string{"accounts", "list"}, []string{"--json"}},
		{[]string{"accounts", "show"}, []string{"<account-id>", "--json"}},
		{[]string{"accounts", "update"}, []string{"--plan", "--credits", "--add-credits"}},
		{[]string{"accounts", "delete"}, []string{"--yes"}},
		{[]string{"keys", "create"}, []string{"--account", "--permissions", "--full-archive", "--label", "--expires-in", "--expires-at"}},
		{[]string{"keys", "list"}, []string{"--account"}},
		{[]string{"keys", "revoke"}, []string{"<key-id>"}},
		{[]string{"migrate"}, []string{"--database-url"}},
		{[]string{"sandbox"}, []string{"--addr", "--sandbox-seed"}},
		{[]string{"wait"}, []string{"--url", "--timeout"}},
		{[]string{"version"}, nil},
	}
	for _, c := range cases {
		out, err := runCLI(t, getenv, append(c.cmd, "--help")...)
		if err != nil {
			t.Errorf("trawl %s --help: %v", strings.Join(c.cmd, " "), err)
			continue
		}
		for _, s := range settings {
			if strings.Contains(out, s) {
				t.Errorf("trawl %s --help shows the setting %s:\n%s", strings.Join(c.cmd, " "), s, out)
			}
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("trawl %s --help lacks %s:\n%s", strings.Join(c.cmd, " "), w, out)
			}
		}
	}
	out, err := runCLI(t, getenv, "serve", "--help")
	if err != nil || !strings.Contains(out, "--read-timeout") || !strings.Contains(out, "TRAWL_READ_TIMEOUT") || !strings.Contains(out, "--heartbeat-timeout") {
		t.Errorf("serve --help = %q, %v; want every setting", out, err)
	}
	out, err = runCLI(t, getenv, "--help")
	if err != nil || strings.Contains(out, "--read-timeout") || !strings.Contains(out, "trawl serve --help") {
		t.Errorf("trawl --help = %q, %v; want the commands, and serve --help named for the settings", out, err)
	}
}

// TestBadSettingNamesItsVariable: a setting whose TRAWL_* value does not
// parse is reported by its variable, in the setting's own terms, with
// every other bad setting, by every command that reads settings.
func TestBadSettingNamesItsVariable(t *testing.T) {
	env := serverEnv(t, store.SQLite, map[string]string{
		"TRAWL_READ_TIMEOUT":       "abc",
		"TRAWL_ROLE":               "bad",
		"TRAWL_SANDBOX_SEED":       "x",
		"TRAWL_RATE_LIMIT_STARTER": "0",
	})
	getenv := func(k string) string { return env[k] }
	want := []string{
		`TRAWL_READ_TIMEOUT: must be a duration such as 500ms, 10s, 1m or 1h30m, got "abc"`,
		`TRAWL_ROLE: must be one of all, api, worker, got "bad"`,
		`TRAWL_SANDBOX_SEED: must be a whole number, got "x"`,
		`TRAWL_RATE_LIMIT_STARTER: must be at least 1, got 0`,
	}
	for _, cmd := range [][]string{{"serve"}, {"migrate"}, {"accounts", "list"}, {"keys", "list", "--account", "x"}, {"sandbox"}, {"wait", "--timeout", "1s"}} {
		out, err := runCLI(t, getenv, cmd...)
		if err == nil {
			t.Errorf("trawl %s ran with bad settings:\n%s", strings.Join(cmd, " "), out)
			continue
		}
		msg := err.Error() + out
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("trawl %s: %q lacks %q", strings.Join(cmd, " "), msg, w)
			}
		}
		for _, flag := range []string{"--read-timeout", "--role", "--sandbox-seed"} {
			if strings.Contains(msg, flag) {
				t.Errorf("trawl %s names the flag %s, not its variable: %q", strings.Join(cmd, " "), flag, msg)
			}
		}
	}
	// A command that reads no settings is not stopped by them.
	if out, err := runCLI(t, getenv, "version"); err != nil {
		t.Errorf("version with bad settings: %v, %q", err, out)
	}
	// A flag given on the command line is named as the flag.
	if _, err := runCLI(t, func(k string) string { return "" }, "serve", "--read-timeout", "abc"); err == nil || !strings.Contains(err.Error(), "--read-timeout") {
		t.Errorf("serve --read-timeout abc: %v, want the flag named", err)
	}
}

// TestWaitForReady: `trawl wait` returns once the service answers /readyz
// (at --url, or at TRAWL_ADDR), and fails after --timeout when nothing
// answers.
func TestWaitForReady(t *testing.T) {
	ts := startServer(t, serverEnv(t, store.SQLite, nil))
	out, err := ts.cli(t, "wait", "--url", ts.URL, "--timeout", "30s")
	if err != nil || !strings.Contains(out, "ready at "+ts.URL) {
		t.Fatalf("wait --url: %v, %q", err, out)
	}
	u, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "TRAWL_ADDR" {
			return u.Host
		}
		return ts.env[k]
	}
	if out, err := runCLI(t, getenv, "wait"); err != nil || !strings.Contains(out, "ready at http://"+u.Host) {
		t.Fatalf("wait at TRAWL_ADDR: %v, %q", err, out)
	}
	out, err = ts.cli(t, "wait", "--url", "http://127.0.0.1:1", "--timeout", "300ms")
	if err == nil || !strings.Contains(err.Error(), "not ready after 300ms") {
		t.Fatalf("wait with nothing listening: %v, %q", err, out)
	}
}

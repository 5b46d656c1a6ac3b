package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/store"
)

// Credentials stay out of logs, and the files that hold them are the
// service user's alone.

func TestAccessLogHidesWebhookToken(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		url, secret, _ := hookFlow(t, ts)
		token := url[strings.LastIndex(url, "/")+1:]
		unknown := strings.Repeat("Z", len(token))

		body := []byte(`{"amount": 1}`)
		if st, out := postHook(t, ts.HTTP, url+"?wait=true", sign(t, secret, "msg_log", time.Now(), body), body); st != 200 {
			t.Fatalf("hook: %d %v", st, out)
		}
		if st, _ := postHook(t, ts.HTTP, ts.URL+"/v1/hooks/"+unknown, http.Header{}, body); st != 404 {
			t.Fatalf("unknown token: %d", st)
		}
		// A GET matches no route: its path holds the token all the same.
		resp, err := ts.HTTP.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()

		// The access line is written once the answer is out: wait for it.
		for _, tok := range []string{token, unknown} {
			sum := sha256.Sum256([]byte(tok))
			hash := hex.EncodeToString(sum[:6])
			ts.Stderr.waitFor(t, regexp.MustCompile(`"path":"/v1/hooks/\{token\}"[^\n]*"token_sha256":"`+hash+`"`), nil)
		}
		ts.Stderr.waitFor(t, regexp.MustCompile(`"method":"GET","path":"/v1/hooks/\{token\}"`), nil)
		if logs := ts.Stderr.String(); strings.Contains(logs, token) || strings.Contains(logs, unknown) {
			t.Fatalf("the log holds a webhook token:\n%s", logs)
		}
	})
}

func TestDataDirModes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		env := serverEnv(t, engine, nil)
		ts := startServer(t, env)
		dir := ts.DataDir
		if engine == store.SQLite {
			// The database and its companion files are there while it runs.
			for _, f := range []string{"trawl.db", "trawl.db-wal", "trawl.db-shm"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Fatalf("no %s: %v", f, err)
				}
			}
		}
		wantPrivate(t, dir)

		// A data directory left open by an earlier version is tightened at
		// start, and the log says so.
		ts.stop()
		loosen := func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			mode := fs.FileMode(0o644)
			if d.IsDir() {
				mode = 0o755
			}
			return os.Chmod(path, mode)
		}
		if err := filepath.WalkDir(dir, loosen); err != nil {
			t.Fatal(err)
		}
		ts = startServer(t, env)
		wantPrivate(t, dir)
		if !strings.Contains(ts.Stderr.String(), "tightened file modes") {
			t.Fatalf("the log does not say modes were tightened:\n%s", ts.Stderr.String())
		}
	})
}

// wantPrivate checks that dir is 0700 and every file in it 0600.
func wantPrivate(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s is %v, want %v", path, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package store_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// forEachEngine runs the test body once per engine under test.
func forEachEngine(t *testing.T, body func(t *testing.T, engine store.Dialect)) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) { body(t, engine) })
	}
}

func newAccount(t *testing.T, s *store.Store, plan auth.Plan) auth.Account {
	t.Helper()
	a := auth.Account{Name: "acme", Plan: plan}
	if err := s.CreateAccount(context.Background(), &a); err != nil {
		t.Fatalf("create account: %v", err)
	}
	return a
}

func TestAccountsAndKeys(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		s := storetest.Open(t, engine, clk.Now)
		a := newAccount(t, s, auth.PlanStarter)

		got, err := s.Account(ctx, a.ID)
		if err != nil || got.Name != "acme" || got.Plan != auth.PlanStarter || !got.CreatedAt.Equal(clk.Now()) {
			t.Fatalf("Account = %+v, %v", got, err)
		}
		if _, err := s.Account(ctx, ident.New()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown account: err = %v, want ErrNotFound", err)
		}
		if _, err := s.Account(ctx, "not-an-id"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("malformed account id: err = %v, want ErrNotFound", err)
		}

		k := auth.Key{AccountID: a.ID, Permissions: []auth.Permission{auth.PermSearchesRead}, FullArchive: true}
		secret, err := s.CreateKey(ctx, &k)
		if err != nil {
			t.Fatalf("create key: %v", err)
		}
		if auth.VisiblePrefix(secret) != k.Prefix || len(secret) != len("trawl_")+64 {
			t.Fatalf("secret %q does not match prefix %q", secret, k.Prefix)
		}
		p, err := s.Authenticate(ctx, auth.HashSecret(secret))
		if err != nil {
			t.Fatalf("authenticate: %v", err)
		}
		if p.Account.ID != a.ID || p.Key.ID != k.ID || !p.Key.FullArchive || !p.Key.Has(auth.PermSearchesRead) || p.Key.Has(auth.PermSearchesWrite) {
			t.Fatalf("principal = %+v", p)
		}
		if _, err := s.Authenticate(ctx, auth.HashSecret(secret+"x")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("wrong secret: err = %v", err)
		}

		if err := s.TouchKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		keys, err := s.Keys(ctx, a.ID)
		if err != nil || len(keys) != 1 || keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(clk.Now()) {
			t.Fatalf("Keys = %+v, %v", keys, err)
		}

		if err := s.RevokeKey(ctx, k.ID); err != nil {
			t.Fatalf("revoke: %v", err)
		}
		if _, err := s.Authenticate(ctx, auth.HashSecret(secret)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoked key still authenticates: %v", err)
		}
		if err := s.RevokeKey(ctx, ident.New()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoke unknown: %v", err)
		}
		if _, err := s.CreateKey(ctx, &auth.Key{AccountID: ident.New(), Permissions: []auth.Permission{auth.PermAll}}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("key for unknown account: %v", err)
		}
	})
}

func TestBootstrapHappensOnce(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		s := storetest.Open(t, engine, nil)
		var (
			wg      sync.WaitGroup
			created atomic.Int32
		)
		for range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := auth.Account{Name: "default", Plan: auth.PlanCustom}
				secret, ok, err := s.Bootstrap(ctx, &a)
				if err != nil {
					t.Errorf("bootstrap: %v", err)
				}
				if ok {
					created.Add(1)
					if _, err := s.Authenticate(ctx, auth.HashSecret(secret)); err != nil {
						t.Errorf("bootstrap key does not authenticate: %v", err)
					}
				}
			}()
		}
		wg.Wait()
		if created.Load() != 1 {
			t.Fatalf("bootstrap created %d times, want 1", created.Load())
		}
		accts, err := s.Accounts(ctx)
		if err != nil || len(accts) != 1 || accts[0].Plan != auth.PlanCustom {
			t.Fatalf("accounts after bootstrap = %+v, %v", accts, err)
		}
	})
}

func TestSpendIsAtomicUnderConcurrency(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		s := storetest.Open(t, engine, nil)
		a := newAccount(t, s, auth.PlanStarter)
		var (
			wg       sync.WaitGroup
			ok, poor atomic.Int32
		)
		for range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.Spend(ctx, a.ID, credits.SearchCreate, 1, 50, "")
				switch {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, credits.ErrInsufficient):
					poor.Add(1)
				default:
					t.Errorf("spend: %v", err)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 50 || poor.Load() != 150 {
			t.Fatalf("spent %d times and refused %d, want 50 and 150", ok.Load(), poor.Load())
		}
		bal, err := s.Balance(ctx, a.ID, 50)
		if err != nil || bal.Used != 50 || bal.Remaining() != 0 {
			t.Fatalf("balance = %+v, %v", bal, err)
		}
		u, err := s.Usage(ctx, a.ID, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		if err != nil || u.TotalConsumed != 50 || u.ByFeature[credits.SearchCreate] != 50 {
			t.Fatalf("usage = %+v, %v", u, err)
		}
	})
}

func TestSpendRefusalChangesNothing(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC))
		s := storetest.Open(t, engine, clk.Now)
		a := newAccount(t, s, auth.PlanStarter)
		if _, err := s.Spend(ctx, a.ID, credits.ProfilePosts, 8, 10, "r1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Spend(ctx, a.ID, credits.ProfilePosts, 3, 10, "r2"); !errors.Is(err, credits.ErrInsufficient) {
			t.Fatalf("overspend: err = %v, want ErrInsufficient", err)
		}
		bal, _ := s.Balance(ctx, a.ID, 10)
		if bal.Used != 8 {
			t.Fatalf("used = %d after refused spend, want 8", bal.Used)
		}
		// A new month starts with a fresh allocation.
		clk.Advance(2 * time.Hour)
		bal, err := s.Spend(ctx, a.ID, credits.ProfilePosts, 10, 10, "r3")
		if err != nil || bal.Used != 10 || !bal.PeriodStart.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("spend in new month = %+v, %v", bal, err)
		}
		nov, err := s.Usage(ctx, a.ID, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
		if err != nil || nov.TotalConsumed != 8 {
			t.Fatalf("november usage = %+v, %v", nov, err)
		}
	})
}

func TestRateWindows(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		s := storetest.Open(t, engine, nil)
		key := ident.New()
		w := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
		for want := int64(1); want <= 3; want++ {
			if got, err := s.HitRateLimit(ctx, key, w); err != nil || got != want {
				t.Fatalf("hit %d = %d, %v", want, got, err)
			}
		}
		if got, _ := s.HitRateLimit(ctx, key, w.Add(time.Minute)); got != 1 {
			t.Fatalf("new window starts at %d, want 1", got)
		}
		if n, err := s.PruneRateWindows(ctx, w.Add(time.Second)); err != nil || n != 1 {
			t.Fatalf("prune = %d, %v", n, err)
		}
	})
}

func TestMigrateIsIdempotentAndConcurrent(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		url := storetest.DatabaseURL(t, engine)
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := store.Open(ctx, url, time.Now)
				if err != nil {
					t.Errorf("open: %v", err)
					return
				}
				defer s.Close()
				if err := s.Migrate(ctx, log); err != nil {
					t.Errorf("migrate: %v", err)
				}
			}()
		}
		wg.Wait()
		s, err := store.Open(ctx, url, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Migrate(ctx, log); err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// On PostgreSQL the store's connections start no parallel workers unless
// the database URL asks for them: workers are new processes, and their
// page faults on the shared buffers made queries slower.
func TestPostgresParallelWorkersOffUnlessAsked(t *testing.T) {
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		t.Skip(storetest.PostgresEnv + " is not set")
	}
	asked, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := asked.Query()
	q.Set("max_parallel_workers_per_gather", "1")
	asked.RawQuery = q.Encode()
	ctx := context.Background()
	for _, c := range []struct{ url, want string }{
		{base, "0"},
		{asked.String(), "1"},
	} {
		s, err := store.Open(ctx, c.url, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = s.DB().QueryRowContext(ctx, `SHOW max_parallel_workers_per_gather`).Scan(&got)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: max_parallel_workers_per_gather = %s, want %s", c.url, got, c.want)
		}
	}
}

// What Trawl acknowledges survives a power loss unless the database URL
// trades that away: SQLite's writer syncs every commit (FULL) by default,
// and only the WAL's checkpoints (NORMAL) when the URL says so.
func TestSQLiteSynchronousFullUnlessAsked(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		query string
		want  int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{
		{"", 2},
		{"?synchronous=full", 2},
		{"?synchronous=NORMAL", 1},
	} {
		s, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "trawl.db")+c.query, time.Now)
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		var got int
		err = s.DB().QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&got)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%q: synchronous = %d, want %d", c.query, got, c.want)
		}
	}
	if _, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "trawl.db")+"?synchronous=off", time.Now); err == nil {
		t.Error("synchronous=off was accepted; want an error naming the choices")
	}
}

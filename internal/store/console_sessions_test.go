package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

func TestConsoleSessions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := t.Context()
		clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		s := storetest.Open(t, engine, clk.Now)
		a := newAccount(t, s, auth.PlanEnterprise)
		k := auth.Key{AccountID: a.ID, Permissions: []auth.Permission{auth.PermSearchesRead}}
		if _, err := s.CreateKey(ctx, &k); err != nil {
			t.Fatal(err)
		}
		cs := store.ConsoleSession{ID: "aa11", KeyID: k.ID, AccountID: a.ID, CSRF: "tok", CreatedAt: clk.Now(), ExpiresAt: clk.Now().Add(time.Hour)}
		if err := s.CreateConsoleSession(ctx, cs); err != nil {
			t.Fatal(err)
		}
		got, p, err := s.ConsoleSession(ctx, "aa11", clk.Now())
		if err != nil || got.CSRF != "tok" || got.KeyID != k.ID || !got.ExpiresAt.Equal(cs.ExpiresAt) ||
			p.Account.ID != a.ID || p.Account.Plan != auth.PlanEnterprise || p.Key.ID != k.ID || !p.Key.Has(auth.PermSearchesRead) {
			t.Fatalf("ConsoleSession = %+v %+v %v", got, p, err)
		}
		if _, _, err := s.ConsoleSession(ctx, "bb22", clk.Now()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown session: %v", err)
		}
		if _, _, err := s.ConsoleSession(ctx, "aa11", cs.ExpiresAt); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("expired session: %v", err)
		}
		// Revoking the key ends the session.
		if err := s.RevokeKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ConsoleSession(ctx, "aa11", clk.Now()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("session of a revoked key: %v", err)
		}
		// Deleting and pruning.
		k2 := auth.Key{AccountID: a.ID, Permissions: []auth.Permission{auth.PermAll}}
		if _, err := s.CreateKey(ctx, &k2); err != nil {
			t.Fatal(err)
		}
		cs2 := cs
		cs2.ID, cs2.KeyID = "cc33", k2.ID
		if err := s.CreateConsoleSession(ctx, cs2); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteConsoleSession(ctx, "cc33"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ConsoleSession(ctx, "cc33", clk.Now()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted session: %v", err)
		}
		if n, err := s.PruneConsoleSessions(ctx, cs.ExpiresAt); err != nil || n != 1 {
			t.Fatalf("PruneConsoleSessions = %d, %v", n, err)
		}
		if n, err := s.CountActiveSearches(ctx, a.ID); err != nil || n != 0 {
			t.Fatalf("CountActiveSearches = %d, %v", n, err)
		}
		if xs, err := s.RecentFailedExecutions(ctx, a.ID, 10); err != nil || len(xs) != 0 {
			t.Fatalf("RecentFailedExecutions = %v, %v", xs, err)
		}
	})
}

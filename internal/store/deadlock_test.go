package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestDeleteAccountSurvivesDeadlock: deleting an account takes its topics'
// locks before what collection locks after them, so on PostgreSQL a
// collection writing to one of its topics at that moment can deadlock with
// it (CI saw it once). The deletion is then the victim, rolled back whole,
// and must run again rather than fail. Here a transaction standing for the
// collection holds the lock a link to the topic takes (KEY SHARE of the
// topic's row) while the deletion waits for it, then asks for the account's
// row, which the deletion holds. The deletion waits the server's default
// deadlock_timeout, the other transaction a minute, so the deletion is the
// one that finds the cycle and is aborted.
func TestDeleteAccountSurvivesDeadlock(t *testing.T) {
	if !slices.Contains(storetest.Engines(), store.Postgres) {
		t.Skip("PostgreSQL only (set TRAWL_TEST_POSTGRES_URL): SQLite serialises writers, so they cannot deadlock")
	}
	ctx := context.Background()
	s := storetest.Open(t, store.Postgres, nil)
	a := newAccount(t, s, auth.PlanEnterprise)
	tp := &topic.Topic{AccountID: a.ID, Name: "revops", Definition: topic.Definition{Keywords: []string{"revops"},
		TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
	if err := s.CreateTopic(ctx, tp, 0); err != nil {
		t.Fatal(err)
	}
	collection, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer collection.Rollback()
	var pid int
	if err := collection.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := collection.ExecContext(ctx, `SET LOCAL deadlock_timeout = '60s'`); err != nil {
		t.Fatal(err)
	}
	if _, err := collection.ExecContext(ctx, `SELECT 1 FROM topics WHERE id = $1 FOR KEY SHARE`, tp.ID); err != nil {
		t.Fatal(err)
	}
	deleted := make(chan error, 1)
	go func() { deleted <- s.DeleteAccount(ctx, a.ID) }()
	// The deletion waits for the topic's row lock.
	waitFor(t, func() bool {
		var waiting bool
		err := s.DB().QueryRowContext(ctx,
			`SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			                 WHERE NOT l.granted AND a.pid <> $1 AND a.datname = current_database() AND a.query LIKE '%accounts%')`, pid).Scan(&waiting)
		return err == nil && waiting
	})
	// The cycle: the deletion is aborted; this statement gets its lock.
	if _, err := collection.ExecContext(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR KEY SHARE`, a.ID); err != nil {
		t.Fatalf("the collection's side of the cycle: %v", err)
	}
	if err := collection.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-deleted; err != nil {
		t.Fatalf("delete account after losing a deadlock: %v", err)
	}
	if _, err := s.Account(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("account after deletion: %v, want not found", err)
	}
}

// waitFor polls cond until it holds, failing the test after ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

package store_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
	"github.com/trawlhq/trawl/internal/topic"
)

// TestGoneOwnersClaimsAreTakenOver: process A claims a search run and a
// topic discovery (a 10-minute lease) and is running a River job; another
// search A ran is scheduled an hour ahead. Process B takes nothing over
// while A is alive (on SQLite it cannot even start; on PostgreSQL A's beat
// is within the timeout), and everything A held, at once, when A is gone:
// killed on SQLite (its lock file released), 30 s without a beat on
// PostgreSQL. The scheduled search stays scheduled.
func TestGoneOwnersClaimsAreTakenOver(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		url := storetest.DatabaseURL(t, engine)
		const lease, timeout = 10 * time.Minute, 30 * time.Second

		a := storetest.OpenURL(t, url, clk.Now)
		if _, _, err := a.Register(ctx, true); err != nil {
			t.Fatalf("register A: %v", err)
		}
		acct := newAccount(t, a, auth.PlanCustom)
		newSearch := func(name string) string {
			sr := search.Search{AccountID: acct.ID, Name: name, Kind: search.KindPosts, Definition: search.Definition{
				Keywords: []string{name}, TimeFrame: search.DefaultTimeFrame, MaxResults: 10,
				Frequency: search.Hourly, SearchType: search.DefaultSearchType}}
			if err := a.CreateSearch(ctx, &sr, credits.Charge{}, 0); err != nil {
				t.Fatal(err)
			}
			return sr.ID
		}
		ran, claimed := newSearch("ran"), newSearch("claimed")
		tp := &topic.Topic{AccountID: acct.ID, Name: "revops", Definition: topic.Definition{Keywords: []string{"revops"},
			TimeFrame: topic.DefaultTimeFrame, MaxResults: topic.MaxMaxResults, SortBy: topic.DefaultSortBy}}
		if err := a.CreateTopic(ctx, tp, 0); err != nil {
			t.Fatal(err)
		}
		claimSearches := func(s *store.Store) []string {
			t.Helper()
			ids, err := s.ClaimDue(ctx, clk.Now(), lease, 10)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(ids)
			return ids
		}
		claimTopics := func(s *store.Store) []string {
			t.Helper()
			ids, err := s.ClaimDueTopics(ctx, clk.Now(), lease, 10)
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}
		if got, want := claimSearches(a), sortedIDs(ran, claimed); !slices.Equal(got, want) {
			t.Fatalf("A claimed searches %v, want %v", got, want)
		}
		if got := claimTopics(a); !slices.Equal(got, []string{tp.ID}) {
			t.Fatalf("A claimed topics %v, want [%s]", got, tp.ID)
		}
		if _, err := a.SaveRun(ctx, search.Run{SearchID: ran, At: clk.Now(), NextRunAt: clk.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if got := leaseOwner(t, a, "searches", claimed); got != a.ProcessID() {
			t.Fatalf("claimed search's lease_owner = %q, want A's %q", got, a.ProcessID())
		}
		if got := leaseOwner(t, a, "searches", ran); got != "" {
			t.Fatalf("after its run the search's lease_owner = %q, want none", got)
		}
		jobA := insertRunningJob(t, a, engine, a.ProcessID())

		clk.Advance(20 * time.Second)
		b := storetest.OpenURL(t, url, clk.Now)
		if engine == store.SQLite {
			if _, _, err := b.Register(ctx, true); !errors.Is(err, store.ErrDatabaseOwned) {
				t.Fatalf("B registered beside a live A: err = %v, want ErrDatabaseOwned", err)
			}
			a.Crash()
			handed, _, err := b.Register(ctx, true)
			if err != nil {
				t.Fatalf("register B after A's death: %v", err)
			}
			if handed != 3 {
				t.Errorf("B's start handed back %d claims and jobs, want 3 (search, topic, job)", handed)
			}
			// An api-only process beside B registers without the lock, and
			// its shutdown hands back only what it holds.
			api := storetest.OpenURL(t, url, clk.Now)
			_, unregister, err := api.Register(ctx, false)
			if err != nil {
				t.Fatalf("register an api-only process beside B: %v", err)
			}
			jobB := insertRunningJob(t, b, engine, b.ProcessID())
			jobAPI := insertRunningJob(t, b, engine, api.ProcessID())
			if err := unregister(ctx); err != nil {
				t.Fatal(err)
			}
			if got := jobState(t, b, jobB); got != "running" {
				t.Errorf("B's running job is %s after the api process stopped, want running", got)
			}
			if got := jobState(t, b, jobAPI); got != "available" {
				t.Errorf("the api process's running job is %s after it stopped, want available", got)
			}
		} else {
			if handed, _, err := b.Register(ctx, true); err != nil || handed != 0 {
				t.Fatalf("register B: %d, %v", handed, err)
			}
			jobB := insertRunningJob(t, b, engine, b.ProcessID())
			// A's last beat is 20 s old: alive.
			if handed, err := b.Beat(ctx, clk.Now(), timeout); err != nil || handed != 0 {
				t.Fatalf("B's beat beside a live A handed back %d, %v; want 0", handed, err)
			}
			if got := claimSearches(b); len(got) != 0 {
				t.Fatalf("B claimed %v while A was alive", got)
			}
			if _, err := a.Beat(ctx, clk.Now(), timeout); err != nil {
				t.Fatal(err)
			}
			clk.Advance(timeout)
			if handed, err := b.Beat(ctx, clk.Now(), timeout); err != nil || handed != 0 {
				t.Fatalf("B's beat %s after A's last handed back %d, %v; want 0", timeout, handed, err)
			}
			clk.Advance(time.Millisecond)
			handed, err := b.Beat(ctx, clk.Now(), timeout)
			if err != nil || handed != 3 {
				t.Fatalf("B's beat after A stopped beating handed back %d, %v; want 3 (search, topic, job)", handed, err)
			}
			if handed, err := b.Beat(ctx, clk.Now(), timeout); err != nil || handed != 0 {
				t.Fatalf("a second beat handed back %d, %v; want 0", handed, err)
			}
			if got := jobState(t, b, jobB); got != "running" {
				t.Errorf("B's own running job is %s, want running", got)
			}
		}
		if got := jobState(t, b, jobA); got != "available" {
			t.Errorf("A's running job is %s, want available", got)
		}
		if got := claimSearches(b); !slices.Equal(got, []string{claimed}) {
			t.Fatalf("B claimed searches %v, want only A's claimed one %s", got, claimed)
		}
		if got := claimTopics(b); !slices.Equal(got, []string{tp.ID}) {
			t.Fatalf("B claimed topics %v, want [%s]", got, tp.ID)
		}
		if got := leaseOwner(t, b, "searches", claimed); got != b.ProcessID() {
			t.Fatalf("taken-over search's lease_owner = %q, want B's %q", got, b.ProcessID())
		}
		if engine == store.Postgres {
			// A was only slow: it claims once more, then dies without
			// beating again. Its claim has no process row to grow stale.
			late := newSearch("late")
			if got := claimSearches(a); !slices.Equal(got, []string{late}) {
				t.Fatalf("slow A claimed %v, want [%s]", got, late)
			}
			if handed, err := b.Beat(ctx, clk.Now(), timeout); err != nil || handed != 1 {
				t.Fatalf("B's beat after A's claim without a process row handed back %d, %v; want 1", handed, err)
			}
			if got := claimSearches(b); !slices.Equal(got, []string{late}) {
				t.Fatalf("B claimed %v, want [%s]", got, late)
			}
		}
	})
}

func sortedIDs(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

func leaseOwner(t *testing.T, s *store.Store, table, id string) string {
	t.Helper()
	var owner sql.NullString
	if err := s.DB().QueryRow(`SELECT CAST(lease_owner AS TEXT) FROM `+table+` WHERE id = $1`, id).Scan(&owner); err != nil {
		t.Fatalf("lease_owner of %s %s: %v", table, id, err)
	}
	return owner.String
}

// insertRunningJob adds a River job that owner's client is running.
func insertRunningJob(t *testing.T, s *store.Store, engine store.Dialect, owner string) int64 {
	t.Helper()
	q := `INSERT INTO river_job (kind, max_attempts, state, attempt, attempted_at, attempted_by)
	      VALUES ('trawl.tick', 1, 'running', 1, CURRENT_TIMESTAMP, jsonb(json_array($1))) RETURNING id`
	if engine == store.Postgres {
		q = `INSERT INTO river_job (args, kind, max_attempts, state, attempt, attempted_at, attempted_by)
		     VALUES ('{}', 'trawl.tick', 1, 'running', 1, now(), ARRAY[$1]) RETURNING id`
	}
	var id int64
	if err := s.DB().QueryRow(q, owner).Scan(&id); err != nil {
		t.Fatalf("insert running job: %v", err)
	}
	return id
}

func jobState(t *testing.T, s *store.Store, id int64) string {
	t.Helper()
	var state string
	if err := s.DB().QueryRow(`SELECT state FROM river_job WHERE id = $1`, id).Scan(&state); err != nil {
		t.Fatalf("job %d: %v", id, err)
	}
	return state
}

// TestAdoptJobMovesTheClaim: on PostgreSQL the process that starts a job
// becomes the owner of the claim its work carries, so the death of the
// process that enqueued it hands nothing back while the work goes on; on
// SQLite there is one process and nothing changes.
func TestAdoptJobMovesTheClaim(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
		url := storetest.DatabaseURL(t, engine)
		a := storetest.OpenURL(t, url, clk.Now)
		acct := newAccount(t, a, auth.PlanCustom)
		sr := search.Search{AccountID: acct.ID, Name: "adopted", Kind: search.KindPosts, Definition: search.Definition{
			Keywords: []string{"adopted"}, TimeFrame: search.DefaultTimeFrame, MaxResults: 10,
			Frequency: search.Hourly, SearchType: search.DefaultSearchType}}
		if err := a.CreateSearch(ctx, &sr, credits.Charge{}, 0); err != nil {
			t.Fatal(err)
		}
		if ids, err := a.ClaimDue(ctx, clk.Now(), 10*time.Minute, 10); err != nil || len(ids) != 1 {
			t.Fatalf("claim: %v %v", ids, err)
		}
		b := storetest.OpenURL(t, url, clk.Now)
		if err := b.AdoptJob(ctx, search.RunArgs{}.Kind(), []byte(`{"search_id": "`+sr.ID+`"}`)); err != nil {
			t.Fatal(err)
		}
		want := b.ProcessID()
		if engine == store.SQLite {
			want = a.ProcessID()
		}
		if got := leaseOwner(t, a, "searches", sr.ID); got != want {
			t.Fatalf("lease_owner after B started the run's job = %q, want %q", got, want)
		}
	})
}

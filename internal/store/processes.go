package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/topic"
)

// Recovery in seconds (docs/decisions.md). Every Store is one process start
// with an id of its own (ProcessID), which each claim it makes carries in
// lease_owner next to the lease. Work whose owner is gone is handed back to
// the due-work scans at once, instead of when its lease ends: on SQLite at
// start (one process owns the file), on PostgreSQL when the owner's
// heartbeat is older than the timeout. The lease stays the backstop for an
// owner that is alive but stuck.

// claimTables are the claims a process may hold: the table, its due time
// and what is still due when its owner is gone.
var claimTables = []struct{ table, due, where string }{
	{"searches", "next_run_at", ""},
	{"topics", "next_run_at", ""},
	{"pronet_posts", "next_hydrate_at", ""},
	{"pronet_people", "profile_due_at", ""},
	{"workflow_executions", "resume_at", " AND status = 'running'"},
}

// ProcessID is this process's identity, the lease_owner of its claims and
// its River client id.
func (s *Store) ProcessID() string { return s.owner }

// claimOwner is the lease_owner of work claimed when it is created
// (firstRunAt): this process when a job is enqueued with the write, none
// when the work is only due for the tick.
func (s *Store) claimOwner() any {
	if s.jobs == nil {
		return nil
	}
	return s.owner
}

// ownerLockSuffix names the lock file of the process that owns a SQLite
// database (Register).
const ownerLockSuffix = ".owner.lock"

// ErrDatabaseOwned means another process runs the SQLite database's
// background work.
var ErrDatabaseOwned = errors.New("store: another trawl process runs the background work of this SQLite database")

// Register enters this process in the processes table before it claims
// anything. On SQLite the process that runs the background work (works)
// first takes the database's owner lock for its lifetime
// (ErrDatabaseOwned when another process holds it): holding it, every
// claim and every running River job in the file is orphaned (an api-only
// process beside it only enqueues), and Register hands them all back at
// once. It answers how much it handed back, and the function that
// unregisters (Unregister) and releases the lock.
func (s *Store) Register(ctx context.Context, works bool) (handed int64, release func(context.Context) error, err error) {
	owns := s.dialect == SQLite && works
	unlock := func() {}
	if owns {
		if unlock, err = tryLockFile(s.path + ownerLockSuffix); err != nil {
			return 0, nil, err
		}
	}
	s.dropOwnerLock = unlock
	now := ms(s.now())
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if owns {
			var err error
			if handed, err = s.handBack(ctx, tx, "lease_owner IS NOT NULL", "", now); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM processes`); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO processes (id, started_at, heartbeat_at) VALUES ($1, $2, $2)`, s.owner, now)
		return err
	})
	if err != nil {
		unlock()
		return 0, nil, fmt.Errorf("store: register process: %w", err)
	}
	return handed, func(ctx context.Context) error {
		defer unlock()
		return s.Unregister(ctx)
	}, nil
}

// Unregister hands back what this process still holds (work its shutdown
// did not finish) and removes it from the processes table.
func (s *Store) Unregister(ctx context.Context) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := s.reap(ctx, tx, s.owner, ms(s.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: unregister process: %w", err)
	}
	return nil
}

// Beat records that this process is alive at now, and hands back the
// claims and running River jobs of every process whose last beat is older
// than timeout: their due times become now, so the next scan takes them
// over. It answers how much it handed back. Several processes may beat at
// once: SKIP LOCKED gives each dead process to one of them.
func (s *Store) Beat(ctx context.Context, now time.Time, timeout time.Duration) (int64, error) {
	var handed int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// A process declared dead while it was only slow enters again.
		if _, err := tx.ExecContext(ctx, `INSERT INTO processes (id, started_at, heartbeat_at) VALUES ($1, $2, $2)
			ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`, s.owner, ms(now)); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT id FROM processes WHERE heartbeat_at < $1 AND id <> $2`+s.skipLocked(),
			ms(now.Add(-timeout)), s.owner)
		if err != nil {
			return err
		}
		dead, err := scanStrings(rows, "dead processes")
		if err != nil {
			return err
		}
		// A process declared dead while it was only slow may have claimed
		// more before it died without beating again: owners without a row.
		rows, err = tx.QueryContext(ctx, rowlessOwnersSQL())
		if err != nil {
			return err
		}
		rowless, err := scanStrings(rows, "owners without a process")
		if err != nil {
			return err
		}
		dead = append(dead, rowless...)
		for _, id := range dead {
			n, err := s.reap(ctx, tx, id, ms(now))
			if err != nil {
				return err
			}
			handed += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: heartbeat: %w", err)
	}
	return handed, nil
}

// rowlessOwnersSQL finds the owners of claims in flight that have no row
// in processes (the partial indexes on lease_owner hold only those claims).
func rowlessOwnersSQL() string {
	q := `SELECT DISTINCT CAST(o.lease_owner AS TEXT) FROM (`
	for i, c := range claimTables {
		if i > 0 {
			q += ` UNION `
		}
		q += `SELECT DISTINCT lease_owner FROM ` + c.table + ` WHERE lease_owner IS NOT NULL`
	}
	return q + `) o WHERE NOT EXISTS (SELECT 1 FROM processes p WHERE p.id = o.lease_owner)`
}

// reap hands back the claims and running jobs of owner and forgets it.
func (s *Store) reap(ctx context.Context, tx *sql.Tx, owner string, now int64) (int64, error) {
	n, err := s.handBack(ctx, tx, "lease_owner = $2", owner, now)
	if err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM processes WHERE id = $1`, owner)
	return n, err
}

// handBack makes the claims that match ownerCond (owner is its $2, when
// not empty) due at now and ownerless, and makes the River jobs their
// owner was running available again at once instead of when River's
// rescuer gets to them: a job may work on a claim another, live process
// holds (a post whose discovery enqueued its hydration). It answers how
// many claims and jobs it handed back.
func (s *Store) handBack(ctx context.Context, tx *sql.Tx, ownerCond, owner string, now int64) (int64, error) {
	args := []any{now}
	if owner != "" {
		args = append(args, owner)
	}
	var total int64
	for _, c := range claimTables {
		// A claim's due time is its lease end, in the future; a due time
		// already past stays (it is due anyway).
		res, err := tx.ExecContext(ctx, `UPDATE `+c.table+` SET lease_owner = NULL,
			`+c.due+` = CASE WHEN `+c.due+` > $1`+c.where+` THEN $1 ELSE `+c.due+` END
			WHERE `+ownerCond, args...)
		if err != nil {
			return 0, fmt.Errorf("hand back %s: %w", c.table, err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	n, err := s.retryRunningJobs(ctx, tx, owner, now)
	if err != nil {
		return 0, err
	}
	return total + n, nil
}

// retryRunningJobs makes the River jobs that owner's client was running
// available now (every running job when owner is empty, on SQLite at
// start). Each is idempotent: a run the scans also enqueue again stores
// nothing twice, and an execution's job whose claim was taken over stops.
func (s *Store) retryRunningJobs(ctx context.Context, tx *sql.Tx, owner string, now int64) (int64, error) {
	var (
		res sql.Result
		err error
	)
	switch {
	case s.dialect == SQLite && owner == "":
		res, err = tx.ExecContext(ctx, `UPDATE river_job SET state = 'available', scheduled_at = $1 WHERE state = 'running'`,
			sqliteRiverTime(now))
	case s.dialect == SQLite:
		res, err = tx.ExecContext(ctx, `UPDATE river_job SET state = 'available', scheduled_at = $1
			WHERE state = 'running' AND attempted_by ->> '$[#-1]' = $2`, sqliteRiverTime(now), owner)
	default:
		// attempted_by lists the clients of every attempt, the current last.
		res, err = tx.ExecContext(ctx, `UPDATE river_job SET state = 'available', scheduled_at = $1
			WHERE state = 'running' AND attempted_by[array_upper(attempted_by, 1)] = $2`, fromMS(now), owner)
	}
	if err != nil {
		return 0, fmt.Errorf("retry running jobs of a gone process: %w", err)
	}
	return res.RowsAffected()
}

// sqliteRiverTime is River's form of a time on SQLite.
func sqliteRiverTime(ms int64) string { return fromMS(ms).Format("2006-01-02 15:04:05.000") }

// tryLockFile takes an exclusive advisory lock on path without waiting.
// The kernel drops it when the process dies, kill -9 included.
func tryLockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (lock file %s)", ErrDatabaseOwned, path)
		}
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// AdoptJob makes this process the owner of the claim the River job about to
// run here works on, when another process holds it: work is claimed by the
// process that enqueues it, and River hands the job to any process, so
// without this a worker's death would leave its work to a live owner that
// is not doing it (until the lease ends). Only PostgreSQL has several
// processes; on SQLite the owner is always this one.
func (s *Store) AdoptJob(ctx context.Context, kind string, encodedArgs []byte) error {
	if s.dialect != Postgres {
		return nil
	}
	var (
		table, key string
		args       struct {
			SearchID string `json:"search_id"`
			TopicID  string `json:"topic_id"`
			PostURN  string `json:"post_urn"`
		}
	)
	switch kind {
	case search.RunArgs{}.Kind():
		table, key = "searches", "id"
	case topic.DiscoverArgs{}.Kind():
		table, key = "topics", "id"
	case topic.HydrateArgs{}.Kind():
		table, key = "pronet_posts", "urn"
	default:
		return nil // executions are adopted by their first step save
	}
	if err := json.Unmarshal(encodedArgs, &args); err != nil {
		return fmt.Errorf("store: adopt %s job: %w", kind, err)
	}
	id := cmp.Or(args.SearchID, args.TopicID, args.PostURN)
	if _, err := s.db.ExecContext(ctx, `UPDATE `+table+` SET lease_owner = $2
		WHERE `+key+` = $1 AND lease_owner IS NOT NULL AND lease_owner <> $2`, id, s.owner); err != nil {
		return fmt.Errorf("store: adopt %s job: %w", kind, err)
	}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/ident"
)

// AccountChange is what `trawl accounts update` changes: the plan, the
// monthly credits (an override, or none to follow the plan), and credits
// added to the current period alone.
type AccountChange struct {
	Plan           *auth.Plan
	MonthlyCredits **int64 // set: the new override; *nil: follow the plan
	TopUp          int64
}

// UpdateAccount applies the change and moves the current period's
// allocation as credits.Reallocate says, in one transaction, so that a
// concurrent spend sees the old allocation or the new one. monthly is the
// allocation of an account (its override or its plan's).
func (s *Store) UpdateAccount(ctx context.Context, id string, ch AccountChange, monthly func(auth.Account) int64) (auth.Account, credits.Balance, error) {
	if !ident.Valid(id) {
		return auth.Account{}, credits.Balance{}, fmt.Errorf("store: update account %q: %w", id, ErrNotFound)
	}
	var (
		a   auth.Account
		bal credits.Balance
	)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = scanAccount(tx.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`+s.forUpdate(), id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		before := monthly(a)
		if ch.Plan != nil {
			a.Plan = *ch.Plan
		}
		if ch.MonthlyCredits != nil {
			a.MonthlyCredits = *ch.MonthlyCredits
		}
		if _, err := tx.ExecContext(ctx, `UPDATE accounts SET plan = $2, monthly_credits = $3 WHERE id = $1`,
			a.ID, string(a.Plan), a.MonthlyCredits); err != nil {
			return fmt.Errorf("update account: %w", err)
		}
		now := s.now()
		bal.PeriodStart = credits.PeriodStart(now)
		// The period is opened at the old allocation if nothing was spent
		// in it yet, then moved like one that was.
		if err := s.ensurePeriod(ctx, tx, a.ID, bal.PeriodStart, before); err != nil {
			return err
		}
		var current, used int64
		if err := tx.QueryRowContext(ctx, `SELECT allocation, used FROM credit_periods WHERE account_id = $1 AND period_start = $2`+s.forUpdate(),
			a.ID, ms(bal.PeriodStart)).Scan(&current, &used); err != nil {
			return fmt.Errorf("read credit period: %w", err)
		}
		err = tx.QueryRowContext(ctx,
			`UPDATE credit_periods SET allocation = $3 WHERE account_id = $1 AND period_start = $2 RETURNING allocation, used`,
			a.ID, ms(bal.PeriodStart), credits.Reallocate(current, used, before, monthly(a), ch.TopUp)).Scan(&bal.Allocation, &bal.Used)
		if err != nil {
			return fmt.Errorf("move credit period: %w", err)
		}
		return nil
	})
	if err != nil {
		return auth.Account{}, credits.Balance{}, fmt.Errorf("store: update account %q: %w", id, err)
	}
	return a, bal, nil
}

// AccountCounts is what an account holds, for `trawl accounts show` and
// before a deletion.
type AccountCounts struct {
	Keys, ActiveKeys int64 // ActiveKeys: neither revoked nor expired
	Searches         int64 // not deleted
	Topics           int64 // not deleted
	Workflows        int64 // not deleted
	Executions       int64
	Secrets          int64
}

// AccountCounts counts what the account holds at now.
func (s *Store) AccountCounts(ctx context.Context, id string) (AccountCounts, error) {
	var c AccountCounts
	if _, err := s.Account(ctx, id); err != nil {
		return c, err
	}
	now := ms(s.now())
	err := s.read.QueryRowContext(ctx, `SELECT
		  (SELECT COUNT(*) FROM api_keys WHERE account_id = $1),
		  (SELECT COUNT(*) FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)),
		  (SELECT COUNT(*) FROM searches WHERE account_id = $1 AND status <> 'deleted'),
		  (SELECT COUNT(*) FROM topics WHERE account_id = $1 AND status <> 'DELETED'),
		  (SELECT COUNT(*) FROM workflows WHERE account_id = $1 AND deleted_at IS NULL),
		  (SELECT COUNT(*) FROM workflow_executions WHERE account_id = $1),
		  (SELECT COUNT(*) FROM secrets WHERE account_id = $1)`, id, now).
		Scan(&c.Keys, &c.ActiveKeys, &c.Searches, &c.Topics, &c.Workflows, &c.Executions, &c.Secrets)
	if err != nil {
		return c, fmt.Errorf("store: count account %q: %w", id, err)
	}
	return c, nil
}

// DeleteAccount removes the account and everything it owns, in one
// transaction: its keys (so they stop working on the next request), rate
// windows, credit periods, ledger and upstream costs, searches and their results,
// topics and their links, workflows, drafts, executions, secrets and integrations. The
// collected pronet posts, people and engagements its topics linked are
// shared by every account (social mapping's pool) and stay.
func (s *Store) DeleteAccount(ctx context.Context, id string) error {
	if !ident.Valid(id) {
		return fmt.Errorf("store: delete account %q: %w", id, ErrNotFound)
	}
	err := s.inTxRetried(ctx, func(tx *sql.Tx) error {
		// Two tables key rows by a key or a workflow without a foreign key
		// (they are counters written on hot paths); the rest cascades.
		if _, err := tx.ExecContext(ctx, `DELETE FROM rate_windows WHERE key_id IN (SELECT id FROM api_keys WHERE account_id = $1)`, id); err != nil {
			return fmt.Errorf("delete rate windows: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM workflow_executions WHERE account_id = $1`, id); err != nil {
			return fmt.Errorf("delete executions: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM workflow_execution_counts WHERE workflow_id IN (SELECT id FROM workflows WHERE account_id = $1)`, id); err != nil {
			return fmt.Errorf("delete execution counts: %w", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM accounts WHERE id = $1`, id)
		if err != nil {
			return fmt.Errorf("delete account: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: delete account %q: %w", id, err)
	}
	return nil
}

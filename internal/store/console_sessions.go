package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/ident"
	"github.com/trawlhq/trawl/internal/workflow"
)

// ConsoleSession is a signed-in web console session: ID is the SHA-256
// (hex) of the cookie's token; CSRF the token every form of the session
// carries.
type ConsoleSession struct {
	ID        string
	KeyID     string
	AccountID string
	CSRF      string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// CreateConsoleSession stores a new session.
func (s *Store) CreateConsoleSession(ctx context.Context, cs ConsoleSession) error {
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO console_sessions (id, key_id, account_id, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		cs.ID, cs.KeyID, cs.AccountID, cs.CSRF, ms(cs.CreatedAt), ms(cs.ExpiresAt))
	if err != nil {
		return fmt.Errorf("store: create console session: %w", err)
	}
	return nil
}

// ConsoleSession finds an unexpired session by id with its key and account,
// in one indexed read: a session whose key was revoked, or that expired by
// now, is ErrNotFound. Whether the key itself expired is the caller's to
// decide, as with Authenticate.
func (s *Store) ConsoleSession(ctx context.Context, id string, now time.Time) (ConsoleSession, auth.Principal, error) {
	var (
		cs               ConsoleSession
		r                keyRow
		a                auth.Account
		plan             string
		monthly          sql.NullInt64
		created          int64
		csCreated, csExp int64
	)
	dest := append([]any{&cs.ID, &cs.KeyID, &cs.AccountID, &cs.CSRF, &csCreated, &csExp}, r.dest()...)
	dest = append(dest, &a.ID, &a.Name, &plan, &monthly, &created)
	err := s.read.QueryRowContext(ctx,
		`SELECT cs.id, cs.key_id, cs.account_id, cs.csrf, cs.created_at, cs.expires_at, `+keyColumns+`,
		        a.id, a.name, a.plan, a.monthly_credits, a.created_at
		   FROM console_sessions cs
		   JOIN api_keys k ON k.id = cs.key_id
		   JOIN accounts a ON a.id = k.account_id
		  WHERE cs.id = $1 AND cs.expires_at > $2 AND k.revoked_at IS NULL`, id, ms(now)).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return ConsoleSession{}, auth.Principal{}, fmt.Errorf("store: console session: %w", ErrNotFound)
	}
	if err != nil {
		return ConsoleSession{}, auth.Principal{}, fmt.Errorf("store: console session: %w", err)
	}
	k, err := r.key()
	if err != nil {
		return ConsoleSession{}, auth.Principal{}, fmt.Errorf("store: console session: %w", err)
	}
	a.Plan = auth.Plan(plan)
	if monthly.Valid {
		a.MonthlyCredits = &monthly.Int64
	}
	a.CreatedAt = fromMS(created)
	cs.CreatedAt, cs.ExpiresAt = fromMS(csCreated), fromMS(csExp)
	return cs, auth.Principal{Key: k, Account: a}, nil
}

// DeleteConsoleSession ends a session; ending an unknown one is not an error.
func (s *Store) DeleteConsoleSession(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM console_sessions WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: delete console session: %w", err)
	}
	return nil
}

// PruneConsoleSessions deletes the sessions that expired before cutoff.
func (s *Store) PruneConsoleSessions(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM console_sessions WHERE expires_at <= $1`, ms(cutoff))
	if err != nil {
		return 0, fmt.Errorf("store: prune console sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// CountActiveSearches counts an account's active saved searches.
func (s *Store) CountActiveSearches(ctx context.Context, accountID string) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM searches WHERE account_id = $1 AND status = 'active'`, accountID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count active searches: %w", err)
	}
	return n, nil
}

// RecentFailedExecutions returns an account's last failed executions,
// newest first, without steps.
func (s *Store) RecentFailedExecutions(ctx context.Context, accountID string, limit int) ([]workflow.Execution, error) {
	out := []workflow.Execution{}
	if !ident.Valid(accountID) {
		return out, nil
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+executionColumns+` FROM workflow_executions
		WHERE account_id = $1 AND status = 'failed' ORDER BY created_at DESC, id DESC LIMIT $2`, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent failed executions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		x, err := scanExecution(rows)
		if err != nil {
			return nil, fmt.Errorf("store: recent failed executions: %w", err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

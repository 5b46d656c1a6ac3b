package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/ident"
)

// CreateAccount stores a new account and fills in its id and creation time.
func (s *Store) CreateAccount(ctx context.Context, a *auth.Account) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return s.createAccount(ctx, tx, a) })
}

func (s *Store) createAccount(ctx context.Context, tx *sql.Tx, a *auth.Account) error {
	a.ID = ident.New()
	a.CreatedAt = s.now().UTC().Truncate(1e6)
	_, err := tx.ExecContext(ctx,
		`INSERT INTO accounts (id, name, plan, monthly_credits, created_at) VALUES ($1, $2, $3, $4, $5)`,
		a.ID, a.Name, string(a.Plan), a.MonthlyCredits, ms(a.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: create account: %w", err)
	}
	return nil
}

const accountColumns = `id, name, plan, monthly_credits, created_at`

func scanAccount(row interface{ Scan(...any) error }) (auth.Account, error) {
	var (
		a       auth.Account
		plan    string
		credits sql.NullInt64
		created int64
	)
	if err := row.Scan(&a.ID, &a.Name, &plan, &credits, &created); err != nil {
		return auth.Account{}, err
	}
	a.Plan = auth.Plan(plan)
	if credits.Valid {
		a.MonthlyCredits = &credits.Int64
	}
	a.CreatedAt = fromMS(created)
	return a, nil
}

// Account returns one account.
func (s *Store) Account(ctx context.Context, id string) (auth.Account, error) {
	if !ident.Valid(id) {
		return auth.Account{}, fmt.Errorf("store: account %q: %w", id, ErrNotFound)
	}
	a, err := scanAccount(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Account{}, fmt.Errorf("store: account %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return auth.Account{}, fmt.Errorf("store: account %q: %w", id, err)
	}
	return a, nil
}

// Accounts lists every account, oldest first.
func (s *Store) Accounts(ctx context.Context) ([]auth.Account, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+accountColumns+` FROM accounts ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list accounts: %w", err)
	}
	defer rows.Close()
	var out []auth.Account
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list accounts: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list accounts: %w", err)
	}
	return out, nil
}

// CreateKey issues a new API key for an account. The returned secret is the
// only copy: the store keeps its hash.
func (s *Store) CreateKey(ctx context.Context, k *auth.Key) (secret string, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		secret, err = s.createKey(ctx, tx, k)
		return err
	})
	return secret, err
}

func (s *Store) createKey(ctx context.Context, tx *sql.Tx, k *auth.Key) (string, error) {
	if !ident.Valid(k.AccountID) {
		return "", fmt.Errorf("store: create key: account %q: %w", k.AccountID, ErrNotFound)
	}
	secret, prefix, hash, err := auth.NewSecret()
	if err != nil {
		return "", err
	}
	perms, err := json.Marshal(k.Permissions)
	if err != nil {
		return "", fmt.Errorf("store: create key: %w", err)
	}
	k.ID, k.Prefix, k.CreatedAt = ident.New(), prefix, s.now().UTC().Truncate(1e6)
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1)`, k.AccountID).Scan(&exists); err != nil {
		return "", fmt.Errorf("store: create key: %w", err)
	}
	if !exists {
		return "", fmt.Errorf("store: create key: account %q: %w", k.AccountID, ErrNotFound)
	}
	var expires *int64
	if k.ExpiresAt != nil {
		v := ms(*k.ExpiresAt)
		expires = &v
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO api_keys (id, account_id, prefix, hash, permissions, full_archive, created_at, label, expires_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		k.ID, k.AccountID, k.Prefix, hash, string(perms), k.FullArchive, ms(k.CreatedAt), k.Label, expires)
	if err != nil {
		return "", fmt.Errorf("store: create key: %w", err)
	}
	return secret, nil
}

const keyColumns = `k.id, k.account_id, k.prefix, k.permissions, k.full_archive, k.created_at, k.last_used_at, k.revoked_at, k.label, k.expires_at`

type keyRow struct {
	k        auth.Key
	perms    string
	created  int64
	lastUsed sql.NullInt64
	revoked  sql.NullInt64
	expires  sql.NullInt64
}

func (r *keyRow) dest() []any {
	return []any{&r.k.ID, &r.k.AccountID, &r.k.Prefix, &r.perms, &r.k.FullArchive, &r.created, &r.lastUsed, &r.revoked, &r.k.Label, &r.expires}
}

func (r *keyRow) key() (auth.Key, error) {
	if err := json.Unmarshal([]byte(r.perms), &r.k.Permissions); err != nil {
		return auth.Key{}, fmt.Errorf("decode permissions of key %s: %w", r.k.ID, err)
	}
	r.k.CreatedAt = fromMS(r.created)
	r.k.LastUsedAt = nullTime(r.lastUsed)
	r.k.RevokedAt = nullTime(r.revoked)
	r.k.ExpiresAt = nullTime(r.expires)
	return r.k, nil
}

// Keys lists an account's keys, revoked ones included, oldest first.
func (s *Store) Keys(ctx context.Context, accountID string) ([]auth.Key, error) {
	if !ident.Valid(accountID) {
		return nil, fmt.Errorf("store: list keys: account %q: %w", accountID, ErrNotFound)
	}
	if _, err := s.Account(ctx, accountID); err != nil {
		return nil, fmt.Errorf("store: list keys: %w", err)
	}
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+keyColumns+` FROM api_keys k WHERE k.account_id = $1 ORDER BY k.created_at, k.id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("store: list keys: %w", err)
	}
	defer rows.Close()
	var out []auth.Key
	for rows.Next() {
		var r keyRow
		if err := rows.Scan(r.dest()...); err != nil {
			return nil, fmt.Errorf("store: list keys: %w", err)
		}
		k, err := r.key()
		if err != nil {
			return nil, fmt.Errorf("store: list keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list keys: %w", err)
	}
	return out, nil
}

// RevokeKey revokes a key; requests with it fail from the next one on.
// Revoking a revoked key is not an error.
func (s *Store) RevokeKey(ctx context.Context, id string) error {
	if !ident.Valid(id) {
		return fmt.Errorf("store: revoke key %q: %w", id, ErrNotFound)
	}
	res, err := s.db.ExecContext(ctx,
		`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, id, ms(s.now()))
	if err != nil {
		return fmt.Errorf("store: revoke key %q: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: revoke key %q: %w", id, ErrNotFound)
	}
	return nil
}

// Authenticate finds the unrevoked key with the given hash and its
// account. Unknown and revoked keys are ErrNotFound; whether the key has
// expired is the caller's to decide, against its clock.
func (s *Store) Authenticate(ctx context.Context, hash string) (auth.Principal, error) {
	var (
		r       keyRow
		a       auth.Account
		plan    string
		credits sql.NullInt64
		created int64
	)
	dest := append(r.dest(), &a.ID, &a.Name, &plan, &credits, &created)
	err := s.read.QueryRowContext(ctx,
		`SELECT `+keyColumns+`, a.id, a.name, a.plan, a.monthly_credits, a.created_at
		   FROM api_keys k JOIN accounts a ON a.id = k.account_id
		  WHERE k.hash = $1 AND k.revoked_at IS NULL`, hash).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Principal{}, fmt.Errorf("store: authenticate: %w", ErrNotFound)
	}
	if err != nil {
		return auth.Principal{}, fmt.Errorf("store: authenticate: %w", err)
	}
	k, err := r.key()
	if err != nil {
		return auth.Principal{}, fmt.Errorf("store: authenticate: %w", err)
	}
	a.Plan = auth.Plan(plan)
	if credits.Valid {
		a.MonthlyCredits = &credits.Int64
	}
	a.CreatedAt = fromMS(created)
	return auth.Principal{Key: k, Account: a}, nil
}

// TouchKey records that a key was used. It writes at most once a minute per
// key so that authentication does not turn every read into a write.
func (s *Store) TouchKey(ctx context.Context, id string) error {
	now := ms(s.now())
	_, err := s.db.ExecContext(ctx,
		`UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)`,
		id, now, now-60_000)
	if err != nil {
		return fmt.Errorf("store: touch key: %w", err)
	}
	return nil
}

// SettingOnce stores value under name unless a value is stored there
// already, and returns the stored one: the first process decides.
func (s *Store) SettingOnce(ctx context.Context, name, value string) (string, error) {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, value); err != nil {
		return "", fmt.Errorf("store: setting %s: %w", name, err)
	}
	var stored string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`, name).Scan(&stored); err != nil {
		return "", fmt.Errorf("store: setting %s: %w", name, err)
	}
	return stored, nil
}

// Bootstrap creates the first account and an all-permission key, once per
// database: the settings row claims the bootstrap so that concurrent first
// starts cannot both create one. created is false when it already happened.
func (s *Store) Bootstrap(ctx context.Context, a *auth.Account) (secret string, created bool, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO settings (name, value) VALUES ('bootstrapped_at', $1) ON CONFLICT (name) DO NOTHING`,
			s.now().UTC().Format("2006-01-02T15:04:05.000Z07:00"))
		if err != nil {
			return fmt.Errorf("store: bootstrap: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if err := s.createAccount(ctx, tx, a); err != nil {
			return err
		}
		k := auth.Key{AccountID: a.ID, Permissions: []auth.Permission{auth.PermAll}, FullArchive: true}
		secret, err = s.createKey(ctx, tx, &k)
		created = err == nil
		return err
	})
	return secret, created, err
}

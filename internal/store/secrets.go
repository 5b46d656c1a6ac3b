package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Secret describes an account secret; its value never leaves the store
// except sealed.
type Secret struct {
	Name      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// PutSecret creates or replaces a secret with a sealed value and tells
// whether it was new.
func (s *Store) PutSecret(ctx context.Context, accountID, name string, sealed []byte) (Secret, bool, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	var created int64
	err := s.db.QueryRowContext(ctx,
		`INSERT INTO secrets (account_id, name, value, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
		 ON CONFLICT (account_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
		 RETURNING created_at`, accountID, name, sealed, ms(now)).Scan(&created)
	if err != nil {
		return Secret{}, false, fmt.Errorf("store: put secret: %w", err)
	}
	return Secret{Name: name, CreatedAt: fromMS(created), UpdatedAt: now}, created == ms(now), nil
}

// ListSecrets returns the account's secrets by name.
func (s *Store) ListSecrets(ctx context.Context, accountID string) ([]Secret, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT name, created_at, updated_at FROM secrets WHERE account_id = $1 ORDER BY name`, accountID)
	if err != nil {
		return nil, fmt.Errorf("store: list secrets: %w", err)
	}
	defer rows.Close()
	out := []Secret{}
	for rows.Next() {
		var (
			sc               Secret
			created, updated int64
		)
		if err := rows.Scan(&sc.Name, &created, &updated); err != nil {
			return nil, fmt.Errorf("store: list secrets: %w", err)
		}
		sc.CreatedAt, sc.UpdatedAt = fromMS(created), fromMS(updated)
		out = append(out, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list secrets: %w", err)
	}
	return out, nil
}

// SecretValue returns a secret's sealed value; ErrNotFound when there is none.
func (s *Store) SecretValue(ctx context.Context, accountID, name string) ([]byte, error) {
	var v []byte
	err := s.read.QueryRowContext(ctx, `SELECT value FROM secrets WHERE account_id = $1 AND name = $2`, accountID, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: secret %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: secret %s: %w", name, err)
	}
	return v, nil
}

// AnySecret returns one stored secret, if there is any: its account, name
// and sealed value.
func (s *Store) AnySecret(ctx context.Context) (accountID, name string, sealed []byte, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT account_id, name, value FROM secrets ORDER BY account_id, name LIMIT 1`).
		Scan(&accountID, &name, &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil, nil
	}
	if err != nil {
		return "", "", nil, fmt.Errorf("store: any secret: %w", err)
	}
	return accountID, name, sealed, nil
}

// SecretExists tells whether the account has a secret of this name.
func (s *Store) SecretExists(ctx context.Context, accountID, name string) (bool, error) {
	_, err := s.SecretValue(ctx, accountID, name)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// DeleteSecret removes a secret; ErrNotFound when there is none.
func (s *Store) DeleteSecret(ctx context.Context, accountID, name string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM secrets WHERE account_id = $1 AND name = $2`, accountID, name)
	if err != nil {
		return fmt.Errorf("store: delete secret: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: secret %s: %w", name, ErrNotFound)
	}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Integration describes an account's connection to an outside service;
// its credentials never leave the store except sealed.
type Integration struct {
	Type      string
	Name      string
	Source    string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// PutIntegration creates or replaces the account's connection of a type,
// with sealed credentials, and tells whether it was new.
func (s *Store) PutIntegration(ctx context.Context, accountID, typ, name, source string, sealed []byte) (Integration, bool, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	var created int64
	err := s.db.QueryRowContext(ctx,
		`INSERT INTO integrations (account_id, type, name, source, credentials, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
		 ON CONFLICT (account_id, type) DO UPDATE SET name = excluded.name, source = excluded.source,
		   credentials = excluded.credentials, updated_at = excluded.updated_at
		 RETURNING created_at`, accountID, typ, name, source, sealed, ms(now)).Scan(&created)
	if err != nil {
		return Integration{}, false, fmt.Errorf("store: put integration: %w", err)
	}
	return Integration{Type: typ, Name: name, Source: source, CreatedAt: fromMS(created), UpdatedAt: now}, created == ms(now), nil
}

// ListIntegrations returns the account's connections by type.
func (s *Store) ListIntegrations(ctx context.Context, accountID string) ([]Integration, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT type, name, source, created_at, updated_at FROM integrations WHERE account_id = $1 ORDER BY type`, accountID)
	if err != nil {
		return nil, fmt.Errorf("store: list integrations: %w", err)
	}
	defer rows.Close()
	out := []Integration{}
	for rows.Next() {
		var (
			in               Integration
			created, updated int64
		)
		if err := rows.Scan(&in.Type, &in.Name, &in.Source, &created, &updated); err != nil {
			return nil, fmt.Errorf("store: list integrations: %w", err)
		}
		in.CreatedAt, in.UpdatedAt = fromMS(created), fromMS(updated)
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list integrations: %w", err)
	}
	return out, nil
}

// IntegrationCredentials returns the account's connection of a type with
// its sealed credentials, for the code that probes or acts through it;
// ErrNotFound when there is none.
func (s *Store) IntegrationCredentials(ctx context.Context, accountID, typ string) (Integration, []byte, error) {
	var (
		in               = Integration{Type: typ}
		sealed           []byte
		created, updated int64
	)
	err := s.read.QueryRowContext(ctx,
		`SELECT name, source, credentials, created_at, updated_at FROM integrations WHERE account_id = $1 AND type = $2`, accountID, typ).
		Scan(&in.Name, &in.Source, &sealed, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Integration{}, nil, fmt.Errorf("store: integration %s: %w", typ, ErrNotFound)
	}
	if err != nil {
		return Integration{}, nil, fmt.Errorf("store: integration %s: %w", typ, err)
	}
	in.CreatedAt, in.UpdatedAt = fromMS(created), fromMS(updated)
	return in, sealed, nil
}

// DeleteIntegration removes the account's connection of a type; ErrNotFound
// when there is none.
func (s *Store) DeleteIntegration(ctx context.Context, accountID, typ string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM integrations WHERE account_id = $1 AND type = $2`, accountID, typ)
	if err != nil {
		return fmt.Errorf("store: delete integration: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: integration %s: %w", typ, ErrNotFound)
	}
	return nil
}

// RenewIntegrationCredentials replaces the sealed credentials of a
// connection that renewed them (an OAuth access token), keeping its name
// and source; ErrNotFound when it was deleted meanwhile.
func (s *Store) RenewIntegrationCredentials(ctx context.Context, accountID, typ string, sealed []byte) error {
	res, err := s.db.ExecContext(ctx, `UPDATE integrations SET credentials = $3, updated_at = $4 WHERE account_id = $1 AND type = $2`,
		accountID, typ, sealed, ms(s.now().UTC()))
	if err != nil {
		return fmt.Errorf("store: renew integration: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: integration %s: %w", typ, ErrNotFound)
	}
	return nil
}

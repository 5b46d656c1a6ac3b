-- +goose Up
-- Keys carry a label that says what they are for, and may expire: an
-- expired key is refused as a revoked one is (docs/decisions.md, "Accounts
-- and keys from the command line").
ALTER TABLE api_keys ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN expires_at BIGINT;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN expires_at;
ALTER TABLE api_keys DROP COLUMN label;

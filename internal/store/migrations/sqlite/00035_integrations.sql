-- +goose Up
-- An account's connections to outside services (issue 38): one per
-- (account, type). credentials is the JSON object of the type's fields,
-- sealed with the service key as secrets are (AES-GCM, bound to the
-- account and the type).
CREATE TABLE integrations (
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    type        TEXT NOT NULL,
    name        TEXT NOT NULL,
    source      TEXT NOT NULL,
    credentials BLOB NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (account_id, type)
);

-- +goose Down
DROP TABLE integrations;

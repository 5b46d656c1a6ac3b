-- +goose Up
-- The keyword index holds each two-word phrase as a lexeme of its own
-- (SQLite's 00021 says why). Every post is indexed again: Migrate indexes
-- the pending posts after the migrations; until then a query reads their
-- text.
UPDATE mapping_posts SET pending = TRUE, terms = NULL WHERE NOT pending;

-- +goose Down
-- The index with pair lexemes holds everything the index before did.
SELECT 1;

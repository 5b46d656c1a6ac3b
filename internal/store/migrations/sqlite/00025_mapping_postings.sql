-- +goose Up
-- PostgreSQL keeps the keyword index as posting lists of its own as well
-- (PostgreSQL's 00025); SQLite's FTS5 index reads its own: nothing here.
SELECT 1;

-- +goose Down
SELECT 1;

-- +goose Up
-- PostgreSQL's processes share their keyword matches in a table of their
-- own (PostgreSQL's 00023); SQLite's processes keep theirs: nothing here.
SELECT 1;

-- +goose Down
SELECT 1;

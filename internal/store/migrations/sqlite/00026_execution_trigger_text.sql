-- +goose Up
-- PostgreSQL's trigger column becomes text (its 00026) so that a payload
-- with \u0000 is kept; SQLite keeps any JSON text already: nothing here.
SELECT 1;

-- +goose Down
SELECT 1;

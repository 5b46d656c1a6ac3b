-- +goose Up
-- A post's engagements in a time window, with who and what: social mapping
-- aggregates them to one row per person from this index alone, never
-- reading the engagement rows. (PostgreSQL also moves the searched text to
-- a narrow table; on SQLite the candidates' text is read on the page the
-- full-text match's rowid lookup reads anyway, and a narrow copy, one more
-- random page per candidate, measured slower.)
CREATE INDEX pronet_engagements_post_cover ON pronet_engagements (post_urn, engaged_at, person_urn, type);
DROP INDEX pronet_engagements_post_time;

-- +goose Down
CREATE INDEX pronet_engagements_post_time ON pronet_engagements (post_urn, engaged_at);
DROP INDEX pronet_engagements_post_cover;

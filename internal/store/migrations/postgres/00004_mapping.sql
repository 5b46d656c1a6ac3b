-- +goose Up
-- Social mapping and creator discovery search the text of collected posts:
-- a tsvector of the post record's text with a GIN index.
ALTER TABLE pronet_posts ADD COLUMN text TEXT GENERATED ALWAYS AS (COALESCE(record ->> 'text', '')) STORED;
-- Words are split at every character that is not a letter, digit or '_' (as the exact keyword
-- count splits them): the parser would keep URLs, paths and e-mail addresses as one token.
ALTER TABLE pronet_posts ADD COLUMN text_search tsvector GENERATED ALWAYS AS
    (to_tsvector('simple', regexp_replace(COALESCE(record ->> 'text', ''), '[^[:alnum:]_]+', ' ', 'g'))) STORED;
CREATE INDEX pronet_posts_text_search ON pronet_posts USING GIN (text_search);
-- Creator discovery groups posts by author.
ALTER TABLE pronet_posts ADD COLUMN author_urn TEXT GENERATED ALWAYS AS (COALESCE(record -> 'author' ->> 'urn', '')) STORED;
CREATE INDEX pronet_posts_author ON pronet_posts (author_urn, posted_at);
-- A post's engagements in a time window.
CREATE INDEX pronet_engagements_post_time ON pronet_engagements (post_urn, engaged_at);

-- +goose Down
DROP INDEX pronet_engagements_post_time;
DROP INDEX pronet_posts_author;
ALTER TABLE pronet_posts DROP COLUMN author_urn;
DROP INDEX pronet_posts_text_search;
ALTER TABLE pronet_posts DROP COLUMN text_search;
ALTER TABLE pronet_posts DROP COLUMN text;

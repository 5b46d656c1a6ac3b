-- +goose Up
-- Social mapping and creator discovery search the text of collected posts:
-- an FTS5 index over the post record's text, kept in step by triggers.
ALTER TABLE pronet_posts ADD COLUMN text TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.text'), '')) VIRTUAL;
CREATE VIRTUAL TABLE pronet_posts_fts USING fts5 (text, content = 'pronet_posts', content_rowid = 'rowid', tokenize = 'unicode61');
INSERT INTO pronet_posts_fts (rowid, text) SELECT rowid, text FROM pronet_posts;
-- +goose StatementBegin
CREATE TRIGGER pronet_posts_fts_insert AFTER INSERT ON pronet_posts BEGIN
    INSERT INTO pronet_posts_fts (rowid, text) VALUES (new.rowid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER pronet_posts_fts_update AFTER UPDATE OF record ON pronet_posts BEGIN
    INSERT INTO pronet_posts_fts (pronet_posts_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO pronet_posts_fts (rowid, text) VALUES (new.rowid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER pronet_posts_fts_delete AFTER DELETE ON pronet_posts BEGIN
    INSERT INTO pronet_posts_fts (pronet_posts_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
-- +goose StatementEnd
-- Creator discovery groups posts by author.
ALTER TABLE pronet_posts ADD COLUMN author_urn TEXT GENERATED ALWAYS AS (COALESCE(json_extract(record, '$.author.urn'), '')) VIRTUAL;
CREATE INDEX pronet_posts_author ON pronet_posts (author_urn, posted_at);
-- A post's engagements in a time window.
CREATE INDEX pronet_engagements_post_time ON pronet_engagements (post_urn, engaged_at);

-- +goose Down
DROP INDEX pronet_engagements_post_time;
DROP INDEX pronet_posts_author;
ALTER TABLE pronet_posts DROP COLUMN author_urn;
DROP TRIGGER pronet_posts_fts_delete;
DROP TRIGGER pronet_posts_fts_update;
DROP TRIGGER pronet_posts_fts_insert;
DROP TABLE pronet_posts_fts;
ALTER TABLE pronet_posts DROP COLUMN text;

-- +goose Up
-- Social mapping reads the text of every candidate post to count keyword
-- hits exactly. It reads it from a narrow copy of the posts (no JSON to
-- parse, no record, image or author blobs on the pages), kept in step with
-- pronet_posts by triggers.
CREATE TABLE mapping_posts (
    urn        TEXT PRIMARY KEY,
    posted_at  INTEGER NOT NULL,
    author_urn TEXT NOT NULL,
    text       TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO mapping_posts (urn, posted_at, author_urn, text) SELECT urn, posted_at, author_urn, text FROM pronet_posts;
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_insert AFTER INSERT ON pronet_posts BEGIN
    INSERT INTO mapping_posts (urn, posted_at, author_urn, text) VALUES (new.urn, new.posted_at, new.author_urn, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_update AFTER UPDATE OF record, posted_at ON pronet_posts BEGIN
    UPDATE mapping_posts SET posted_at = new.posted_at, author_urn = new.author_urn, text = new.text WHERE urn = new.urn;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_delete AFTER DELETE ON pronet_posts BEGIN
    DELETE FROM mapping_posts WHERE urn = old.urn;
END;
-- +goose StatementEnd
-- A post's engagements in a time window, with who and what: the per-person
-- aggregation reads this index alone, never the engagement rows.
CREATE INDEX pronet_engagements_post_cover ON pronet_engagements (post_urn, engaged_at, person_urn, type);
DROP INDEX pronet_engagements_post_time;

-- +goose Down
CREATE INDEX pronet_engagements_post_time ON pronet_engagements (post_urn, engaged_at);
DROP INDEX pronet_engagements_post_cover;
DROP TRIGGER mapping_posts_delete;
DROP TRIGGER mapping_posts_update;
DROP TRIGGER mapping_posts_insert;
DROP TABLE mapping_posts;

-- +goose Up
-- Creator discovery's author statistics (mean reactions + comments over an
-- author's 10 most recent posts, and their dates) read each post's
-- engagement from mapping_posts, kept by the triggers of migration 00010,
-- through a covering index: no post record (JSON) is read.
ALTER TABLE mapping_posts ADD COLUMN engagement INTEGER NOT NULL DEFAULT 0;
UPDATE mapping_posts SET engagement = (
    SELECT COALESCE(json_extract(p.record, '$.totalReactionCount'), 0) + COALESCE(json_extract(p.record, '$.commentsCount'), 0)
      FROM pronet_posts p WHERE p.urn = mapping_posts.urn);
CREATE INDEX mapping_posts_author ON mapping_posts (author_urn, posted_at, urn, engagement);
DROP TRIGGER mapping_posts_insert;
DROP TRIGGER mapping_posts_update;
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_insert AFTER INSERT ON pronet_posts BEGIN
    INSERT INTO mapping_posts (urn, posted_at, author_urn, engagement) VALUES (new.urn, new.posted_at, new.author_urn,
        COALESCE(json_extract(new.record, '$.totalReactionCount'), 0) + COALESCE(json_extract(new.record, '$.commentsCount'), 0));
    INSERT INTO mapping_engagers (post_id, engagers)
        SELECT id, x'' FROM mapping_posts WHERE urn = new.urn AND NOT EXISTS (SELECT 1 FROM pronet_engagements WHERE post_urn = new.urn);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_update AFTER UPDATE OF record, posted_at ON pronet_posts
    WHEN old.posted_at <> new.posted_at OR old.author_urn IS NOT new.author_urn
      OR COALESCE(json_extract(old.record, '$.totalReactionCount'), 0) + COALESCE(json_extract(old.record, '$.commentsCount'), 0)
         IS NOT COALESCE(json_extract(new.record, '$.totalReactionCount'), 0) + COALESCE(json_extract(new.record, '$.commentsCount'), 0) BEGIN
    UPDATE mapping_posts SET posted_at = new.posted_at, author_urn = new.author_urn,
           engagement = COALESCE(json_extract(new.record, '$.totalReactionCount'), 0) + COALESCE(json_extract(new.record, '$.commentsCount'), 0)
     WHERE urn = new.urn;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER mapping_posts_insert;
DROP TRIGGER mapping_posts_update;
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_insert AFTER INSERT ON pronet_posts BEGIN
    INSERT INTO mapping_posts (urn, posted_at, author_urn) VALUES (new.urn, new.posted_at, new.author_urn);
    INSERT INTO mapping_engagers (post_id, engagers)
        SELECT id, x'' FROM mapping_posts WHERE urn = new.urn AND NOT EXISTS (SELECT 1 FROM pronet_engagements WHERE post_urn = new.urn);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_update AFTER UPDATE OF record, posted_at ON pronet_posts
    WHEN old.posted_at <> new.posted_at OR old.author_urn IS NOT new.author_urn BEGIN
    UPDATE mapping_posts SET posted_at = new.posted_at, author_urn = new.author_urn WHERE urn = new.urn;
END;
-- +goose StatementEnd
DROP INDEX mapping_posts_author;
ALTER TABLE mapping_posts DROP COLUMN engagement;

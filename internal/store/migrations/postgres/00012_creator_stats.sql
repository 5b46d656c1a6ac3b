-- +goose Up
-- Creator discovery's author statistics (mean reactions + comments over an
-- author's 10 most recent posts, and their dates) read each post's
-- engagement from mapping_posts, kept by the trigger of migration 00010,
-- through a covering index: no post record (JSON) is read.
-- +goose StatementBegin
CREATE FUNCTION mapping_post_engagement(record jsonb) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT (CASE WHEN jsonb_typeof(record -> 'totalReactionCount') = 'number' THEN (record ->> 'totalReactionCount')::numeric ELSE 0 END
          + CASE WHEN jsonb_typeof(record -> 'commentsCount') = 'number' THEN (record ->> 'commentsCount')::numeric ELSE 0 END)::bigint
$$;
-- +goose StatementEnd
ALTER TABLE mapping_posts ADD COLUMN engagement BIGINT NOT NULL DEFAULT 0;
UPDATE mapping_posts m SET engagement = mapping_post_engagement(p.record) FROM pronet_posts p WHERE p.urn = m.urn;
CREATE INDEX mapping_posts_author ON mapping_posts (author_urn, posted_at, urn, engagement);
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION mapping_posts_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO mapping_posts (urn, posted_at, author_urn, engagement)
            VALUES (NEW.urn, NEW.posted_at, NEW.author_urn, mapping_post_engagement(NEW.record));
        INSERT INTO mapping_engagers (post_id, engagers)
            SELECT id, ''::bytea FROM mapping_posts WHERE urn = NEW.urn
               AND NOT EXISTS (SELECT 1 FROM pronet_engagements WHERE post_urn = NEW.urn);
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE mapping_posts SET posted_at = NEW.posted_at, author_urn = NEW.author_urn, engagement = mapping_post_engagement(NEW.record),
               pending = pending OR OLD.text IS DISTINCT FROM NEW.text,
               terms = CASE WHEN OLD.text IS DISTINCT FROM NEW.text THEN NULL ELSE terms END
         WHERE urn = NEW.urn;
    ELSE
        DELETE FROM mapping_engagers WHERE post_id = (SELECT id FROM mapping_posts WHERE urn = OLD.urn);
        DELETE FROM mapping_posts WHERE urn = OLD.urn;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP TRIGGER mapping_posts_update ON pronet_posts;
CREATE TRIGGER mapping_posts_update AFTER UPDATE OF record, posted_at ON pronet_posts FOR EACH ROW
    WHEN (OLD.text IS DISTINCT FROM NEW.text OR OLD.posted_at IS DISTINCT FROM NEW.posted_at OR OLD.author_urn IS DISTINCT FROM NEW.author_urn
          OR mapping_post_engagement(OLD.record) IS DISTINCT FROM mapping_post_engagement(NEW.record))
    EXECUTE FUNCTION mapping_posts_sync();

-- +goose Down
DROP TRIGGER mapping_posts_update ON pronet_posts;
CREATE TRIGGER mapping_posts_update AFTER UPDATE OF record, posted_at ON pronet_posts FOR EACH ROW
    WHEN (OLD.text IS DISTINCT FROM NEW.text OR OLD.posted_at IS DISTINCT FROM NEW.posted_at OR OLD.author_urn IS DISTINCT FROM NEW.author_urn)
    EXECUTE FUNCTION mapping_posts_sync();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION mapping_posts_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO mapping_posts (urn, posted_at, author_urn) VALUES (NEW.urn, NEW.posted_at, NEW.author_urn);
        INSERT INTO mapping_engagers (post_id, engagers)
            SELECT id, ''::bytea FROM mapping_posts WHERE urn = NEW.urn
               AND NOT EXISTS (SELECT 1 FROM pronet_engagements WHERE post_urn = NEW.urn);
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE mapping_posts SET posted_at = NEW.posted_at, author_urn = NEW.author_urn,
               pending = pending OR OLD.text IS DISTINCT FROM NEW.text,
               terms = CASE WHEN OLD.text IS DISTINCT FROM NEW.text THEN NULL ELSE terms END
         WHERE urn = NEW.urn;
    ELSE
        DELETE FROM mapping_engagers WHERE post_id = (SELECT id FROM mapping_posts WHERE urn = OLD.urn);
        DELETE FROM mapping_posts WHERE urn = OLD.urn;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP INDEX mapping_posts_author;
ALTER TABLE mapping_posts DROP COLUMN engagement;
DROP FUNCTION mapping_post_engagement(jsonb);

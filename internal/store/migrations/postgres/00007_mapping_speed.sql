-- +goose Up
-- Social mapping reads the text of every candidate post to count keyword
-- hits exactly. It searches and reads a narrow copy of the posts (no
-- record, image or author JSON on the pages, a tsvector that is not TOASTed
-- with them), kept in step with pronet_posts by a trigger. The tsvector and
-- its GIN index move there from pronet_posts.
CREATE TABLE mapping_posts (
    urn         TEXT PRIMARY KEY,
    posted_at   BIGINT NOT NULL,
    author_urn  TEXT NOT NULL,
    text        TEXT NOT NULL,
    -- Words are split at every character that is not a letter, digit or '_', as the exact count splits them.
    text_search tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(text, '[^[:alnum:]_]+', ' ', 'g'))) STORED
);
INSERT INTO mapping_posts (urn, posted_at, author_urn, text) SELECT urn, posted_at, author_urn, text FROM pronet_posts;
CREATE INDEX mapping_posts_text_search ON mapping_posts USING GIN (text_search);
-- +goose StatementBegin
CREATE FUNCTION mapping_posts_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM mapping_posts WHERE urn = OLD.urn;
        RETURN NULL;
    END IF;
    INSERT INTO mapping_posts (urn, posted_at, author_urn, text) VALUES (NEW.urn, NEW.posted_at, NEW.author_urn, NEW.text)
    ON CONFLICT (urn) DO UPDATE SET posted_at = excluded.posted_at, author_urn = excluded.author_urn, text = excluded.text;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_posts_insert AFTER INSERT ON pronet_posts FOR EACH ROW EXECUTE FUNCTION mapping_posts_sync();
CREATE TRIGGER mapping_posts_update AFTER UPDATE OF record, posted_at ON pronet_posts FOR EACH ROW
    WHEN (OLD.record IS DISTINCT FROM NEW.record OR OLD.posted_at IS DISTINCT FROM NEW.posted_at)
    EXECUTE FUNCTION mapping_posts_sync();
CREATE TRIGGER mapping_posts_delete AFTER DELETE ON pronet_posts FOR EACH ROW EXECUTE FUNCTION mapping_posts_sync();
DROP INDEX pronet_posts_text_search;
ALTER TABLE pronet_posts DROP COLUMN text_search;
-- A post's engagements in a time window, with who and what: the per-person
-- aggregation reads this index alone (index-only scans), never the rows.
CREATE INDEX pronet_engagements_post_cover ON pronet_engagements (post_urn, engaged_at, person_urn, type);
DROP INDEX pronet_engagements_post_time;

-- +goose Down
CREATE INDEX pronet_engagements_post_time ON pronet_engagements (post_urn, engaged_at);
DROP INDEX pronet_engagements_post_cover;
ALTER TABLE pronet_posts ADD COLUMN text_search tsvector GENERATED ALWAYS AS
    (to_tsvector('simple', regexp_replace(COALESCE(record ->> 'text', ''), '[^[:alnum:]_]+', ' ', 'g'))) STORED;
CREATE INDEX pronet_posts_text_search ON pronet_posts USING GIN (text_search);
DROP TRIGGER mapping_posts_delete ON pronet_posts;
DROP TRIGGER mapping_posts_update ON pronet_posts;
DROP TRIGGER mapping_posts_insert ON pronet_posts;
DROP FUNCTION mapping_posts_sync();
DROP TABLE mapping_posts;

-- +goose Up
-- Creator discovery keeps each post's date and author's person id in
-- memory (SQLite's 00020 says why and what is logged). Rows carry the
-- writing transaction's id, as the other mapping logs' do (00013).
CREATE TABLE mapping_posts_log (
    seq BIGSERIAL PRIMARY KEY,
    id  BIGINT NOT NULL,
    xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX mapping_posts_log_xid ON mapping_posts_log (xid);
CREATE TABLE mapping_posts_log_pruned (
    one   INTEGER PRIMARY KEY CHECK (one = 1),
    upto  xid8 NOT NULL
);
INSERT INTO mapping_posts_log_pruned (one, upto) VALUES (1, '0');
-- +goose StatementBegin
CREATE FUNCTION mapping_posts_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.id = OLD.id AND NEW.posted_at = OLD.posted_at AND NEW.author_urn = OLD.author_urn THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO mapping_posts_log (id) VALUES (OLD.id);
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.id <> OLD.id) THEN
        INSERT INTO mapping_posts_log (id) VALUES (NEW.id);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_posts_logged AFTER INSERT OR UPDATE OF id, posted_at, author_urn OR DELETE ON mapping_posts
    FOR EACH ROW EXECUTE FUNCTION mapping_posts_logged();
-- +goose StatementBegin
CREATE FUNCTION mapping_posts_author_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.id IS NOT DISTINCT FROM OLD.id AND NEW.urn = OLD.urn THEN
        RETURN NULL;
    END IF;
    INSERT INTO mapping_posts_log (id) SELECT id FROM mapping_posts WHERE author_urn = OLD.urn;
    IF TG_OP = 'UPDATE' AND NEW.urn <> OLD.urn THEN
        INSERT INTO mapping_posts_log (id) SELECT id FROM mapping_posts WHERE author_urn = NEW.urn;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_posts_author_logged AFTER UPDATE OF id, urn OR DELETE ON pronet_people
    FOR EACH ROW EXECUTE FUNCTION mapping_posts_author_logged();

-- +goose Down
DROP TRIGGER mapping_posts_author_logged ON pronet_people;
DROP FUNCTION mapping_posts_author_logged();
DROP TRIGGER mapping_posts_logged ON mapping_posts;
DROP FUNCTION mapping_posts_logged();
DROP TABLE mapping_posts_log_pruned;
DROP TABLE mapping_posts_log;

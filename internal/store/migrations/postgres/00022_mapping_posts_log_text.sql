-- +goose Up
-- A post whose text changed is logged, so that each process's keyword
-- matches decide it again (SQLite's 00022 says more).
-- +goose StatementBegin
CREATE FUNCTION mapping_posts_text_logged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO mapping_posts_log (id) SELECT id FROM mapping_posts WHERE urn = NEW.urn;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER mapping_posts_text_logged AFTER UPDATE OF record ON pronet_posts FOR EACH ROW
    WHEN (OLD.text IS DISTINCT FROM NEW.text) EXECUTE FUNCTION mapping_posts_text_logged();

-- +goose Down
DROP TRIGGER mapping_posts_text_logged ON pronet_posts;
DROP FUNCTION mapping_posts_text_logged();

-- +goose Up
-- Each process keeps the posts its queries' keywords matched
-- (store.keywordMatches), by what the posts' text says. Posts stored,
-- deleted or moved are logged already (00020); a post whose text changed
-- is logged too, so that its matches are decided again.
-- +goose StatementBegin
CREATE TRIGGER mapping_posts_log_text AFTER UPDATE OF record ON pronet_posts WHEN old.text IS NOT new.text BEGIN
    INSERT INTO mapping_posts_log (id) SELECT id FROM mapping_posts WHERE urn = new.urn;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER mapping_posts_log_text;

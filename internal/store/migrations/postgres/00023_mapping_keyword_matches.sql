-- +goose Up
-- The processes share the posts each keyword index query matched
-- (store.shareMatches): the ids, ascending, each as the varint of its
-- distance from the one before, as of the snapshot whose position in
-- mapping_posts_log is position (its xmin). key is a hash of the query.
CREATE TABLE mapping_keyword_matches (
    key      TEXT PRIMARY KEY,
    position BIGINT NOT NULL,
    ids      BYTEA NOT NULL
);

-- +goose Down
DROP TABLE mapping_keyword_matches;

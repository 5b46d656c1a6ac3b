-- +goose Up
-- The keyword index as posting lists of our own (store.PackKeywordPostings,
-- mapping.PostingsBuilder): GIN returns row locations, and each matching
-- post then costs a heap visit, 0.1-0.2 s for a typical keyword on two
-- million posts. Posts are packed in blocks of consecutive ids; a block
-- holds one list per word and hashtag of its posts, as they were in the
-- snapshot whose position in mapping_posts_log is position (its xmin).
-- next_id is one past the largest post id that snapshot saw.
CREATE TABLE mapping_posting_blocks (
    block    BIGINT PRIMARY KEY,
    first_id BIGINT NOT NULL,
    end_id   BIGINT NOT NULL,
    position BIGINT NOT NULL,
    next_id  BIGINT NOT NULL,
    posts    INTEGER NOT NULL,
    bytes    BIGINT NOT NULL
);
CREATE TABLE mapping_postings (
    lexeme TEXT NOT NULL,
    block  BIGINT NOT NULL,
    list   BYTEA NOT NULL,
    PRIMARY KEY (lexeme, block)
);
-- Read whole and often: kept out of line but not compressed.
ALTER TABLE mapping_postings ALTER COLUMN list SET STORAGE EXTERNAL;

-- +goose Down
DROP TABLE mapping_postings;
DROP TABLE mapping_posting_blocks;

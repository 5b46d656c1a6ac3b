-- +goose Up
-- The keyword index holds each two-word phrase as a lexeme of its own
-- (mapping.IndexText, "p<t>_<u>"): a phrase keyword is one lexeme to look
-- up instead of two words' position lists to compare. Every post is indexed
-- again: its entry is dropped and it is marked pending, and Migrate indexes
-- the pending posts after the migrations; until then a query reads their
-- text.
INSERT INTO mapping_terms (mapping_terms) VALUES ('delete-all');
UPDATE mapping_posts SET pending = 1 WHERE pending = 0;

-- +goose Down
-- The index with pair lexemes holds everything the index before did.
SELECT 1;

-- +goose Up
-- The saved searches whose results a pronet member wrote: reading that
-- member's profile (for the results' firmographics) is paid by those
-- searches when no active topic links the member (docs/decisions.md,
-- "Upstream cost"). Results carry no author URN to join on.
CREATE TABLE pronet_search_authors (
    person_urn TEXT NOT NULL,
    search_id  UUID NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    PRIMARY KEY (person_urn, search_id)
);
CREATE INDEX pronet_search_authors_search ON pronet_search_authors (search_id);

-- +goose Down
DROP TABLE pronet_search_authors;

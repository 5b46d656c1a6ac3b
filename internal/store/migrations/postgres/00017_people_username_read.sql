-- +goose Up
-- Only people whose profile was read join search results by username:
-- before that a person's row holds no more than the result item itself
-- (name and headline), so nothing is lost, and hydration, which stores
-- hundreds of new engagers per transaction, no longer writes a random
-- page of this index for each of them (the read that follows writes the
-- entry, one person per transaction).
DROP INDEX pronet_people_username;
CREATE INDEX pronet_people_username ON pronet_people (username) WHERE username <> '' AND profile_fetched_at IS NOT NULL;

-- +goose Down
DROP INDEX pronet_people_username;
CREATE INDEX pronet_people_username ON pronet_people (username) WHERE username <> '';

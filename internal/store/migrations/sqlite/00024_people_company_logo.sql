-- +goose Up
-- The logo of a person's current company, from their profile: creator
-- discovery's company_logo. Empty until the profile is read (again).
ALTER TABLE pronet_people ADD COLUMN company_logo TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE pronet_people DROP COLUMN company_logo;

-- +goose Up
-- Results filtered by their author (GET /v1/searches/{id}/results with
-- job_title, company, industry or country) find a pronet author's collected
-- profile by the username their result carries.
CREATE INDEX pronet_people_username ON pronet_people (username) WHERE username <> '';

-- +goose Down
DROP INDEX pronet_people_username;

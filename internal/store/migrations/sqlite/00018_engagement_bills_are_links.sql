-- +goose Up
-- A topic links an engagement only once its account paid for it, and the
-- account pays once, when the first of its topics links it: the links are
-- the engagement bills (Store.payForEngagements; the credits summary takes
-- the time of the first link as the charge's). The bill rows took three
-- B-tree entries per engagement in hydration's transaction. Post bills stay.
DELETE FROM topic_billing WHERE kind = 'engagement';

-- +goose Down
INSERT INTO topic_billing (account_id, kind, subject_id, charged_at)
SELECT t.account_id, 'engagement', CAST(te.engagement_id AS TEXT), MIN(te.created_at)
  FROM topic_engagements te JOIN topics t ON t.id = te.topic_id
 GROUP BY t.account_id, te.engagement_id;

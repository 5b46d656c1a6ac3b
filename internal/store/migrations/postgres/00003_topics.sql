-- +goose Up
-- Topics watch the professional network for 30 days. Posts, people and
-- engagements are shared rows (public data, one per pronet object); topics
-- reference them through link tables, and per-account billing is rows
-- beside them, never copies of the data.
CREATE TABLE topics (
    id                  UUID PRIMARY KEY,
    account_id          UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name                TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('ACTIVE', 'PAUSED', 'STOPPED', 'EXPIRED', 'DELETED')),
    definition          JSONB NOT NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    expires_at          BIGINT NOT NULL,
    deleted_at          BIGINT,
    -- The last discovery run and what it linked.
    last_run_at         BIGINT,
    new_items           BIGINT NOT NULL DEFAULT 0,
    number_of_new_items BIGINT NOT NULL DEFAULT 0,
    posts_count         BIGINT NOT NULL DEFAULT 0,
    engagements_count   BIGINT NOT NULL DEFAULT 0,
    engagers_count      BIGINT NOT NULL DEFAULT 0,
    -- Scheduling, as for searches: claiming moves next_run_at a lease ahead.
    next_run_at         BIGINT,
    last_error          TEXT,
    failures            BIGINT NOT NULL DEFAULT 0,
    -- Set while the account's credits cannot pay for what was collected;
    -- the scheduler retries the topic's linking until they can.
    credits_blocked_at  BIGINT
);
CREATE INDEX topics_account ON topics (account_id, created_at);
CREATE INDEX topics_due ON topics (next_run_at) WHERE status = 'ACTIVE';
CREATE INDEX topics_blocked ON topics (credits_blocked_at) WHERE credits_blocked_at IS NOT NULL;

CREATE TABLE pronet_posts (
    urn               TEXT PRIMARY KEY,
    posted_at         BIGINT NOT NULL,
    record            JSONB NOT NULL,
    first_seen_at     BIGINT NOT NULL,
    -- Hydration schedule: the next stage (initial, rediscovery, day1, day3,
    -- day5) and when it is due; NULL once day5 is done.
    first_linked_at   BIGINT NOT NULL,
    hydrate_stage     TEXT,
    next_hydrate_at   BIGINT,
    last_hydrated_at  BIGINT,
    engagements_count BIGINT NOT NULL DEFAULT 0,
    last_error        TEXT,
    failures          BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX pronet_posts_due ON pronet_posts (next_hydrate_at) WHERE next_hydrate_at IS NOT NULL;
CREATE INDEX pronet_posts_posted ON pronet_posts (posted_at);

CREATE TABLE pronet_people (
    urn                TEXT PRIMARY KEY,
    username           TEXT NOT NULL DEFAULT '',
    full_name          TEXT NOT NULL DEFAULT '',
    first_name         TEXT NOT NULL DEFAULT '',
    last_name          TEXT NOT NULL DEFAULT '',
    headline           TEXT NOT NULL DEFAULT '',
    job_title          TEXT NOT NULL DEFAULT '',
    company            TEXT NOT NULL DEFAULT '',
    company_domain     TEXT NOT NULL DEFAULT '',
    company_size       TEXT NOT NULL DEFAULT '',
    industry           TEXT NOT NULL DEFAULT '',
    country            TEXT NOT NULL DEFAULT '',
    followers          BIGINT,
    avatar             TEXT NOT NULL DEFAULT '',
    pronet_url         TEXT NOT NULL DEFAULT '',
    first_seen_at      BIGINT NOT NULL,
    profile_fetched_at BIGINT,
    -- When the profile is next read (NULL: nothing to do); at most every 30 days.
    profile_due_at     BIGINT,
    profile_failures   BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX pronet_people_due ON pronet_people (profile_due_at) WHERE profile_due_at IS NOT NULL;

CREATE TABLE pronet_engagements (
    id                 UUID PRIMARY KEY,
    post_urn           TEXT NOT NULL REFERENCES pronet_posts (urn),
    person_urn         TEXT NOT NULL REFERENCES pronet_people (urn),
    type               TEXT NOT NULL CHECK (type IN ('like', 'comment')),
    reaction_type      TEXT NOT NULL DEFAULT '',
    text               TEXT NOT NULL DEFAULT '',
    comment_urn        TEXT NOT NULL DEFAULT '',
    -- When it happened: a comment's time, a reaction's first sighting.
    engaged_at         BIGINT NOT NULL,
    first_seen_at      BIGINT NOT NULL,
    discovery_interval TEXT NOT NULL,
    UNIQUE (post_urn, person_urn, type)
);

CREATE TABLE topic_posts (
    topic_id           UUID NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    post_urn           TEXT NOT NULL REFERENCES pronet_posts (urn),
    linked_at          BIGINT NOT NULL,
    discovery_interval TEXT NOT NULL,
    PRIMARY KEY (topic_id, post_urn)
);
CREATE INDEX topic_posts_page ON topic_posts (topic_id, linked_at DESC, post_urn DESC);
CREATE INDEX topic_posts_post ON topic_posts (post_urn);

CREATE TABLE topic_engagements (
    topic_id      UUID NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    engagement_id UUID NOT NULL REFERENCES pronet_engagements (id),
    post_urn      TEXT NOT NULL,
    person_urn    TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    PRIMARY KEY (topic_id, engagement_id)
);
CREATE INDEX topic_engagements_post ON topic_engagements (topic_id, post_urn, created_at DESC, engagement_id DESC);

-- One row per person per topic: their latest engagement, for the
-- deduplicated engagers list.
CREATE TABLE topic_engagers (
    topic_id      UUID NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    person_urn    TEXT NOT NULL,
    engagement_id UUID NOT NULL,
    latest_at     BIGINT NOT NULL,
    PRIMARY KEY (topic_id, person_urn)
);
CREATE INDEX topic_engagers_page ON topic_engagers (topic_id, latest_at DESC, person_urn DESC);

-- What an account has paid for: each post and engagement once, however many
-- of its topics link it.
CREATE TABLE topic_billing (
    account_id UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('post', 'engagement')),
    subject_id TEXT NOT NULL,
    charged_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, kind, subject_id)
);
CREATE INDEX topic_billing_period ON topic_billing (account_id, charged_at);

-- The engagement outbox: one row per engagement newly linked to a topic,
-- written in the same transaction, for the workflow engagement trigger
-- (topic_engagements' key already keeps it to one row per engagement).
CREATE TABLE engagement_events (
    id            UUID PRIMARY KEY,
    account_id    UUID NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    topic_id      UUID NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    engagement_id UUID NOT NULL,
    created_at    BIGINT NOT NULL
);
CREATE INDEX engagement_events_topic ON engagement_events (topic_id, id);

-- +goose Down
DROP TABLE engagement_events;
DROP TABLE topic_billing;
DROP TABLE topic_engagers;
DROP TABLE topic_engagements;
DROP TABLE topic_posts;
DROP TABLE pronet_engagements;
DROP TABLE pronet_people;
DROP TABLE pronet_posts;
DROP TABLE topics;

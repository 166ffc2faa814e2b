-- Live Activities: update tokens per (app, device, activity id), push-to-start tokens per
-- (app, device, type), and the message and delivery records that sends write and clicks read.

CREATE TABLE live_activities (
    id               text PRIMARY KEY,                               -- lact_…
    app_id           text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    subscription_id  text NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    activity_id      text NOT NULL,
    activity_type    text,
    update_token     text NOT NULL,
    started_at       timestamptz NOT NULL,
    stale_at         timestamptz NOT NULL,
    ended_at         timestamptz,
    -- Why it ended: the device said so, a remote end push, APNs rejected the update token,
    -- or the subscription was retired or superseded.
    ended_reason     text CHECK (ended_reason IN ('device', 'remote', 'dead_token', 'retired')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, subscription_id, activity_id),
    CHECK ((ended_at IS NULL) = (ended_reason IS NULL))
);
CREATE INDEX live_activities_open_by_activity ON live_activities (app_id, activity_id) WHERE ended_at IS NULL;
CREATE INDEX live_activities_open_by_subscription ON live_activities (subscription_id) WHERE ended_at IS NULL;

CREATE TABLE push_to_start_tokens (
    id               text PRIMARY KEY,                               -- pts_…
    app_id           text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    subscription_id  text NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    activity_type    text NOT NULL,
    token            text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, subscription_id, activity_type)
);
CREATE INDEX push_to_start_tokens_by_type ON push_to_start_tokens (app_id, activity_type);

-- One row per send request. `request` keeps the validated body for the message views.
CREATE TABLE messages (
    id              text PRIMARY KEY,                                -- msg_…
    app_id          text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    kind            text NOT NULL CHECK (kind IN ('live_activity', 'notification')),
    event           text CHECK (event IN ('start', 'update', 'end')),
    name            text,
    activity_type   text,
    activity_id     text,
    request         jsonb NOT NULL DEFAULT '{}'::jsonb,
    audience_total  integer NOT NULL DEFAULT 0,
    truncated       boolean NOT NULL DEFAULT false,
    clicks          integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_by_app ON messages (app_id, created_at DESC);

-- One row per device a message goes to. `apns_id` is fixed at creation so every retry of the
-- row carries the same one. A worker claims queued rows with a short lease (`claimed_until`);
-- a lease that runs out (a killed process) makes the row claimable again.
CREATE TABLE deliveries (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    apns_id            uuid NOT NULL UNIQUE,
    message_id         text NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    app_id             text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    subscription_id    text NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    live_activity_id   text REFERENCES live_activities (id) ON DELETE SET NULL,
    token_kind         text NOT NULL CHECK (token_kind IN ('device', 'update', 'push_to_start', 'widget')),
    token              text NOT NULL,
    -- queued → sent → accepted | error; cancelled before sending.
    state              text NOT NULL DEFAULT 'queued'
                       CHECK (state IN ('queued', 'sent', 'accepted', 'error', 'cancelled')),
    attempts           integer NOT NULL DEFAULT 0,
    next_attempt_at    timestamptz NOT NULL DEFAULT now(),
    claimed_until      timestamptz,
    claimed_by         text,
    error_reason       text,
    sent_at            timestamptz,
    accepted_at        timestamptz,
    finished_at        timestamptz,
    clicked_at         timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_by_message ON deliveries (message_id);
CREATE INDEX deliveries_by_subscription ON deliveries (subscription_id, created_at DESC);
CREATE INDEX deliveries_claimable ON deliveries (next_attempt_at) WHERE state IN ('queued', 'sent');

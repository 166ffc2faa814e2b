-- Shared state of the send routes, kept in PostgreSQL so that any number of openpush
-- processes enforce it together: the sliding-window rate limit and idempotency keys.

-- One row per admitted request; rows older than the window are deleted as requests arrive.
CREATE TABLE rate_limit_events (
    app_id  text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    bucket  text NOT NULL,
    at      timestamptz NOT NULL
);
CREATE INDEX rate_limit_events_window ON rate_limit_events (app_id, bucket, at);

-- The first answer to a request carrying an idempotency key, replayed on a repeat.
CREATE TABLE idempotency_keys (
    app_id          text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    scope           text NOT NULL,                -- which route family the key belongs to
    key             text NOT NULL,
    request_digest  bytea,                        -- SHA-256 of the body, where a different body must conflict
    status          integer NOT NULL,
    response        jsonb NOT NULL,
    message_id      text,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (app_id, scope, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

-- Durable dedupe and the staleness gate (`AlertDedupe`, `StalenessGate`).
-- The app's settings: how long an alert's `dedupe_key` keeps a device from being told again,
-- and the default limit on an alert's `event_at` age (0 = off).
ALTER TABLE apps ADD COLUMN dedupe_window_days integer NOT NULL DEFAULT 30
    CHECK (dedupe_window_days BETWEEN 1 AND 365);
ALTER TABLE apps ADD COLUMN stale_alert_seconds integer NOT NULL DEFAULT 0
    CHECK (stale_alert_seconds BETWEEN 0 AND 2592000);
-- What each device was told, per key: the engine claims (app, key, device) with
-- INSERT … ON CONFLICT before the push goes, so concurrent sends in any process give each device
-- one push at most. A claim belongs to the message that made it; a push that ends in `error`
-- gives it back. The maintenance loop deletes claims older than their app's window.
CREATE TABLE alert_dedupe_claims (
    app_id          text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    dedupe_key      text NOT NULL,
    subscription_id text NOT NULL,
    message_id      text NOT NULL,
    claimed_at      timestamptz NOT NULL,
    PRIMARY KEY (app_id, dedupe_key, subscription_id)
);
CREATE INDEX alert_dedupe_claims_by_age ON alert_dedupe_claims (app_id, claimed_at);

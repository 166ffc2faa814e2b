-- Live Activity update coalescing and the widget push throttle (delivery policy): per device, at
-- most one push per interval, the newest waiting one when the interval ends.

ALTER TABLE apps ADD COLUMN live_activity_update_interval_seconds integer NOT NULL DEFAULT 5
    CHECK (live_activity_update_interval_seconds BETWEEN 0 AND 60);
ALTER TABLE apps ADD COLUMN widget_push_interval_seconds integer NOT NULL DEFAULT 15
    CHECK (widget_push_interval_seconds BETWEEN 0 AND 300);

-- One device's activity (a `live_activities` row): when its last update slot was claimed and the
-- update that holds it (message and `aps.timestamp`), and the `end` queued for it. Workers lock
-- these rows (in id order) to decide, so two workers never both send in one interval. A table
-- of its own: job completions update `live_activities` rows, and must not wait on these locks.
CREATE TABLE live_activity_update_slots (
    live_activity_id  text PRIMARY KEY REFERENCES live_activities (id) ON DELETE CASCADE,
    app_id            text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    claimed_at        timestamptz,
    holder_message    text,
    holder_timestamp  bigint,
    end_message       text,
    end_timestamp     bigint
);

-- One device's widgets: when its last widget push slot was claimed and the push that holds it
-- (message, and when that message became due in microseconds).
CREATE TABLE widget_push_slots (
    subscription_id  text PRIMARY KEY REFERENCES subscriptions (id) ON DELETE CASCADE,
    app_id           text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    claimed_at       timestamptz,
    holder_message   text,
    holder_order     bigint
);

-- Delivery v2: the queue holds jobs, not rows.
--
-- A job is one leased unit of work: up to a few thousand recipients of one message, as parallel
-- arrays. A send writes its message and a handful of jobs; a worker leases a job, sends its
-- pushes, and in one transaction appends each device's outcome to `deliveries` (written once),
-- deletes the job and queues a smaller retry job for the passing failures. Leases and due times
-- come from PostgreSQL's clock.

-- Live Activity pushes carry an `aps.timestamp` fixed when they are enqueued, strictly
-- increasing per activity id, the same on every retry.
ALTER TABLE messages ADD COLUMN push_timestamp bigint;
-- A message that could not be expanded or built, and why (GET /notifications/{id}).
ALTER TABLE messages ADD COLUMN failed_reason text;
ALTER TABLE messages ADD COLUMN expansion_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN expansion_retry_at timestamptz;   -- after a failed page, not before

-- The `apns-id` of a push, derived from (message, device, token kind): a UUID (version 8) of the
-- first 16 bytes of a SHA-256. The Swift `APNSIdentifier` computes the same.
CREATE FUNCTION openpush_apns_id(message_id text, subscription_id text, token_kind text) RETURNS uuid
LANGUAGE sql IMMUTABLE AS $$
    SELECT encode(set_byte(set_byte(substring(d FROM 1 FOR 16), 6, (get_byte(d, 6) & 15) | 128),
                           8, (get_byte(d, 8) & 63) | 128), 'hex')::uuid
    FROM (SELECT sha256(convert_to(message_id || E'\n' || subscription_id || E'\n' || token_kind, 'UTF8')) AS d) AS x
$$;

-- The last `aps.timestamp` handed out per (app, activity id), starting above any sent before.
-- Keyed by a digest of the activity id: ids are the app's own strings, of any length.
CREATE TABLE live_activity_clocks (
    app_id          text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    activity_id     text NOT NULL,
    last_timestamp  bigint NOT NULL
);
CREATE UNIQUE INDEX live_activity_clocks_key ON live_activity_clocks (app_id, md5(activity_id));
INSERT INTO live_activity_clocks (app_id, activity_id, last_timestamp)
SELECT app_id, activity_id, max(last_push_timestamp) FROM live_activities
WHERE last_push_timestamp IS NOT NULL GROUP BY app_id, activity_id;

CREATE TABLE delivery_jobs (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id         text NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    app_id             text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    -- 0: Live Activity and time-sensitive or critical alerts; 1: bulk notifications.
    lane               smallint NOT NULL CHECK (lane IN (0, 1)),
    token_kind         text NOT NULL CHECK (token_kind IN ('device', 'update', 'push_to_start', 'widget')),
    -- The attempt its recipients are on (1 for a fresh job; a retry job carries the next one).
    attempt            integer NOT NULL DEFAULT 1,
    due_at             timestamptz NOT NULL DEFAULT now(),
    leased_until       timestamptz,
    leased_by          text,
    -- One entry per recipient, in step.
    subscription_ids   text[] NOT NULL,
    tokens             text[] NOT NULL,
    live_activity_ids  text[],
    badges             integer[],
    created_at         timestamptz NOT NULL DEFAULT now(),
    CHECK (cardinality(subscription_ids) = cardinality(tokens))
);
CREATE INDEX delivery_jobs_due ON delivery_jobs (lane, due_at, id);
-- A job lives seconds: store its arrays uncompressed rather than spend CPU compressing them.
ALTER TABLE delivery_jobs ALTER COLUMN subscription_ids SET STORAGE EXTERNAL,
                          ALTER COLUMN tokens SET STORAGE EXTERNAL,
                          ALTER COLUMN live_activity_ids SET STORAGE EXTERNAL,
                          ALTER COLUMN badges SET STORAGE EXTERNAL;

-- When each app last had a job claimed: within a lane, apps take turns, the one served longest
-- ago first, so a fan-out queued earlier does not hold another app's jobs behind it.
CREATE TABLE delivery_app_turns (
    app_id           text PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
    last_claimed_at  timestamptz NOT NULL
);
CREATE INDEX delivery_jobs_by_message ON delivery_jobs (message_id);

-- One record per device a message reached or gave up on, written once. Kept in daily
-- partitions that the maintenance loop drops after the retention period (no DELETE scans).
ALTER TABLE deliveries RENAME TO deliveries_v1;
ALTER INDEX deliveries_by_message RENAME TO deliveries_v1_by_message;
ALTER INDEX deliveries_by_subscription RENAME TO deliveries_v1_by_subscription;

CREATE TABLE deliveries (
    id                 bigint GENERATED ALWAYS AS IDENTITY,
    apns_id            uuid NOT NULL,
    message_id         text NOT NULL,
    app_id             text NOT NULL,
    subscription_id    text NOT NULL,
    live_activity_id   text,
    token_kind         text NOT NULL,
    token              text NOT NULL,
    -- accepted | error; cancelled, superseded and expired were never sent (or not again).
    state              text NOT NULL CHECK (state IN ('accepted', 'error', 'cancelled', 'superseded', 'expired')),
    attempts           integer NOT NULL DEFAULT 0,
    error_reason       text,
    apns_status        integer,
    finished_at        timestamptz NOT NULL,
    clicked_at         timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (created_at);
-- One index only: every record is written once and read by message (counts, the deliveries
-- list, a tap's record among its message's recipients). Each index more is a write per push.
CREATE INDEX deliveries_by_message ON deliveries (message_id, id);
-- A tap finds its Live Activity's messages newest first.
-- (By a digest: activity ids are the app's own strings, of any length.)
CREATE INDEX messages_by_activity ON messages (app_id, md5(activity_id), created_at DESC) WHERE kind = 'live_activity';

-- Creates the daily partitions covering [first, last] that do not exist yet.
CREATE FUNCTION openpush_delivery_partitions(first date, last date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    day date := first;
BEGIN
    WHILE day <= last LOOP
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF deliveries FOR VALUES FROM (%L) TO (%L)',
                       'deliveries_' || to_char(day, 'YYYYMMDD'), day::timestamp AT TIME ZONE 'UTC',
                       (day + 1)::timestamp AT TIME ZONE 'UTC');
        day := day + 1;
    END LOOP;
END $$;

-- Partitions are by UTC day; one for anything outside them (clock skew, old imports).
CREATE TABLE deliveries_default PARTITION OF deliveries DEFAULT;
SELECT openpush_delivery_partitions((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 3);

-- Upgrades lose nothing: finished rows become records, queued and in-flight rows become jobs.
INSERT INTO deliveries (apns_id, message_id, app_id, subscription_id, live_activity_id, token_kind, token, state,
                        attempts, error_reason, finished_at, clicked_at, created_at)
SELECT apns_id, message_id, app_id, subscription_id, live_activity_id, token_kind, token, state, attempts,
       error_reason, finished_at, clicked_at, created_at
FROM deliveries_v1 WHERE finished_at IS NOT NULL;

INSERT INTO delivery_jobs (message_id, app_id, lane, token_kind, attempt, due_at, subscription_ids, tokens,
                           live_activity_ids, badges, created_at)
SELECT q.message_id, q.app_id, CASE WHEN m.kind = 'live_activity' THEN 0 ELSE 1 END, q.token_kind,
       max(q.attempts) + 1, min(q.next_attempt_at), array_agg(q.subscription_id ORDER BY q.id),
       array_agg(q.token ORDER BY q.id), array_agg(q.live_activity_id ORDER BY q.id), array_agg(q.badge ORDER BY q.id),
       min(q.created_at)
FROM (SELECT d.*, (row_number() OVER (PARTITION BY d.message_id, d.token_kind ORDER BY d.id) - 1) / 1000 AS chunk
      FROM deliveries_v1 d WHERE d.finished_at IS NULL) AS q
JOIN messages m ON m.id = q.message_id
GROUP BY q.message_id, q.app_id, q.token_kind, m.kind, q.chunk;

DROP TABLE deliveries_v1;

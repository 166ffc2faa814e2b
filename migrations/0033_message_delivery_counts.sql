-- GET /notifications/{id} reads its figures from counts kept on the message row as the records
-- are written, instead of counting the message's `deliveries` on every read (with 200,000
-- recipients one read cost PostgreSQL about 0.2 s of CPU).
--
-- Every writer of a record adds to these in the transaction (and statement batch) that writes
-- it: a job's completion (one UPDATE per job, the job's records tallied first), a cancel or a
-- failure (one statement with the INSERT), the first tap on a record (`counted_converted`).
-- Columns on `messages`, not a table of (message, state, reason) rows: every job completion
-- already locks the message row (NotificationCompletion.check, DeliveryQueue.isCancelled), and
-- a tap updates `clicks` there, so one row per message adds no new lock and no lock ordering
-- between a count row and the message row (which a tap and a completion would take in opposite
-- orders).
--
-- The counts include every record ever written, so a partition drop adds nothing any more: the
-- `archived_*` columns keep what was dropped before this migration, which the backfill below
-- folds into the counts once.
ALTER TABLE messages ADD COLUMN counted_successful bigint NOT NULL DEFAULT 0;
-- `error` records with an unreachable reason (OneSignal's "failed").
ALTER TABLE messages ADD COLUMN counted_failed bigint NOT NULL DEFAULT 0;
-- `error` records with any other reason; an `error` with no reason is in neither.
ALTER TABLE messages ADD COLUMN counted_errored bigint NOT NULL DEFAULT 0;
-- Records with a tap (`clicked_at` set): a device counts once.
ALTER TABLE messages ADD COLUMN counted_converted bigint NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN counted_cancelled bigint NOT NULL DEFAULT 0;
-- Error reason → records, e.g. {"Unregistered": 3}; suppression reason → records.
ALTER TABLE messages ADD COLUMN counted_errors_by_reason jsonb NOT NULL DEFAULT '{}';
ALTER TABLE messages ADD COLUMN counted_suppressed_by_reason jsonb NOT NULL DEFAULT '{}';
-- The latest `finished_at` of any record (the view's `completed_at`).
ALTER TABLE messages ADD COLUMN counted_last_finished_at timestamptz;

-- Two reason → count objects summed key by key.
CREATE FUNCTION openpush_add_counts(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN b IS NULL OR b = '{}' THEN a ELSE (
        SELECT COALESCE(jsonb_object_agg(key, total), '{}')
        FROM (SELECT key, sum(value::bigint)::bigint AS total
              FROM (SELECT * FROM jsonb_each_text(a) UNION ALL SELECT * FROM jsonb_each_text(b)) AS both_counts
              GROUP BY key) AS summed)
    END
$$;

-- Sets the counts of the messages in `ids` (all when NULL) to their live records plus their
-- `archived_*` figures, counted as GET /notifications/{id} counted them before this migration.
-- Exact only while every record written since this migration is still live (a drop no longer
-- archives): it is the upgrade's backfill, and what tests call after writing records in SQL.
CREATE FUNCTION openpush_recount_deliveries(ids text[]) RETURNS void
LANGUAGE sql AS $$
    UPDATE messages SET
        counted_successful = archived_successful, counted_failed = archived_failed,
        counted_errored = archived_errored, counted_converted = archived_converted,
        counted_cancelled = archived_cancelled, counted_errors_by_reason = archived_errors_by_reason,
        counted_suppressed_by_reason = archived_suppressed_by_reason,
        counted_last_finished_at = archived_last_finished_at
    WHERE ids IS NULL OR id = ANY(ids);

    WITH unreachable AS (
        SELECT ARRAY['Unregistered', 'BadDeviceToken', 'ExpiredToken', 'DeviceTokenNotForTopic', 'Unsubscribed',
                     'ActivityEnded'] AS reasons
    ), figures AS (
        SELECT message_id,
               count(*) FILTER (WHERE state = 'accepted') AS successful,
               count(*) FILTER (WHERE state = 'error' AND error_reason = ANY(u.reasons)) AS failed,
               count(*) FILTER (WHERE state = 'error' AND NOT (error_reason = ANY(u.reasons))) AS errored,
               count(*) FILTER (WHERE clicked_at IS NOT NULL) AS converted,
               count(*) FILTER (WHERE state = 'cancelled') AS cancelled,
               max(finished_at) AS last_finished
        FROM deliveries, unreachable u WHERE ids IS NULL OR message_id = ANY(ids)
        GROUP BY message_id
    ), reasons AS (
        SELECT message_id, jsonb_object_agg(error_reason, n) AS reasons
        FROM (SELECT message_id, error_reason, count(*) AS n FROM deliveries
              WHERE (ids IS NULL OR message_id = ANY(ids)) AND state = 'error' AND error_reason IS NOT NULL
              GROUP BY message_id, error_reason) AS counted
        GROUP BY message_id
    ), suppressions AS (
        SELECT message_id, jsonb_object_agg(error_reason, n) AS reasons
        FROM (SELECT message_id, error_reason, count(*) AS n FROM deliveries
              WHERE (ids IS NULL OR message_id = ANY(ids)) AND state = 'suppressed' AND error_reason IS NOT NULL
              GROUP BY message_id, error_reason) AS counted
        GROUP BY message_id
    )
    UPDATE messages m SET
        counted_successful = m.counted_successful + f.successful,
        counted_failed = m.counted_failed + f.failed,
        counted_errored = m.counted_errored + f.errored,
        counted_converted = m.counted_converted + f.converted,
        counted_cancelled = m.counted_cancelled + f.cancelled,
        counted_last_finished_at = GREATEST(m.counted_last_finished_at, f.last_finished),
        counted_errors_by_reason = openpush_add_counts(m.counted_errors_by_reason, r.reasons),
        counted_suppressed_by_reason = openpush_add_counts(m.counted_suppressed_by_reason, sp.reasons)
    FROM figures f LEFT JOIN reasons r USING (message_id) LEFT JOIN suppressions sp USING (message_id)
    WHERE m.id = f.message_id;
$$;

SELECT openpush_recount_deliveries(NULL);

-- The stats routes (GET /stats/throughput, GET /apps/{app_id}/stats) read a rollup of the
-- delivery records instead of the records themselves, and `deliveries_by_app_time` (0030), the
-- index they read the records through, goes: it cost every push an index entry (about 1.5–2 µs
-- of PostgreSQL CPU, 77 B of storage and 120 B of WAL per push, docs/operating/scaling.md).
--
-- One row per app and second in which its records were written (`bucket` is the records'
-- `created_at`, their partition key, truncated to the second). A second is the finest step the
-- routes accept (`step=1s`, and an app window's bounds are whole seconds), so every window and
-- step they take is a whole number of buckets and the figures are exact. A row is one upsert per
-- job completion (a job's records share their transaction's now()), whatever the job's size.
--
-- Every writer of a record adds to it in the transaction (and statement) that writes it, as it
-- adds to the message's counts (0033, `DeliveryCounts`): a job's completion, a cancel or a
-- failure, and the first tap on a record (`clicked`, in the bucket of the tapped record, as the
-- routes counted records by their `created_at`). Lock order: the message row, then the rollup row.
-- The retention maintenance deletes a day's rows when it drops that day's partition, so the
-- routes keep answering what the records still hold.
CREATE TABLE delivery_stats (
    app_id           text NOT NULL,
    -- Whole seconds: the start of the second the records were written in.
    bucket           timestamptz NOT NULL,
    accepted         bigint NOT NULL DEFAULT 0,
    -- Records in state `error`, with or without a reason.
    failed           bigint NOT NULL DEFAULT 0,
    suppressed       bigint NOT NULL DEFAULT 0,
    cancelled        bigint NOT NULL DEFAULT 0,
    -- Records of this bucket with a tap (`clicked_at` set): a record counts once.
    clicked          bigint NOT NULL DEFAULT 0,
    -- `error` records with a reason: reason → records, e.g. {"Unregistered": 3}.
    errors_by_reason jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (app_id, bucket)
);
-- The retention maintenance deletes one day's rows of every app (one new entry per app and
-- second, not per push; an update of a row's counts changes no indexed column).
CREATE INDEX delivery_stats_by_bucket ON delivery_stats (bucket);

-- Sets the rollup rows of the apps in `apps` (all when NULL) to a count of their live records.
-- Exact while every record written since this migration is still live: it is the upgrade's
-- backfill, and what tests call after writing records in SQL.
CREATE FUNCTION openpush_recount_delivery_stats(apps text[]) RETURNS void
LANGUAGE sql AS $$
    DELETE FROM delivery_stats WHERE apps IS NULL OR app_id = ANY(apps);

    WITH records AS (
        SELECT app_id, to_timestamp(floor(extract(epoch FROM created_at))) AS bucket, state, error_reason, clicked_at
        FROM deliveries WHERE apps IS NULL OR app_id = ANY(apps)
    ), figures AS (
        SELECT app_id, bucket,
               count(*) FILTER (WHERE state = 'accepted') AS accepted,
               count(*) FILTER (WHERE state = 'error') AS failed,
               count(*) FILTER (WHERE state = 'suppressed') AS suppressed,
               count(*) FILTER (WHERE state = 'cancelled') AS cancelled,
               count(*) FILTER (WHERE clicked_at IS NOT NULL) AS clicked
        FROM records GROUP BY app_id, bucket
    ), reasons AS (
        SELECT app_id, bucket, jsonb_object_agg(error_reason, n) AS reasons
        FROM (SELECT app_id, bucket, error_reason, count(*) AS n FROM records
              WHERE state = 'error' AND error_reason IS NOT NULL GROUP BY app_id, bucket, error_reason) AS counted
        GROUP BY app_id, bucket
    )
    INSERT INTO delivery_stats (app_id, bucket, accepted, failed, suppressed, cancelled, clicked, errors_by_reason)
    SELECT f.app_id, f.bucket, f.accepted, f.failed, f.suppressed, f.cancelled, f.clicked, COALESCE(r.reasons, '{}')
    FROM figures f LEFT JOIN reasons r USING (app_id, bucket);
$$;

SELECT openpush_recount_delivery_stats(NULL);

-- `deliveries_by_message` is the one index left on the records.
DROP INDEX deliveries_by_app_time;

-- A message's delivery counts (`messages.counted_*`, `DeliveryCounts`): openpush_add_counts,
-- which every writer of a record uses to add to the reason maps, and openpush_recount_deliveries,
-- which counts them from the records again (the 0033 upgrade's backfill, and tests that write
-- records in SQL).

-- Two reason → count objects summed key by key. PL/pgSQL, not SQL: a SQL function with a
-- sub-SELECT cannot be inlined, so every statement calling it would parse and plan its body
-- afresh; PL/pgSQL keeps the plan for the connection's life, and the common case (nothing to
-- add) returns before reaching it.
CREATE OR REPLACE FUNCTION openpush_add_counts(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF b IS NULL OR b = '{}' THEN
        RETURN a;
    END IF;
    RETURN (SELECT COALESCE(jsonb_object_agg(key, total), '{}')
            FROM (SELECT key, sum(value::bigint)::bigint AS total
                  FROM (SELECT * FROM jsonb_each_text(a) UNION ALL SELECT * FROM jsonb_each_text(b)) AS both_counts
                  GROUP BY key) AS summed);
END $$;

-- Sets the counts of the messages in `ids` (all when NULL) to their live records plus their
-- `archived_*` figures (what partition drops removed before migration 0033). Exact only while
-- every record written since 0033 is still live (a drop no longer archives).
CREATE OR REPLACE FUNCTION openpush_recount_deliveries(ids text[]) RETURNS void
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

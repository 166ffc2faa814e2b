-- openpush_recount_delivery_stats(apps): rebuilds the stats rollup (`delivery_stats`, one row
-- per app and second, read by GET /stats/throughput and GET /apps/{app_id}/stats) of the apps in
-- `apps` (all when NULL) from their live records. Exact while every record written since
-- migration 0035 is still live: it was that upgrade's backfill, and tests call it after writing
-- records in SQL.
CREATE OR REPLACE FUNCTION openpush_recount_delivery_stats(apps text[]) RETURNS void
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

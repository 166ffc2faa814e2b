-- openpush_recount_delivery_stats(apps): rebuilds the stats rollup (`delivery_stats`, one row
-- per app, second, push service and shard, read by GET /stats/throughput and
-- GET /apps/{app_id}/stats) of the apps in `apps` (all when NULL) from their live records, in
-- shard 0. A record's push service is its subscription's platform's (`android` → `fcm`, `web` →
-- `webpush`, anything else or a subscription gone → `apns`), as migration 0063 counted them.
-- Exact while every record written since migration 0035 is still live: tests call it after
-- writing records in SQL.
CREATE OR REPLACE FUNCTION openpush_recount_delivery_stats(apps text[]) RETURNS void
LANGUAGE sql AS $$
    DELETE FROM delivery_stats WHERE apps IS NULL OR app_id = ANY(apps);

    WITH records AS (
        SELECT d.app_id, to_timestamp(floor(extract(epoch FROM d.created_at))) AS bucket,
               CASE s.platform WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'webpush' ELSE 'apns' END AS service,
               d.state, d.error_reason, d.clicked_at
        FROM deliveries d LEFT JOIN subscriptions s ON s.id = d.subscription_id
        WHERE apps IS NULL OR d.app_id = ANY(apps)
    ), figures AS (
        SELECT app_id, bucket, service,
               count(*) FILTER (WHERE state = 'accepted') AS accepted,
               count(*) FILTER (WHERE state = 'error') AS failed,
               count(*) FILTER (WHERE state = 'suppressed') AS suppressed,
               count(*) FILTER (WHERE state = 'cancelled') AS cancelled,
               count(*) FILTER (WHERE clicked_at IS NOT NULL) AS clicked
        FROM records GROUP BY app_id, bucket, service
    ), reasons AS (
        SELECT app_id, bucket, service, jsonb_object_agg(error_reason, n) AS reasons
        FROM (SELECT app_id, bucket, service, error_reason, count(*) AS n FROM records
              WHERE state = 'error' AND error_reason IS NOT NULL GROUP BY app_id, bucket, service, error_reason) AS counted
        GROUP BY app_id, bucket, service
    )
    INSERT INTO delivery_stats (app_id, bucket, service, shard, accepted, failed, suppressed, cancelled, clicked, errors_by_reason)
    SELECT f.app_id, f.bucket, f.service, 0, f.accepted, f.failed, f.suppressed, f.cancelled, f.clicked, COALESCE(r.reasons, '{}')
    FROM figures f LEFT JOIN reasons r USING (app_id, bucket, service);
$$;

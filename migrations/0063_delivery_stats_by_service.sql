-- The stats rollup (`delivery_stats`, 0035) by push service, and sharded.
--
-- `service`: the push service a record went to (or would have), with the labels /metrics uses
-- (`apns`, `fcm`, `webpush`). Records do not store it; writers know it (the transport that
-- answered, or for a push refused before any transport, its subscription's platform), and a
-- writer in SQL (a cancel, a failure, a tap, this backfill) takes it from the subscription's
-- platform: `android` → `fcm`, `web` → `webpush`, anything else — a subscription gone among
-- them — `apns`.
--
-- `shard`: every completion of one app's jobs in one second added to the same row, so
-- concurrent completions queued on its row lock. A completion adds to one of 4 shards, chosen
-- by the writer; cancels, failures and taps add to shard 0. Readers sum over services and
-- shards, and a bucket is still one second: every window stays exact.
ALTER TABLE delivery_stats
    ADD COLUMN service text NOT NULL DEFAULT 'apns'
        CONSTRAINT delivery_stats_service_check CHECK (service IN ('apns', 'fcm', 'webpush')),
    ADD COLUMN shard smallint NOT NULL DEFAULT 0 CONSTRAINT delivery_stats_shard_check CHECK (shard BETWEEN 0 AND 3);
-- Every writer names both.
ALTER TABLE delivery_stats ALTER COLUMN service DROP DEFAULT, ALTER COLUMN shard DROP DEFAULT;
ALTER TABLE delivery_stats DROP CONSTRAINT delivery_stats_pkey;
ALTER TABLE delivery_stats ADD PRIMARY KEY (app_id, bucket, service, shard);

-- The backfill: existing rows counted again from the live records, by service, all in shard 0
-- (what `openpush_recount_delivery_stats` does, defined after the migrations run).
DELETE FROM delivery_stats;
WITH records AS (
    SELECT d.app_id, to_timestamp(floor(extract(epoch FROM d.created_at))) AS bucket,
           CASE s.platform WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'webpush' ELSE 'apns' END AS service,
           d.state, d.error_reason, d.clicked_at
    FROM deliveries d LEFT JOIN subscriptions s ON s.id = d.subscription_id
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

-- The stats routes read the delivery records of a time window: one app's
-- (GET /apps/{app_id}/stats), or every app's, one app after another
-- (GET /stats/throughput probes this index once per app), so both read only the window's rows.
-- `created_at` is the partition key, so a window also touches only its days' partitions.
-- `state` is included so the throughput series is read from the index alone.
CREATE INDEX deliveries_by_app_time ON deliveries (app_id, created_at) INCLUDE (state);

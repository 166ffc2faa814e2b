-- Workers claim the oldest due rows, `ORDER BY next_attempt_at, id`. Every row of a fan-out is
-- queued with the same `next_attempt_at`, so an index on that column alone made PostgreSQL sort a
-- whole fan-out's rows on every claim; with `id` in the index the scan stops after one batch.
DROP INDEX deliveries_claimable;
CREATE INDEX deliveries_claimable ON deliveries (next_attempt_at, id) WHERE state IN ('queued', 'sent');

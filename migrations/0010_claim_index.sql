-- The delivery queue's hot path, tuned.
--
-- Workers claim the oldest due rows, `ORDER BY next_attempt_at, id`. Every row of a fan-out is
-- queued with the same `next_attempt_at`, so the index carries `id` too: the scan stops after
-- one batch instead of sorting a whole fan-out.
--
-- A claim changes only columns no index covers (state, lease, attempts, sent_at), so with room
-- left on each page PostgreSQL can make it a HOT update, writing no index entries. That is why
-- the index's predicate is `finished_at IS NULL` (set when a row ends: accepted, error,
-- cancelled) rather than the state itself.
ALTER TABLE deliveries SET (fillfactor = 70);
DROP INDEX deliveries_claimable;
CREATE INDEX deliveries_claimable ON deliveries (next_attempt_at, id) WHERE finished_at IS NULL;

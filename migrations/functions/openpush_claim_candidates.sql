-- openpush_claim_candidates(): each (lane, app) pair with a job a worker could lease now or
-- later, with its first due time and the app's jobs in flight (`busy`, claims rather than jobs:
-- a batch counts once). `openpush_claim_batch` picks from these, in its own order.
--
-- The waiting jobs are read by a loose index scan over `delivery_jobs_waiting`: one probe per
-- pair, however many jobs each pair has queued. The leased jobs are read whole, from
-- `delivery_jobs_leased`: they are what is in flight, at most a few per worker loop. A job
-- whose lease ran out is a candidate again.
CREATE OR REPLACE FUNCTION openpush_claim_candidates()
RETURNS TABLE (lane smallint, app_id text, first_due timestamptz, busy bigint)
LANGUAGE sql STABLE AS $$
    WITH RECURSIVE waiting AS (
        (SELECT d.lane, d.app_id, d.due_at FROM delivery_jobs d WHERE d.leased_until IS NULL
         ORDER BY d.lane, d.app_id, d.due_at LIMIT 1)
        UNION ALL
        SELECT n.lane, n.app_id, n.due_at FROM waiting w,
            LATERAL (SELECT d.lane, d.app_id, d.due_at FROM delivery_jobs d
                     WHERE d.leased_until IS NULL AND (d.lane, d.app_id) > (w.lane, w.app_id)
                     ORDER BY d.lane, d.app_id, d.due_at LIMIT 1) AS n
    ), leased AS (
        SELECT d.id, d.lane, d.app_id, d.due_at, d.leased_until, d.leased_batch FROM delivery_jobs d
        WHERE d.leased_until IS NOT NULL
    ), busy AS (
        SELECT l.app_id, count(DISTINCT COALESCE(l.leased_batch, l.id)) FILTER (WHERE l.leased_until > now()) AS n
        FROM leased l GROUP BY l.app_id
    ), pairs AS (
        SELECT w.lane, w.app_id, w.due_at FROM waiting w
        UNION ALL
        SELECT l.lane, l.app_id, min(l.due_at) FROM leased l WHERE l.leased_until <= now() GROUP BY l.lane, l.app_id
    )
    SELECT p.lane, p.app_id, min(p.due_at), COALESCE(max(b.n), 0)
    FROM pairs p LEFT JOIN busy b ON b.app_id = p.app_id
    GROUP BY p.lane, p.app_id
$$;

-- openpush_claim_job(worker, lease_seconds, app_cap): the job a worker runs next
-- (`DeliveryQueue.claimNext`), leased to `worker` for `lease_seconds`, or no job; and whether a
-- notification is due for expansion (the last column of every answer: a row with NULL job
-- columns when no job is).
--
-- The order is fair scheduling's: the urgent lane first (Live Activity, time-sensitive and
-- critical alerts); within a lane the app with the fewest jobs in flight, then the app served
-- longest ago (`delivery_app_turns`), then the one whose job came due first. An app with
-- `app_cap` jobs in flight waits, and so does an app whose APNs credentials are paused.
--
-- A function, not a statement, so PL/pgSQL keeps its plans for the connection's life; the pick
-- sorts apps, not jobs (one pass over the jobs tells each app's lanes, readiness and jobs in
-- flight), then finds the chosen app's oldest due job through `delivery_jobs_by_app_due`.
CREATE OR REPLACE FUNCTION openpush_claim_job(worker text, lease_seconds float8, app_cap integer)
RETURNS TABLE (id bigint, message_id text, app_id text, lane smallint, token_kind text, attempt integer,
               subscription_ids text[], tokens text[], live_activity_ids text[], badges integer[],
               created_at float8, expansion_due boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    candidate record;
    picked bigint;
    expanding boolean;
BEGIN
    expanding := EXISTS (
        SELECT 1 FROM messages m
        WHERE m.expansion = 'pending' AND m.send_after <= now()
          AND (m.expansion_retry_at IS NULL OR m.expansion_retry_at <= now()));
    FOR candidate IN
        SELECT g.app_id, g.lane FROM (
            SELECT j.app_id, j.lane,
                   bool_or(j.ready) AS ready,
                   min(j.due_at) FILTER (WHERE j.ready) AS first_due,
                   sum(count(*) FILTER (WHERE j.leased_until > now())) OVER (PARTITION BY j.app_id) AS busy
            FROM (SELECT d.app_id, d.lane, d.due_at, d.leased_until,
                         d.due_at <= now() AND (d.leased_until IS NULL OR d.leased_until <= now()) AS ready
                  FROM delivery_jobs d) AS j
            GROUP BY j.app_id, j.lane
        ) AS g
        LEFT JOIN delivery_app_turns t ON t.app_id = g.app_id
        WHERE g.ready AND g.busy < app_cap
          AND g.app_id <> ALL (ARRAY(SELECT a.id FROM apps a WHERE a.apns_paused_at IS NOT NULL))
        ORDER BY g.lane, g.busy, t.last_claimed_at NULLS FIRST, g.first_due
    LOOP
        -- Another worker may hold this app's next job: then its next, or the next app.
        SELECT d.id INTO picked FROM delivery_jobs d
        WHERE d.app_id = candidate.app_id AND d.lane = candidate.lane AND d.due_at <= now()
          AND (d.leased_until IS NULL OR d.leased_until <= now())
        ORDER BY d.due_at, d.id
        LIMIT 1
        FOR UPDATE SKIP LOCKED;
        IF picked IS NOT NULL THEN
            INSERT INTO delivery_app_turns AS t (app_id, last_claimed_at) VALUES (candidate.app_id, clock_timestamp())
            ON CONFLICT (app_id) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at;
            RETURN QUERY
                UPDATE delivery_jobs j
                SET leased_until = now() + make_interval(secs => lease_seconds), leased_by = worker
                WHERE j.id = picked
                RETURNING j.id, j.message_id, j.app_id, j.lane, j.token_kind, j.attempt, j.subscription_ids, j.tokens,
                          j.live_activity_ids, j.badges, extract(epoch FROM j.created_at)::float8, expanding;
            RETURN;
        END IF;
    END LOOP;
    RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::text, NULL::smallint, NULL::text, NULL::integer,
                        NULL::text[], NULL::text[], NULL::text[], NULL::integer[], NULL::float8, expanding;
END $$;

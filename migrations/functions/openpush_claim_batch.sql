-- openpush_claim_batch(worker, lease_seconds, app_cap, max_jobs, max_recipients): the jobs a
-- worker runs next as one batch (`DeliveryQueue.claimBatch`), leased to `worker` for
-- `lease_seconds`, or no job. Every row also says whether a notification is due for expansion,
-- and a row with NULL job columns (no job) says in `next_due` how many seconds until a job comes
-- due or a lease runs out (NULL: nothing waits), so an idle worker needs no other query.
--
-- The order is fair scheduling's: the urgent lane first (Live Activity, time-sensitive and
-- critical alerts); within a lane the app with the fewest claims in flight, then the app served
-- longest ago (`delivery_app_turns`), then the one whose job came due first. An app with
-- `app_cap` claims in flight waits, and so does an app whose APNs credentials are paused.
--
-- A batch is the chosen app's and lane's oldest due job, then, when that is a device job of
-- fewer than `max_recipients`, its next due device jobs while their recipients add up to at most
-- `max_recipients`, at most `max_jobs` in all: many one-user messages share one claim and one
-- completion, and a fan-out job (of `max_recipients`) is a batch alone. Every job of a batch
-- holds the first one's id in `leased_batch`: one claim in flight, toward the cap.
CREATE OR REPLACE FUNCTION openpush_claim_batch(worker text, lease_seconds float8, app_cap integer, max_jobs integer,
                                                max_recipients integer)
RETURNS TABLE (id bigint, message_id text, app_id text, lane smallint, token_kind text, attempt integer,
               subscription_ids text[], tokens text[], live_activity_ids text[], badges integer[],
               created_at float8, expansion_due boolean, next_due float8)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    candidate record;
    first_id bigint;
    first_kind text;
    first_size integer;
    taken bigint[];
    expanding boolean;
    paused text[];
BEGIN
    expanding := EXISTS (
        SELECT 1 FROM messages m
        WHERE m.expansion = 'pending' AND m.send_after <= now()
          AND (m.expansion_retry_at IS NULL OR m.expansion_retry_at <= now()));
    paused := ARRAY(SELECT a.id FROM apps a WHERE a.apns_paused_at IS NOT NULL);
    FOR candidate IN
        SELECT c.app_id, c.lane FROM openpush_claim_candidates() c
        LEFT JOIN delivery_app_turns t ON t.app_id = c.app_id
        WHERE c.first_due <= now() AND c.busy < app_cap AND c.app_id <> ALL (paused)
        ORDER BY c.lane, c.busy, t.last_claimed_at NULLS FIRST, c.first_due
    LOOP
        -- A job whose lease ran out first (it came due before any waiting one), then the oldest
        -- waiting; another worker may hold the next one: then its next, or the next app.
        SELECT d.id, d.token_kind, COALESCE(d.recipients, cardinality(d.subscription_ids))
        INTO first_id, first_kind, first_size
        FROM delivery_jobs d
        WHERE d.app_id = candidate.app_id AND d.lane = candidate.lane AND d.due_at <= now()
          AND d.leased_until IS NOT NULL AND d.leased_until <= now()
        ORDER BY d.due_at, d.id
        LIMIT 1
        FOR UPDATE SKIP LOCKED;
        IF first_id IS NULL THEN
            SELECT d.id, d.token_kind, COALESCE(d.recipients, cardinality(d.subscription_ids))
            INTO first_id, first_kind, first_size
            FROM delivery_jobs d
            WHERE d.lane = candidate.lane AND d.app_id = candidate.app_id AND d.leased_until IS NULL AND d.due_at <= now()
            ORDER BY d.due_at, d.id
            LIMIT 1
            FOR UPDATE SKIP LOCKED;
        END IF;
        IF first_id IS NOT NULL THEN
            taken := ARRAY[first_id];
            IF max_jobs > 1 AND first_kind = 'device' AND first_size < max_recipients THEN
                -- More waiting device jobs (a lease that ran out is taken by a claim of its own):
                -- lock only as many as fit (counted first, unlocked), then keep those that still
                -- fit once the ones another worker holds are skipped.
                taken := taken || ARRAY(
                    SELECT f.id FROM (
                        SELECT l.id, sum(l.size) OVER (ORDER BY l.due_at, l.id) AS total FROM (
                            SELECT d.id, d.due_at, COALESCE(d.recipients, cardinality(d.subscription_ids)) AS size
                            FROM delivery_jobs d
                            WHERE d.lane = candidate.lane AND d.app_id = candidate.app_id AND d.leased_until IS NULL
                              AND d.due_at <= now() AND d.id <> first_id AND d.token_kind = 'device'
                            ORDER BY d.due_at, d.id
                            LIMIT (SELECT count(*) FROM (
                                       SELECT sum(COALESCE(e.recipients, cardinality(e.subscription_ids)))
                                                  OVER (ORDER BY e.due_at, e.id) AS total
                                       FROM delivery_jobs e
                                       WHERE e.lane = candidate.lane AND e.app_id = candidate.app_id
                                         AND e.leased_until IS NULL AND e.due_at <= now() AND e.id <> first_id
                                         AND e.token_kind = 'device'
                                       ORDER BY e.due_at, e.id
                                       LIMIT max_jobs - 1) AS counted
                                   WHERE counted.total <= max_recipients - first_size)
                            FOR UPDATE SKIP LOCKED) AS l
                    ) AS f
                    WHERE f.total <= max_recipients - first_size
                    ORDER BY f.total);
            END IF;
            INSERT INTO delivery_app_turns AS t (app_id, last_claimed_at) VALUES (candidate.app_id, clock_timestamp())
            ON CONFLICT (app_id) DO UPDATE SET last_claimed_at = EXCLUDED.last_claimed_at;
            RETURN QUERY
                UPDATE delivery_jobs j
                SET leased_until = now() + make_interval(secs => lease_seconds), leased_by = worker, leased_batch = first_id
                WHERE j.id = ANY (taken)
                RETURNING j.id, j.message_id, j.app_id, j.lane, j.token_kind, j.attempt, j.subscription_ids, j.tokens,
                          j.live_activity_ids, j.badges, extract(epoch FROM j.created_at)::float8, expanding, NULL::float8;
            RETURN;
        END IF;
    END LOOP;
    -- Nothing to lease now: until when (a due job another app's cap holds back counts as now).
    RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::text, NULL::smallint, NULL::text, NULL::integer,
                        NULL::text[], NULL::text[], NULL::text[], NULL::integer[], NULL::float8, expanding,
                        extract(epoch FROM least(
                            (SELECT min(c.first_due) FROM openpush_claim_candidates() c WHERE c.app_id <> ALL (paused)),
                            (SELECT min(d.leased_until) FROM delivery_jobs d WHERE d.leased_until IS NOT NULL),
                            (SELECT min(GREATEST(m.send_after, COALESCE(m.expansion_retry_at, m.send_after))) FROM messages m
                             WHERE m.expansion = 'pending')
                        ) - now())::float8;
END $$;

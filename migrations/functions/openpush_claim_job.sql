-- openpush_claim_job(worker, lease_seconds, app_cap): one job, as `openpush_claim_batch` picks
-- it (a batch of one), for a worker that does not claim batches; and whether a notification
-- is due for expansion (a row with NULL job columns when no job is).
CREATE OR REPLACE FUNCTION openpush_claim_job(worker text, lease_seconds float8, app_cap integer)
RETURNS TABLE (id bigint, message_id text, app_id text, lane smallint, token_kind text, attempt integer,
               subscription_ids text[], tokens text[], live_activity_ids text[], badges integer[],
               created_at float8, expansion_due boolean)
LANGUAGE sql AS $$
    SELECT b.id, b.message_id, b.app_id, b.lane, b.token_kind, b.attempt, b.subscription_ids, b.tokens,
           b.live_activity_ids, b.badges, b.created_at, b.expansion_due
    FROM openpush_claim_batch(worker, lease_seconds, app_cap, 1, 0) AS b
$$;

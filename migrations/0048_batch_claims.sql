-- Claims that cost the same whatever the backlog, and claims of several small jobs at once.
--
-- `delivery_jobs_waiting`: the (lane, app) pairs with jobs no worker holds, found by a loose
-- index scan (one probe per pair, `openpush_claim_candidates`) instead of grouping every queued
-- job on every claim. A claim moves its rows out of it, so it holds only what waits.
-- With `id` last, a pair's oldest due jobs come in claim order straight from it (the jobs of one
-- send share a due time).
CREATE INDEX delivery_jobs_waiting ON delivery_jobs (lane, app_id, due_at, id) WHERE leased_until IS NULL;

-- The leased rows only: an app's jobs in flight are counted from these, and a lease that ran
-- out is found here too.
CREATE INDEX delivery_jobs_leased ON delivery_jobs (app_id) WHERE leased_until IS NOT NULL;

-- The claim that leased a job: the id of the first job of its batch. A batch is one job in
-- flight toward the app's cap, however many jobs it holds. NULL for a lease taken before.
ALTER TABLE delivery_jobs ADD COLUMN leased_batch bigint;

-- A job's recipient count, written with it, so a claim can add up a batch's recipients
-- without reading the arrays (a fan-out job's are out of line). NULL when a writer leaves it
-- out: the claim then counts the array.
ALTER TABLE delivery_jobs ADD COLUMN recipients integer;

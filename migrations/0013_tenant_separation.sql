-- Shared demo tenants stay apart.

-- An idempotency key belongs to the caller that used it: '' for the app's own REST keys, else
-- the tenant whose REST key sent the request. Two tenants that pick the same key get two
-- messages and never see each other's replay. Rows from before this column are the app's.
ALTER TABLE idempotency_keys ADD COLUMN caller text NOT NULL DEFAULT '';
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (app_id, scope, caller, key);

-- Wrong link codes a device tried, one row each, for `/v1/apps/{app_id}/devices/link`'s limit
-- of 10 per device per 10 minutes. Kept here, not in a process, so the limit holds across
-- processes. Rows older than the window are deleted when the device tries again.
CREATE TABLE link_code_failures (
    subscription_id  text NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    at               timestamptz NOT NULL
);
CREATE INDEX link_code_failures_by_device ON link_code_failures (subscription_id, at);

-- Link codes grow from 8 to 12 characters (40 to 60 random bits). Codes issued before are
-- replaced, five bits from each of 12 random bytes of a v4 UUID (pg_strong_random), skipping
-- byte 6, whose low five bits hold a fixed bit of the version. The organization reads the new
-- codes from GET /apps/{app_id}/tenants. `WHERE t.id = tenants.id` ties the draw to each row,
-- so PostgreSQL cannot evaluate it once for the whole table.
UPDATE tenants SET link_code = (
    SELECT string_agg(substr('23456789ABCDEFGHJKLMNPQRSTUVWXYZ', (get_byte(r.bytes, i) & 31) + 1, 1), '' ORDER BY n)
    FROM (SELECT uuid_send(gen_random_uuid()) AS bytes FROM tenants t WHERE t.id = tenants.id) AS r,
         unnest(ARRAY[0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]) WITH ORDINALITY AS positions (i, n)
)
WHERE length(link_code) < 12;

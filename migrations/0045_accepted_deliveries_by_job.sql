-- A job's accepted recipients are recorded as one row, not one row each. In a fan-out nearly
-- every record is `accepted`, and writing each as a row of its own (heap, the (message,
-- device, id) index, their WAL) was more than half of PostgreSQL's work per push. The other
-- states (errors, cancels, suppressions, coalesced updates) are rare and keep a row each.
--
-- `deliveries` becomes a view of every record, as it read before: `delivery_rows` (one row per
-- record) and `delivery_batches` unnested. Readers that look up one device (a tap, the
-- deliveries route) go to the two tables through their indexes instead.
ALTER TABLE deliveries RENAME TO delivery_rows;
ALTER INDEX deliveries_by_message RENAME TO delivery_rows_by_message;

-- One job's accepted records: element i (from 0) of `subscription_ids` is record
-- `job_id << 20 | i` (`DeliveryRecord.id`), so record ids and apns-ids read as before.
-- `first_`/`last_subscription_id` bound the array in the database's collation: a device's
-- batches are the few whose bounds enclose it.
CREATE TABLE delivery_batches (
    job_id                bigint NOT NULL,
    message_id            text NOT NULL,
    app_id                text NOT NULL,
    token_kind            text NOT NULL,
    attempts              integer NOT NULL,
    apns_status           integer,
    subscription_ids      text[] NOT NULL,
    -- Nil when no element has one (a notification's devices); else one per element.
    live_activity_ids     text[],
    first_subscription_id text NOT NULL,
    last_subscription_id  text NOT NULL,
    finished_at           timestamptz NOT NULL,
    created_at            timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (created_at);
-- Uncompressed: ids are random hex, which compresses little for the CPU it costs per job.
ALTER TABLE delivery_batches ALTER COLUMN subscription_ids SET STORAGE EXTERNAL;
ALTER TABLE delivery_batches ALTER COLUMN live_activity_ids SET STORAGE EXTERNAL;
-- One index, as on the rows: a device's batches are a range of it (last >= device, first <=
-- device as an index condition), and the deliveries route pages through it in order (the job
-- id breaks ties between batches of the same bounds, such as one device's retries).
CREATE INDEX delivery_batches_by_message
    ON delivery_batches (message_id, last_subscription_id, first_subscription_id, job_id);
CREATE TABLE delivery_batches_default PARTITION OF delivery_batches DEFAULT;

-- A device's first tap on a message: its record (the device's first of the message) and when.
-- The primary key makes "first" an insert that succeeds, so concurrent taps need no lock on a
-- record. `record_created_at` (the record's partition key) buckets the tap in the stats rollup
-- and lets retention delete a dropped day's taps.
CREATE TABLE delivery_clicks (
    message_id        text NOT NULL,
    subscription_id   text NOT NULL,
    record_id         bigint NOT NULL,
    record_created_at timestamptz NOT NULL,
    clicked_at        timestamptz NOT NULL,
    PRIMARY KEY (message_id, subscription_id)
);
CREATE INDEX delivery_clicks_by_record_day ON delivery_clicks (record_created_at);
INSERT INTO delivery_clicks (message_id, subscription_id, record_id, record_created_at, clicked_at)
SELECT DISTINCT ON (message_id, subscription_id) message_id, subscription_id, id, created_at, clicked_at
FROM delivery_rows WHERE clicked_at IS NOT NULL
ORDER BY message_id, subscription_id, id;
ALTER TABLE delivery_rows DROP COLUMN clicked_at;

CREATE VIEW deliveries AS
SELECT r.id, r.apns_id, r.message_id, r.app_id, r.subscription_id, r.live_activity_id, r.token_kind, r.state,
       r.attempts, r.error_reason, r.apns_status, r.finished_at, c.clicked_at, r.created_at, r.carried_by
FROM delivery_rows r
LEFT JOIN delivery_clicks c ON c.message_id = r.message_id AND c.subscription_id = r.subscription_id AND c.record_id = r.id
UNION ALL
SELECT (b.job_id << 20) | (e.position - 1), NULL::uuid, b.message_id, b.app_id, e.subscription_id, e.live_activity_id,
       b.token_kind, 'accepted', b.attempts, NULL, b.apns_status, b.finished_at, c.clicked_at, b.created_at, NULL
FROM delivery_batches b
CROSS JOIN LATERAL unnest(b.subscription_ids, b.live_activity_ids) WITH ORDINALITY
     AS e(subscription_id, live_activity_id, position)
LEFT JOIN delivery_clicks c ON c.message_id = b.message_id AND c.subscription_id = e.subscription_id
                           AND c.record_id = (b.job_id << 20) | (e.position - 1);

-- The device's first record of the message (lowest id), from either table: a descent of each
-- index. The batches' `= ANY` skips an enclosing batch without the device before unnesting it.
CREATE FUNCTION openpush_first_delivery(message text, subscription text, app text)
RETURNS TABLE (id bigint, created_at timestamptz) LANGUAGE sql STABLE AS $$
    SELECT id, created_at FROM (
        (SELECT r.id, r.created_at FROM delivery_rows r
         WHERE r.message_id = message AND r.subscription_id = subscription AND r.app_id = app
         ORDER BY r.id LIMIT 1)
        UNION ALL
        (SELECT (b.job_id << 20) | (e.position - 1), b.created_at
         FROM delivery_batches b CROSS JOIN LATERAL unnest(b.subscription_ids) WITH ORDINALITY AS e(subscription_id, position)
         WHERE b.message_id = message AND b.last_subscription_id >= subscription AND b.first_subscription_id <= subscription
           AND subscription = ANY(b.subscription_ids) AND b.app_id = app AND e.subscription_id = subscription
         ORDER BY 1 LIMIT 1)
    ) AS found ORDER BY id LIMIT 1
$$;

-- Creates the daily partitions of both tables covering [first, last] that do not exist yet
-- (looked up first: `IF NOT EXISTS` would send a NOTICE for each one that does).
CREATE OR REPLACE FUNCTION openpush_delivery_partitions(first date, last date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    day date := first;
    parent text;
    name text;
BEGIN
    WHILE day <= last LOOP
        FOREACH parent IN ARRAY ARRAY['delivery_rows', 'delivery_batches'] LOOP
            name := CASE parent WHEN 'delivery_rows' THEN 'deliveries_' ELSE 'delivery_batches_' END || to_char(day, 'YYYYMMDD');
            IF to_regclass(quote_ident(name)) IS NULL THEN
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent,
                               day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
            END IF;
        END LOOP;
        day := day + 1;
    END LOOP;
END $$;

-- A batch partition for every day that has a rows partition, and the days ahead.
SELECT openpush_delivery_partitions(to_date(substr(c.relname, 12), 'YYYYMMDD'), to_date(substr(c.relname, 12), 'YYYYMMDD'))
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'delivery_rows'::regclass AND c.relname ~ '^deliveries_[0-9]{8}$';
SELECT openpush_delivery_partitions((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 3);

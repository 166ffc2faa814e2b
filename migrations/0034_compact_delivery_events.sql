-- A job's delivery events in one row. A fan-out used to write one `events` row per device (with
-- its uuid, jsonb and index entries); now the transaction that completes a job writes its
-- `delivery.accepted` (and its `delivery.failed`) events as one row each, `data` holding what
-- they share once and what differs as parallel arrays. The feed and the webhooks expand such a
-- row into its events: member i has id `<row id>_<i>` and position (xid, seq, i).
-- NULL: the row is one event, `data` its data (every row written before this migration).
ALTER TABLE events ADD COLUMN batch_size integer CHECK (batch_size > 0);
-- An endpoint's cursor inside a row: the index of the last event of row (cursor_xid,
-- cursor_seq) it was sent; 2147483647: the whole row (every cursor before this migration).
ALTER TABLE webhooks ADD COLUMN cursor_index integer NOT NULL DEFAULT 2147483647;

-- Readers take events in (xid, seq) order, not seq alone. A transaction that got its xid early
-- can insert an event with a higher seq than one still open with a later xid; a cursor by seq
-- would pass the open one's event and never send it. Every event not yet visible has an xid at
-- or above the reader's snapshot xmin, above every xid a cursor has passed, so (xid, seq) order
-- skips nothing.
ALTER TABLE webhooks ADD COLUMN cursor_xid xid8 NOT NULL DEFAULT '0';
UPDATE webhooks w SET cursor_xid = e.xid FROM events e WHERE e.seq = w.cursor_seq;
CREATE INDEX events_by_app_position ON events (app_id, xid, seq);
DROP INDEX events_by_app;

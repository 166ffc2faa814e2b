-- A tap finds the device's record of the message by (message_id, subscription_id). Indexed by
-- (message_id, id), that walked the message's records in id order, reading each row: 76 ms for
-- a device 400,000 records into a 500,000-device notification, in the tap's transaction. Keyed
-- by device too, a tap is one descent; the deliveries route pages by (subscription_id, id), the
-- index's order. The index keeps its name (one index on the records, as before).
CREATE INDEX deliveries_by_message_device ON deliveries (message_id, subscription_id, id);
DROP INDEX deliveries_by_message;
ALTER INDEX deliveries_by_message_device RENAME TO deliveries_by_message;

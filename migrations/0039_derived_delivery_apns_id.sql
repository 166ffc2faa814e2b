-- A delivery record's `apns_id` is always `openpush_apns_id(message_id, subscription_id,
-- token_kind)`, so records are written without it and readers derive it: 16 bytes less per push
-- in the heap and the WAL, and no UUID for the worker to encode. Rows written before keep theirs
-- (those moved from the first deliveries table may hold ids that were not derived), so readers
-- take a stored one first.
ALTER TABLE deliveries ALTER COLUMN apns_id DROP NOT NULL;

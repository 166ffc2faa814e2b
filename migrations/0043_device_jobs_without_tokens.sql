-- A device or widget push goes to the token its subscription holds when its job runs, so a
-- device that registered a new token after the send was queued (a reinstall, hours before a
-- send at its local time) gets it there. Those jobs hold no tokens: at 65 bytes each, tokens
-- were most of a job's bytes, written to TOAST, read back and vacuumed for nothing. Live
-- Activity jobs keep theirs, one per recipient as before.
ALTER TABLE delivery_jobs DROP CONSTRAINT delivery_jobs_check;
ALTER TABLE delivery_jobs ADD CONSTRAINT delivery_jobs_tokens_check CHECK (
    cardinality(tokens) = cardinality(subscription_ids)
    OR (cardinality(tokens) = 0 AND token_kind IN ('device', 'widget')));

-- Delivery policy (coalescing, throttles, dedupe, staleness, quiet hours, privacy) can decide not
-- to send a push: the device's record says so, as state `suppressed` with the policy's reason in
-- `error_reason` (coalesced, throttled, deduplicated, stale, muted, blank).
-- The state check's generated name depends on the tables that held the name before: find it.
DO $$
DECLARE
    name text;
BEGIN
    SELECT conname INTO name FROM pg_constraint
    WHERE conrelid = 'deliveries'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%state%';
    EXECUTE format('ALTER TABLE deliveries DROP CONSTRAINT %I', name);
END $$;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_state_known
    CHECK (state IN ('accepted', 'error', 'cancelled', 'superseded', 'expired', 'suppressed'));
-- A coalesced update's record names the message whose push carried its state.
ALTER TABLE deliveries ADD COLUMN carried_by text;
-- Suppression reason → how many dropped records carried it, like `archived_errors_by_reason`.
ALTER TABLE messages ADD COLUMN archived_suppressed_by_reason jsonb NOT NULL DEFAULT '{}';

-- Webhook dispatch. A process sending an endpoint's batch holds a lease on the endpoint (its
-- token and expiry, from PostgreSQL's clock), so several processes never send the same batch at
-- once, and a process that dies mid-send leaves the endpoint to another once the lease ends.
ALTER TABLE webhooks
    ADD COLUMN lease_token text,
    ADD COLUMN lease_until timestamptz,
    -- What the last failed attempt got, in words ("status 500", "timed out", "refused address …").
    ADD COLUMN last_failure_reason text;
-- The dispatcher looks for enabled endpoints in due order.
CREATE INDEX webhooks_due ON webhooks (next_attempt_at) WHERE enabled;

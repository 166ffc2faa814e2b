-- A start's job checks that each recipient's push-to-start token is still held (a token
-- replaced or removed after the start was queued is not sent to). That check read
-- `push_to_start_tokens` once per recipient, about a fifth of PostgreSQL's work in a drain of
-- starts, though tokens rarely change. Now every change is logged with its transaction id, and
-- every job keeps the snapshot its recipients were read under: a job checks its recipients only
-- when a change of its app is not visible in that snapshot (committed after it, or in flight
-- then). Jobs without a snapshot (queued before this, and retries) always check.
CREATE TABLE push_to_start_token_changes (
    app_id text NOT NULL,
    xid xid8 NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_to_start_token_changes_by_app ON push_to_start_token_changes (app_id, xid);

CREATE FUNCTION openpush_log_push_to_start_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO push_to_start_token_changes (app_id, xid) VALUES (OLD.app_id, pg_current_xact_id());
    RETURN NULL;
END
$$;

CREATE TRIGGER push_to_start_token_removed AFTER DELETE ON push_to_start_tokens
    FOR EACH ROW EXECUTE FUNCTION openpush_log_push_to_start_change();
CREATE TRIGGER push_to_start_token_replaced AFTER UPDATE ON push_to_start_tokens
    FOR EACH ROW
    WHEN ((OLD.app_id, OLD.subscription_id, OLD.token) IS DISTINCT FROM (NEW.app_id, NEW.subscription_id, NEW.token))
    EXECUTE FUNCTION openpush_log_push_to_start_change();

-- Existing jobs keep NULL (always check); new ones take the snapshot of the statement that
-- reads their recipients and inserts them.
ALTER TABLE delivery_jobs ADD COLUMN recipients_snapshot pg_snapshot;
ALTER TABLE delivery_jobs ALTER COLUMN recipients_snapshot SET DEFAULT pg_current_snapshot();

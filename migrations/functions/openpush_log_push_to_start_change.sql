-- openpush_log_push_to_start_change(): the trigger function of `push_to_start_tokens`' triggers
-- `push_to_start_token_removed` (AFTER DELETE) and `push_to_start_token_replaced` (AFTER UPDATE
-- of app, subscription or token), which migration 0042 attaches.
--
-- Logs that a push-to-start token of the app changed, with the transaction's id. A start's job
-- keeps the snapshot its recipients were read under and checks them again only when a change
-- of its app is not visible in that snapshot (`push_to_start_token_changes`).
CREATE OR REPLACE FUNCTION openpush_log_push_to_start_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO push_to_start_token_changes (app_id, xid) VALUES (OLD.app_id, pg_current_xact_id());
    RETURN NULL;
END
$$;

-- openpush_send_idempotency_find(app, scope, caller, key, not_before): an idempotent request's
-- lock and lookup in one statement (`IdempotentRequest`).
--
-- Takes the key's transaction-scoped advisory lock, then reads the key's first answer given
-- after `not_before`, if any. The read is a statement of its own after the lock (a VOLATILE
-- function's statements each take a new snapshot), so a repeat that waited for the lock sees
-- the answer the first request committed, and replays it.
CREATE OR REPLACE FUNCTION openpush_send_idempotency_find(app text, key_scope text, key_caller text, key_value text,
                                                          not_before timestamptz)
RETURNS TABLE (status integer, response text, request_digest bytea, message_id text)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(app || '/' || key_scope || '/' || key_caller || '/' || key_value, 0));
    RETURN QUERY
        SELECT k.status, k.response::text, k.request_digest, k.message_id FROM idempotency_keys k
        WHERE k.app_id = app AND k.scope = key_scope AND k.caller = key_caller AND k.key = key_value
          AND k.created_at > not_before;
END
$$;

-- openpush_lifecycle_settle(ids, end_expansion): the writes of `MessageLifecycleStore` for the
-- inputs that only settle a message (a finished job, an expansion page written, jobs queued),
-- for many messages in one statement.
--
-- Each message row is locked, in id order (two batches never wait on each other in a cycle);
-- then, in statements of their own (a VOLATILE function's each take a new snapshot, so they see
-- what a transaction that held the lock before committed), `expansion` takes `end_expansion`
-- when given and the message is still pending, and the message is completed (stamped once)
-- when it no longer expands and no job of it is left. Returns each row as it was locked, with
-- whether jobs are left and whether it completed now: the caller checks both against
-- `MessageLifecycle` and emits `notification.completed` for those that completed.
CREATE OR REPLACE FUNCTION openpush_lifecycle_settle(ids text[], end_expansion text)
RETURNS TABLE (message_id text, message_app_id text, was_expansion text, was_expanded_any boolean, was_cancelled boolean,
               was_failed boolean, was_completed boolean, jobs_left boolean, completes boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    m record;
    expansion_now text;
BEGIN
    FOR m IN
        SELECT msg.id, msg.app_id, msg.expansion, msg.expanded_through IS NOT NULL AS expanded_any,
               msg.cancelled_at IS NOT NULL AS cancelled, msg.failed_reason IS NOT NULL AS failed,
               msg.completed_event_at IS NOT NULL AS completed
        FROM messages msg WHERE msg.id = ANY (ids) ORDER BY msg.id FOR UPDATE
    LOOP
        expansion_now := m.expansion;
        IF end_expansion IS NOT NULL AND m.expansion = 'pending' THEN
            UPDATE messages SET expansion = end_expansion WHERE id = m.id;
            expansion_now := end_expansion;
        END IF;
        jobs_left := EXISTS (SELECT 1 FROM delivery_jobs j WHERE j.message_id = m.id);
        completes := NOT m.completed AND expansion_now IS DISTINCT FROM 'pending' AND NOT jobs_left;
        IF completes THEN
            UPDATE messages SET completed_event_at = now() WHERE id = m.id;
        END IF;
        message_id := m.id;
        message_app_id := m.app_id;
        was_expansion := m.expansion;
        was_expanded_any := m.expanded_any;
        was_cancelled := m.cancelled;
        was_failed := m.failed;
        was_completed := m.completed;
        RETURN NEXT;
    END LOOP;
END
$$;

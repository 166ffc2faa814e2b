-- openpush_lifecycle_count_settle(ids, finished, counted, add_successful, add_failed, add_errored,
-- add_cancelled, add_errors, add_suppressions): a batch completion's writes to its messages' rows,
-- in one statement: each message's counts added (`DeliveryCounts`, when `counted[i]`: its jobs
-- appended records) and, when `finished[i]` (a job of it ended with nothing left waiting), the
-- settle of `openpush_lifecycle_settle` for a finished job (no expansion to end). A message that
-- both counts and completes is written by one UPDATE: each UPDATE logs the whole row (the
-- stored request and the canonical send with it), so a one-device message's row is written
-- twice in all (inserted, then counted and completed) instead of three times.
--
-- The rows are locked in id order, as `openpush_lifecycle_settle` locks them; the jobs-left
-- check and the update are statements of their own (a VOLATILE function's each take a new
-- snapshot: they see what a transaction that held the lock before committed). Returns the
-- finished messages' rows as `openpush_lifecycle_settle` does, for the caller's checks and
-- `notification.completed` events.
CREATE OR REPLACE FUNCTION openpush_lifecycle_count_settle(
    ids text[], finished boolean[], counted boolean[], add_successful int8[], add_failed int8[], add_errored int8[],
    add_cancelled int8[], add_errors text[], add_suppressions text[])
RETURNS TABLE (message_id text, message_app_id text, was_expansion text, was_expanded_any boolean, was_cancelled boolean,
               was_failed boolean, was_completed boolean, jobs_left boolean, completes boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    m record;
BEGIN
    FOR m IN
        SELECT msg.id, msg.app_id, msg.expansion, msg.expanded_through IS NOT NULL AS expanded_any,
               msg.cancelled_at IS NOT NULL AS cancelled, msg.failed_reason IS NOT NULL AS failed,
               msg.completed_event_at IS NOT NULL AS completed, u.is_finished, u.is_counted, u.n_successful,
               u.n_failed, u.n_errored, u.n_cancelled, u.errors_json, u.suppressions_json
        FROM unnest(ids, finished, counted, add_successful, add_failed, add_errored, add_cancelled, add_errors,
                    add_suppressions)
             AS u(id, is_finished, is_counted, n_successful, n_failed, n_errored, n_cancelled, errors_json, suppressions_json)
        JOIN messages msg ON msg.id = u.id
        ORDER BY msg.id FOR UPDATE OF msg
    LOOP
        jobs_left := m.is_finished AND EXISTS (SELECT 1 FROM delivery_jobs j WHERE j.message_id = m.id);
        completes := m.is_finished AND NOT m.completed AND m.expansion IS DISTINCT FROM 'pending' AND NOT jobs_left;
        IF m.is_counted THEN
            UPDATE messages SET
                counted_successful = counted_successful + m.n_successful,
                counted_failed = counted_failed + m.n_failed,
                counted_errored = counted_errored + m.n_errored,
                counted_cancelled = counted_cancelled + m.n_cancelled,
                counted_errors_by_reason = openpush_add_counts(counted_errors_by_reason, m.errors_json::jsonb),
                counted_suppressed_by_reason = openpush_add_counts(counted_suppressed_by_reason, m.suppressions_json::jsonb),
                counted_last_finished_at = GREATEST(counted_last_finished_at, now()),
                completed_event_at = CASE WHEN completes THEN now() ELSE completed_event_at END
            WHERE id = m.id;
        ELSIF completes THEN
            UPDATE messages SET completed_event_at = now() WHERE id = m.id;
        END IF;
        IF m.is_finished THEN
            message_id := m.id;
            message_app_id := m.app_id;
            was_expansion := m.expansion;
            was_expanded_any := m.expanded_any;
            was_cancelled := m.cancelled;
            was_failed := m.failed;
            was_completed := m.completed;
            RETURN NEXT;
        END IF;
    END LOOP;
END
$$;

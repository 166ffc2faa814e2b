-- openpush_throttle_reserve(message, earliest, slots): the pace of a throttled notification
-- (`throttle_rate_per_minute`, table `message_throttles`).
--
-- Reserves `slots` consecutive slots of a throttled message, from `earliest` or its next free
-- slot, whichever is later, and returns the first; NULL for a message that is not throttled.
-- Every page, every process and every retry takes its slots here, under the message's
-- `message_throttles` row lock, so the pace holds across all of them.
CREATE OR REPLACE FUNCTION openpush_throttle_reserve(message text, earliest timestamptz, slots integer) RETURNS timestamptz
LANGUAGE sql VOLATILE AS $$
    UPDATE message_throttles
    SET next_at = GREATEST(next_at, earliest) + make_interval(secs => slot_seconds * slots)
    WHERE message_id = message
    RETURNING next_at - make_interval(secs => slot_seconds * slots)
$$;

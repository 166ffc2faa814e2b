-- Per-device delivery time (`delayed_option`) and throttling (`throttle_rate_per_minute`) of
-- notifications. Both only set the `due_at` of the jobs an expansion writes: workers send a job
-- when it comes due, so nothing in the claim path knows about either.

-- A throttled message's pace, fixed when its first page is expanded (`ThrottlePace`), and the
-- next slot no job of it holds yet: every page, every process and every retry takes its slots
-- from here, under this row's lock, so the pace holds across all of them. A table of its own
-- rather than columns of `messages`: a job's completion holds its message row `FOR SHARE`,
-- and two completions taking retry slots on that same row would deadlock.
CREATE TABLE message_throttles (
    message_id    text PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    slot_size     integer NOT NULL CHECK (slot_size > 0),              -- recipients a slot
    slot_seconds  double precision NOT NULL CHECK (slot_seconds > 0),  -- between consecutive slots
    next_at       timestamptz NOT NULL
);

-- Reserves `slots` consecutive slots of a throttled message, from `earliest` or its next free
-- slot, whichever is later, and returns the first; NULL for a message that is not throttled.
CREATE FUNCTION openpush_throttle_reserve(message text, earliest timestamptz, slots integer) RETURNS timestamptz
LANGUAGE sql VOLATILE AS $$
    UPDATE message_throttles
    SET next_at = GREATEST(next_at, earliest) + make_interval(secs => slot_seconds * slots)
    WHERE message_id = message
    RETURNING next_at - make_interval(secs => slot_seconds * slots)
$$;

-- The first instant at or after `base` at which the clock of a fixed UTC offset (seconds east)
-- reads `seconds_of_day` (taken modulo a day, so a unix time gives its time of day): within 24 hours.
CREATE FUNCTION openpush_next_offset_time(base timestamptz, seconds_of_day double precision, offset_seconds integer)
RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
    SELECT base + make_interval(secs => wait - 86400 * floor(wait / 86400))
    FROM (SELECT seconds_of_day - (extract(epoch FROM base)::float8 + offset_seconds) AS wait) AS w
$$;

-- The first instant at or after `base` at which the wall clock of the IANA zone `zone` reads
-- `seconds_of_day` (PostgreSQL's time zone database). Where a DST change makes that time
-- happen twice, the first that is not before `base`; where it skips it, the moment the clocks
-- jump past it. Candidates come from the local day before, of and after `base`.
CREATE FUNCTION openpush_next_local_time(base timestamptz, seconds_of_day double precision, zone text)
RETURNS timestamptz LANGUAGE sql STABLE AS $$
    SELECT min(instant) FROM (
        SELECT COALESCE(
            (SELECT min(x) FROM (VALUES (wall AT TIME ZONE zone),
                                        (((wall - interval '1 hour') AT TIME ZONE zone) + interval '1 hour')) AS v(x)
             WHERE x >= base AND (x AT TIME ZONE zone) = wall),
            wall AT TIME ZONE zone) AS instant
        FROM (SELECT date_trunc('day', base AT TIME ZONE zone) + make_interval(days => d, secs => seconds_of_day) AS wall
              FROM generate_series(-1, 1) AS d) AS days
    ) AS candidates
    WHERE instant >= base
$$;

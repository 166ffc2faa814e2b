-- Wall-clock arithmetic of delivery times and quiet hours: openpush_next_offset_time,
-- openpush_next_local_time (per-device `delayed_option`, `ExpansionSchedule`) and
-- openpush_device_clock (quiet hours, `DeviceAttentionPolicy`), which uses the other two.

-- The first instant at or after `base` at which the clock of a fixed UTC offset (seconds east)
-- reads `seconds_of_day` (taken modulo a day, so a unix time gives its time of day): within 24 hours.
CREATE OR REPLACE FUNCTION openpush_next_offset_time(base timestamptz, seconds_of_day double precision, offset_seconds integer)
RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
    SELECT base + make_interval(secs => wait - 86400 * floor(wait / 86400))
    FROM (SELECT seconds_of_day - (extract(epoch FROM base)::float8 + offset_seconds) AS wait) AS w
$$;

-- The first instant at or after `base` at which the wall clock of the IANA zone `zone` reads
-- `seconds_of_day` (PostgreSQL's time zone database). Where a DST change makes that time
-- happen twice, the first that is not before `base`; where it skips it, the moment the clocks
-- jump past it. Candidates come from the local day before, of and after `base`.
CREATE OR REPLACE FUNCTION openpush_next_local_time(base timestamptz, seconds_of_day double precision, zone text)
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

-- A device's wall clock at `base` and the first instant at or after `base` at which it reads
-- `end_seconds` (seconds after midnight), in the IANA zone `zone` or, when that is NULL, at the
-- fixed UTC offset `offset_seconds` (seconds east). The instant comes from the two above, so a
-- DST change is accounted for.
CREATE OR REPLACE FUNCTION openpush_device_clock(base timestamptz, zone text, offset_seconds integer, end_seconds double precision,
                                                 OUT local_seconds double precision, OUT end_at timestamptz)
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN zone IS NULL
                THEN (extract(epoch FROM base)::float8 + offset_seconds)
                     - 86400 * floor((extract(epoch FROM base)::float8 + offset_seconds) / 86400)
                ELSE extract(epoch FROM (base AT TIME ZONE zone)::time)::float8 END,
           CASE WHEN zone IS NULL THEN openpush_next_offset_time(base, end_seconds, offset_seconds)
                ELSE openpush_next_local_time(base, end_seconds, zone) END
$$;

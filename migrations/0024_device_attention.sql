-- Device preferences that delivery policy reads (`DeviceAttentionPolicy`): a daily quiet-hours
-- window of the device's local clock (minutes after midnight, start inclusive, end exclusive;
-- start after end wraps midnight), and the `thread_id`s whose alerts the device does not get.
ALTER TABLE subscriptions
    ADD COLUMN quiet_hours_start smallint CHECK (quiet_hours_start BETWEEN 0 AND 1439),
    ADD COLUMN quiet_hours_end   smallint CHECK (quiet_hours_end BETWEEN 0 AND 1439),
    ADD COLUMN muted_threads     text[] NOT NULL DEFAULT '{}' CHECK (cardinality(muted_threads) <= 100),
    ADD CONSTRAINT subscriptions_quiet_hours_window CHECK (
        (quiet_hours_start IS NULL AND quiet_hours_end IS NULL)
        OR (quiet_hours_start IS NOT NULL AND quiet_hours_end IS NOT NULL AND quiet_hours_start <> quiet_hours_end));

-- A device's wall clock at `base` and the first instant at or after `base` at which it reads
-- `end_seconds` (seconds after midnight), in the IANA zone `zone` or, when that is NULL, at the
-- fixed UTC offset `offset_seconds` (seconds east). The instant comes from
-- `openpush_next_local_time` / `openpush_next_offset_time`, so a DST change is accounted for.
CREATE FUNCTION openpush_device_clock(base timestamptz, zone text, offset_seconds integer, end_seconds double precision,
                                      OUT local_seconds double precision, OUT end_at timestamptz)
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN zone IS NULL
                THEN (extract(epoch FROM base)::float8 + offset_seconds)
                     - 86400 * floor((extract(epoch FROM base)::float8 + offset_seconds) / 86400)
                ELSE extract(epoch FROM (base AT TIME ZONE zone)::time)::float8 END,
           CASE WHEN zone IS NULL THEN openpush_next_offset_time(base, end_seconds, offset_seconds)
                ELSE openpush_next_local_time(base, end_seconds, zone) END
$$;

-- The rest of OneSignal's user properties (`update_user`): location, activity times, and what
-- `deltas` add up. NULL is "never set", so an answer leaves the field out rather than showing
-- a value OpenPush does not know.
ALTER TABLE users
    ADD COLUMN latitude      double precision,
    ADD COLUMN longitude     double precision,
    ADD COLUMN first_active  bigint,            -- unix seconds, as OneSignal's clients send them
    ADD COLUMN last_active   bigint,
    ADD COLUMN session_count bigint,
    ADD COLUMN session_time  bigint,            -- seconds
    ADD COLUMN amount_spent  numeric,           -- every purchase's amount × count, as sent
    ADD COLUMN purchases     jsonb;             -- the latest purchases, newest last, bounded by the writer

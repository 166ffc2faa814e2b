-- A user's own properties beside its tags, OneSignal's names (`properties.language`, …).
ALTER TABLE users
    ADD COLUMN language    text,
    ADD COLUMN timezone_id text,
    ADD COLUMN country     text;

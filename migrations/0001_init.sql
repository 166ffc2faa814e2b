-- Key/value facts about this installation; the first migration so the migrator has something to do.
CREATE TABLE IF NOT EXISTS openpush_meta (
    key text PRIMARY KEY,
    value text NOT NULL
);

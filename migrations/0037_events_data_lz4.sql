-- A job's compact row of delivery events (0034) is tens of kilobytes of jsonb, written in the
-- transaction that completes the job: compressing it with pglz was ~5% of PostgreSQL's CPU
-- beside a fan-out. lz4 compresses such ids nearly as well for a fraction of the CPU, and
-- decompresses faster for the feed and the webhooks. Only values written from now on use it;
-- older ones stay pglz and read back the same. A server built without lz4 keeps pglz.
DO $$
BEGIN
    ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not available in this PostgreSQL: events.data keeps pglz';
END $$;

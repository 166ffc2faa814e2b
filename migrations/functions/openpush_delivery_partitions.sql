-- openpush_delivery_partitions(first, last): creates the daily partitions of `delivery_rows`
-- (`deliveries_YYYYMMDD`) and `delivery_batches` (`delivery_batches_YYYYMMDD`) covering the
-- UTC days [first, last] that do not exist yet. Called by the partition upkeep
-- (`DeliveryPartitions`); the retention maintenance drops old days.
--
-- Looked up first: `IF NOT EXISTS` would send a NOTICE for each one that does.
CREATE OR REPLACE FUNCTION openpush_delivery_partitions(first date, last date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    day date := first;
    parent text;
    name text;
BEGIN
    WHILE day <= last LOOP
        FOREACH parent IN ARRAY ARRAY['delivery_rows', 'delivery_batches'] LOOP
            name := CASE parent WHEN 'delivery_rows' THEN 'deliveries_' ELSE 'delivery_batches_' END || to_char(day, 'YYYYMMDD');
            IF to_regclass(quote_ident(name)) IS NULL THEN
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent,
                               day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
            END IF;
        END LOOP;
        day := day + 1;
    END LOOP;
END $$;

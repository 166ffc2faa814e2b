-- openpush_audit_prune(cutoff): deletes the audit log entries that occurred before `cutoff`
-- (a year back, `AuditRetention`), in batches so one pass never holds a long lock; returns
-- how many it deleted. Maintenance calls it; running it in several processes at once is harmless.
CREATE OR REPLACE FUNCTION openpush_audit_prune(cutoff timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    total bigint := 0;
    batch bigint;
BEGIN
    LOOP
        DELETE FROM audit_log WHERE id IN (
            SELECT id FROM audit_log WHERE occurred_at < cutoff ORDER BY occurred_at LIMIT 10000
            FOR UPDATE SKIP LOCKED);
        GET DIAGNOSTICS batch = ROW_COUNT;
        total := total + batch;
        EXIT WHEN batch < 10000;
    END LOOP;
    RETURN total;
END
$$;

-- `openpush_add_counts` (0033) as PL/pgSQL. As a SQL function with a sub-SELECT it could not be
-- inlined, so every statement that called it parsed and planned its body afresh, even when the
-- CASE then skipped it: three times per job completion (the message's two reason maps and the
-- rollup row), 3 % of PostgreSQL's CPU in a drain. PL/pgSQL keeps the sub-SELECT's plan for the
-- connection's life, and the common case (nothing to add) returns before reaching it.
CREATE OR REPLACE FUNCTION openpush_add_counts(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF b IS NULL OR b = '{}' THEN
        RETURN a;
    END IF;
    RETURN (SELECT COALESCE(jsonb_object_agg(key, total), '{}')
            FROM (SELECT key, sum(value::bigint)::bigint AS total
                  FROM (SELECT * FROM jsonb_each_text(a) UNION ALL SELECT * FROM jsonb_each_text(b)) AS both_counts
                  GROUP BY key) AS summed);
END $$;

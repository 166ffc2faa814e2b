-- Helpers of compiled segment filters (`FilterSQL`): openpush_filter_number, openpush_filter_version.
--
-- Tags and app versions are free text; a filter that compares them as numbers or versions must
-- skip values that are not, never fail the whole query on a bad cast. Both are IMMUTABLE SQL
-- functions, so the planner inlines them.

-- A decimal number (`10`, `-2.5`, `1e3`) as numeric; anything else, or anything long enough to
-- be an attack on numeric's range, is NULL.
CREATE OR REPLACE FUNCTION openpush_filter_number(value text) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE
    WHEN length(value) <= 64 AND value ~ '^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]{1,3})?$'
    THEN value::numeric
END $$;

-- A dotted version (`1`, `1.10.2`) as an array of numbers that compares component by component
-- (`{1,10} > {1,9}`); anything else is NULL.
CREATE OR REPLACE FUNCTION openpush_filter_version(value text) RETURNS numeric[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE
    WHEN length(value) <= 128 AND value ~ '^[0-9]{1,18}([.][0-9]{1,18})*$'
    THEN string_to_array(value, '.')::numeric[]
END $$;

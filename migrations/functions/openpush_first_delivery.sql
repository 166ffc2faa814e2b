-- openpush_first_delivery(message, subscription, app): a device's first record of a message
-- (lowest id) and its `created_at`, from `delivery_rows` or `delivery_batches`: a descent of each
-- table's index. A tap (`ClickStore`, `OpenedStore`) marks this record. The batches' `= ANY`
-- skips an enclosing batch without the device before unnesting it.
CREATE OR REPLACE FUNCTION openpush_first_delivery(message text, subscription text, app text)
RETURNS TABLE (id bigint, created_at timestamptz) LANGUAGE sql STABLE AS $$
    SELECT id, created_at FROM (
        (SELECT r.id, r.created_at FROM delivery_rows r
         WHERE r.message_id = message AND r.subscription_id = subscription AND r.app_id = app
         ORDER BY r.id LIMIT 1)
        UNION ALL
        (SELECT (b.job_id << 20) | (e.position - 1), b.created_at
         FROM delivery_batches b CROSS JOIN LATERAL unnest(b.subscription_ids) WITH ORDINALITY AS e(subscription_id, position)
         WHERE b.message_id = message AND b.last_subscription_id >= subscription AND b.first_subscription_id <= subscription
           AND subscription = ANY(b.subscription_ids) AND b.app_id = app AND e.subscription_id = subscription
         ORDER BY 1 LIMIT 1)
    ) AS found ORDER BY id LIMIT 1
$$;

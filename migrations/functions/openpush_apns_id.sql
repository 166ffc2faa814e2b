-- openpush_apns_id(message_id, subscription_id, token_kind): the `apns-id` of one push.
--
-- A UUID (version 8) of the first 16 bytes of SHA-256(message_id "\n" subscription_id "\n"
-- token_kind), so a job run again after a crash sends the same `apns-id` and support can
-- compute it. The worker derives it in Swift (`APNSIdentifier`) and writes no record with it;
-- this is its mirror for readers of stored records. `APNSIdentifierTests` prove the two agree.
CREATE OR REPLACE FUNCTION openpush_apns_id(message_id text, subscription_id text, token_kind text) RETURNS uuid
LANGUAGE sql IMMUTABLE AS $$
    SELECT encode(set_byte(set_byte(substring(d FROM 1 FOR 16), 6, (get_byte(d, 6) & 15) | 128),
                           8, (get_byte(d, 8) & 63) | 128), 'hex')::uuid
    FROM (SELECT sha256(convert_to(message_id || E'\n' || subscription_id || E'\n' || token_kind, 'UTF8')) AS d) AS x
$$;

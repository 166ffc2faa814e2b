-- Android delivery through FCM. An app whose FCM service account FCM refuses pauses its FCM
-- sending only (its Apple pushes go on): like `apns_paused_at`, set while paused, with the
-- last refusal's reason and time kept after it is lifted.
ALTER TABLE apps
    ADD COLUMN fcm_paused_at     timestamptz,
    ADD COLUMN fcm_status_reason text,
    ADD COLUMN fcm_status_at     timestamptz;

-- An accepted Android push's FCM message name (`projects/…/messages/…`), shown by the
-- deliveries route; such an acceptance is a row, not part of a job's batch.
ALTER TABLE delivery_rows ADD COLUMN fcm_message_name text;
